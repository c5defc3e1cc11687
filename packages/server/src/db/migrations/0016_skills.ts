import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Skills: the canonical packages (zip) of SKILL assets, content-addressed by their sha256 and never deleted
 * while a draft, revision or release names them (their payload carries the digest); and each user's
 * activation of a skill. Packages live in a table of their own, not `blobs`, whose knowledge purge deletes
 * rows no source references.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE skill_packages (
      sha256 text PRIMARY KEY,
      content bytea NOT NULL,
      byte_length integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE skill_activations (
      asset_id uuid NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      enabled boolean NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (asset_id, user_id)
    )`
})
