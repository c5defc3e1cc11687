import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE audit_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      actor_user_id uuid,
      action text NOT NULL,
      resource_type text NOT NULL,
      resource_id text,
      request_id text,
      details jsonb NOT NULL DEFAULT '{}'::jsonb,
      occurred_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`
  yield* sql`CREATE INDEX audit_events_time_idx ON audit_events (organization_id, occurred_at DESC, id DESC)`
  yield* sql`CREATE INDEX audit_events_actor_idx ON audit_events (actor_user_id, occurred_at DESC)`
  yield* sql`CREATE INDEX audit_events_resource_idx ON audit_events (resource_type, resource_id)`
  yield* sql`
    CREATE TABLE invitations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      email text NOT NULL,
      name text,
      role text NOT NULL,
      clearance text NOT NULL,
      department_id uuid NOT NULL REFERENCES departments(id),
      code_hash text NOT NULL UNIQUE,
      invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
      invited_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      accepted_at timestamptz,
      accepted_app_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      revoked_at timestamptz
    )`
  yield* sql`ALTER TABLE knowledge_spaces ADD COLUMN audience_version integer NOT NULL DEFAULT 1`
})
