import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Connectors and source identity (issue 16): connections per kind (PUSH, WEB, GIT) with a sealed write-only
 * credential and a crawl checkpoint; the native principals seen in their ACLs with mappings to Lore users;
 * sealed membership snapshots of source groups (members may be groups: nested); the documents a connection
 * owns, by external id; and the attempts its activity reports.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE connector_connections (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      source_system text NOT NULL,
      connection_key text NOT NULL,
      knowledge_space_id uuid NOT NULL REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      source_config jsonb NOT NULL DEFAULT '{}',
      crawl_interval_seconds integer NOT NULL DEFAULT 0,
      crawl_enabled boolean NOT NULL DEFAULT false,
      identity_trust text NOT NULL DEFAULT 'UNTRUSTED',
      trust_decided_by uuid REFERENCES users(id) ON DELETE SET NULL,
      trust_decided_at timestamptz,
      actor_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      configured_by uuid REFERENCES users(id) ON DELETE SET NULL,
      configured_at timestamptz NOT NULL DEFAULT now(),
      -- the credential sealed with the server key (SecretBox), and its SHA-256 to find the connection of a bearer
      credential_sealed text,
      credential_verifier text,
      credential_set_by uuid REFERENCES users(id) ON DELETE SET NULL,
      credential_set_at timestamptz,
      checkpoint jsonb,
      last_crawl_at timestamptz,
      deleted_at timestamptz,
      UNIQUE (organization_id, source_system, connection_key)
    )`
  yield* sql`CREATE INDEX connector_connections_verifier_idx ON connector_connections (credential_verifier) WHERE credential_verifier IS NOT NULL`
  yield* sql`
    CREATE TABLE source_principals (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      connection_id uuid NOT NULL REFERENCES connector_connections(id) ON DELETE CASCADE,
      kind text NOT NULL,
      native_principal_id text NOT NULL,
      observed_email text,
      observed_display_name text,
      sso_verified boolean NOT NULL DEFAULT false,
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (connection_id, kind, native_principal_id)
    )`
  yield* sql`CREATE INDEX source_principals_email_idx ON source_principals (lower(observed_email)) WHERE observed_email IS NOT NULL`
  yield* sql`
    CREATE TABLE source_principal_mappings (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      principal_id uuid NOT NULL UNIQUE REFERENCES source_principals(id) ON DELETE CASCADE,
      app_user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      method text NOT NULL,
      status text NOT NULL DEFAULT 'ACTIVE',
      evidence text NOT NULL,
      decided_by uuid REFERENCES users(id) ON DELETE SET NULL,
      verified_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX source_principal_mappings_user_idx ON source_principal_mappings (app_user_id) WHERE status = 'ACTIVE'`
  yield* sql`
    CREATE TABLE source_group_snapshots (
      group_principal_id uuid PRIMARY KEY REFERENCES source_principals(id) ON DELETE CASCADE,
      snapshot_id uuid NOT NULL DEFAULT gen_random_uuid(),
      membership_generation integer NOT NULL DEFAULT 1,
      sealed_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE source_group_members (
      group_principal_id uuid NOT NULL REFERENCES source_principals(id) ON DELETE CASCADE,
      member_principal_id uuid NOT NULL REFERENCES source_principals(id) ON DELETE CASCADE,
      PRIMARY KEY (group_principal_id, member_principal_id)
    )`
  yield* sql`CREATE INDEX source_group_members_member_idx ON source_group_members (member_principal_id)`
  yield* sql`
    CREATE TABLE connector_documents (
      connection_id uuid NOT NULL REFERENCES connector_connections(id) ON DELETE CASCADE,
      external_id text NOT NULL,
      knowledge_asset_id uuid NOT NULL REFERENCES knowledge_assets(id) ON DELETE CASCADE,
      url text,
      acl jsonb NOT NULL,
      acl_keys text[] NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      retired_at timestamptz,
      PRIMARY KEY (connection_id, external_id)
    )`
  yield* sql`
    CREATE TABLE connector_attempts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      connection_id uuid NOT NULL REFERENCES connector_connections(id) ON DELETE CASCADE,
      outcome text NOT NULL,
      objects_materialized integer NOT NULL DEFAULT 0,
      objects_rotated integer NOT NULL DEFAULT 0,
      objects_rematerialized integer NOT NULL DEFAULT 0,
      objects_retired integer NOT NULL DEFAULT 0,
      objects_failed integer NOT NULL DEFAULT 0,
      error_code text,
      error_message text,
      attempted_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`
  yield* sql`CREATE INDEX connector_attempts_connection_idx ON connector_attempts (connection_id, attempted_at DESC)`
})
