import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Answers may cite the caller's own assistant files as well as knowledge. A FILE citation keeps the file
 * (source_id), the chunk (citation_id) and the file's processing generation, and has no knowledge asset.
 * No foreign key to the file: a deleted or expired file leaves its citation unavailable, not gone.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE assistant_message_citations ADD COLUMN kind text NOT NULL DEFAULT 'KNOWLEDGE'`
  yield* sql`ALTER TABLE assistant_message_citations ADD COLUMN file_generation integer`
  yield* sql`ALTER TABLE assistant_message_citations ALTER COLUMN knowledge_asset_id DROP NOT NULL`
})
