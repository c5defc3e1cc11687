import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Provisioning (SCIM 2.0 connections, their credentials, provisioned users and groups) and single sign-on
 * (OpenID Connect settings and pending sign-ins).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE provisioning_connections (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      alias text NOT NULL,
      provider_profile text NOT NULL,
      operational_state text NOT NULL DEFAULT 'DISABLED',
      users_enabled boolean NOT NULL,
      groups_enabled boolean NOT NULL,
      -- the mapping applied to the users it provisions
      default_role text NOT NULL DEFAULT 'EMPLOYEE',
      default_clearance text NOT NULL DEFAULT 'STANDARD',
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, alias)
    )`
  yield* sql`
    CREATE TABLE provisioning_credentials (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      connection_id uuid NOT NULL REFERENCES provisioning_connections(id) ON DELETE CASCADE,
      public_token_id text NOT NULL UNIQUE,
      -- HMAC of the token under the server key of verifier_key_version; the token itself is never stored
      verifier text NOT NULL,
      verifier_key_version integer NOT NULL,
      users_scope boolean NOT NULL,
      groups_scope boolean NOT NULL,
      expires_at timestamptz NOT NULL,
      overlap_ends_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz,
      replaces_id uuid REFERENCES provisioning_credentials(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX provisioning_credentials_connection_idx ON provisioning_credentials (connection_id)`
  yield* sql`
    CREATE TABLE scim_users (
      user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      connection_id uuid NOT NULL REFERENCES provisioning_connections(id) ON DELETE CASCADE,
      user_name text NOT NULL,
      external_id text,
      -- the SCIM representation as last written by the identity provider (without id, meta and active)
      resource jsonb NOT NULL,
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX scim_users_user_name_key ON scim_users (connection_id, lower(user_name))`
  yield* sql`CREATE INDEX scim_users_external_idx ON scim_users (connection_id, external_id)`
  yield* sql`
    CREATE TABLE user_groups (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      connection_id uuid REFERENCES provisioning_connections(id) ON DELETE CASCADE,
      display_name text NOT NULL,
      external_id text,
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX user_groups_name_key ON user_groups (organization_id, lower(display_name))`
  yield* sql`
    CREATE TABLE user_group_members (
      group_id uuid NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      PRIMARY KEY (group_id, user_id)
    )`
  yield* sql`CREATE INDEX user_group_members_user_idx ON user_group_members (user_id)`
  yield* sql`
    CREATE TABLE sso_settings (
      organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
      enabled boolean NOT NULL DEFAULT false,
      issuer text NOT NULL,
      client_id text NOT NULL,
      client_secret_sealed text,
      just_in_time boolean NOT NULL DEFAULT false,
      version integer NOT NULL DEFAULT 1,
      updated_at timestamptz NOT NULL DEFAULT now(),
      updated_by uuid
    )`
  yield* sql`
    CREATE TABLE sso_logins (
      state_hash text PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      code_verifier_sealed text NOT NULL,
      nonce text NOT NULL,
      return_to text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`
  yield* sql`ALTER TABLE users ADD COLUMN sso_subject text`
})
