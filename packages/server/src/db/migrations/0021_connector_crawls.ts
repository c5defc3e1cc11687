import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Crawls a person can follow and a scheduler can time: the progress of the crawl in flight (null when none
 * runs), when the last crawl ended (the interval counts from there), and the checkpoint of the last crawl
 * that ended without failures (the activity's lastSuccessfulCursor).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE connector_connections ADD COLUMN crawl_progress jsonb`
  yield* sql`ALTER TABLE connector_connections ADD COLUMN crawl_finished_at timestamptz`
  yield* sql`ALTER TABLE connector_connections ADD COLUMN successful_checkpoint jsonb`
  yield* sql`ALTER TABLE connector_connections ADD COLUMN successful_at timestamptz`
})
