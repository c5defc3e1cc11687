import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE organizations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL,
      -- rises with every change to grants, roles, memberships, departments, mappings or trust
      authorization_generation bigint NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE departments (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, name)
    )`
  yield* sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      department_id uuid NOT NULL REFERENCES departments(id),
      email text NOT NULL,
      name text NOT NULL,
      role text NOT NULL,
      clearance text NOT NULL,
      active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX users_email_key ON users (organization_id, lower(email))`
  yield* sql`CREATE INDEX users_department_idx ON users (department_id)`
  yield* sql`
    CREATE TABLE department_managers (
      department_id uuid NOT NULL REFERENCES departments(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      PRIMARY KEY (department_id, user_id)
    )`
  yield* sql`
    CREATE TABLE platform_role_members (
      role text NOT NULL,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      assigned_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (role, user_id)
    )`
  yield* sql`
    CREATE TABLE access_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL,
      token_hash text NOT NULL UNIQUE,
      token_prefix text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz
    )`
  yield* sql`CREATE INDEX access_tokens_user_idx ON access_tokens (user_id)`
  yield* sql`
    CREATE TABLE sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      secret_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    )`
  yield* sql`
    CREATE TABLE knowledge_spaces (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      key text NOT NULL,
      name text NOT NULL,
      department_id uuid REFERENCES departments(id),
      active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, key)
    )`
  yield* sql`
    CREATE TABLE space_grants (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      knowledge_space_id uuid NOT NULL REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      relation text NOT NULL,
      kind text NOT NULL,
      subject_id uuid,
      role text,
      -- what a caller's access keys are matched against (see access/Evaluator.ts)
      subject_key text GENERATED ALWAYS AS (kind || coalesce(':' || subject_id::text, '') || coalesce(':' || role, '')) STORED,
      created_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid
    )`
  yield* sql`CREATE INDEX space_grants_subject_idx ON space_grants (subject_key)`
  yield* sql`
    CREATE UNIQUE INDEX space_grants_unique ON space_grants
      (knowledge_space_id, relation, kind, coalesce(subject_id, '00000000-0000-0000-0000-000000000000'::uuid), coalesce(role, ''))`
})
