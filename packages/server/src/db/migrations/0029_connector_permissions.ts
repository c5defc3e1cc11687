import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Permission sync as its own job, and ACLs that intersect (issue 30, points 1-3 and 6):
 * - a connection's permission sync has its own interval (default 300 s, 0 = off), checkpoint and times; past
 *   `permission_max_age_seconds` (NULL: never) without a successful one, its documents fail closed;
 * - attempts say which component they belong to (`content` or `permissions`) and count skipped objects;
 * - `acl_all` on sources, chunks, assets and connector documents: key-set ids EVERY one of which the caller must
 *   satisfy, beside `acl_keys` (any of); NULL means no further condition. A set's members are in
 *   `source_acl_set_members`, content-addressed (the set key is a digest of its members, so it never changes);
 *   a caller satisfies a set when one of their source keys is a member (resolved once per request).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE connector_connections ADD COLUMN permission_interval_seconds integer NOT NULL DEFAULT 300`
  yield* sql`ALTER TABLE connector_connections ADD COLUMN permission_max_age_seconds integer`
  yield* sql`ALTER TABLE connector_connections ADD COLUMN permission_checkpoint jsonb`
  yield* sql`ALTER TABLE connector_connections ADD COLUMN permissions_synced_at timestamptz`
  yield* sql`ALTER TABLE connector_connections ADD COLUMN permissions_finished_at timestamptz`
  yield* sql`ALTER TABLE connector_connections ADD COLUMN permissions_succeeded_at timestamptz`
  yield* sql`ALTER TABLE connector_attempts ADD COLUMN component text NOT NULL DEFAULT 'content'`
  yield* sql`ALTER TABLE connector_attempts ADD COLUMN objects_skipped integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE connector_documents ADD COLUMN acl_all text[]`
  yield* sql`ALTER TABLE sources ADD COLUMN acl_all text[]`
  yield* sql`ALTER TABLE chunks ADD COLUMN acl_all text[]`
  yield* sql`ALTER TABLE assets ADD COLUMN acl_all text[]`
  yield* sql`
    CREATE TABLE source_acl_set_members (
      set_key text NOT NULL,
      connection_id uuid NOT NULL REFERENCES connector_connections(id) ON DELETE CASCADE,
      member_key text NOT NULL,
      PRIMARY KEY (set_key, member_key)
    )`
  yield* sql`CREATE INDEX source_acl_set_members_member_idx ON source_acl_set_members (member_key)`
})
