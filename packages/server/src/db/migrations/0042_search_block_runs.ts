import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Appended runs, so block maintenance can merge them (docs/decisions.md "Search under steady ingestion: merged
 * runs"): each appended block carries the run it belongs to (`search_blocks.run`, from search_block_runs; null
 * for rebuilt blocks), and `search_packing.loose_blocks` counts the blocks the packer appended to a term (in a
 * partition) since maintenance last looked at it. Existing appended blocks become runs of one block each.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE SEQUENCE search_block_runs`
  yield* sql`ALTER TABLE search_blocks ADD COLUMN run bigint`
  yield* sql`UPDATE search_blocks SET run = nextval('search_block_runs') WHERE appended`
  yield* sql`ALTER TABLE search_packing ADD COLUMN loose_blocks integer NOT NULL DEFAULT 0`
  yield* sql`UPDATE search_packing SET loose_blocks = appended_blocks`
  yield* sql`DROP INDEX search_packing_overdue`
  // The terms block maintenance has work for, found without a scan of every term (SearchIndexWriter.MAINTENANCE_LOOSE_BLOCKS).
  yield* sql`CREATE INDEX search_packing_loose ON search_packing (organization_id) WHERE loose_blocks >= 8`
})
