import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * How many blocks the packer appended to each term (in a partition) since its last rebuild
 * (`search_packing.appended_blocks`), so block maintenance finds the terms whose appended runs cost search more
 * rows than their rebuilt blocks do (docs/decisions.md "Search under steady ingestion: block maintenance").
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE search_packing ADD COLUMN appended_blocks integer NOT NULL DEFAULT 0`
  yield* sql`
    UPDATE search_packing k SET appended_blocks = b.blocks
    FROM (
      SELECT organization_id, term, knowledge_space_id, classification_rank, count(*)::int AS blocks
      FROM search_blocks WHERE appended GROUP BY 1, 2, 3, 4
    ) b
    WHERE k.organization_id = b.organization_id AND k.term = b.term
      AND k.knowledge_space_id = b.knowledge_space_id AND k.classification_rank = b.classification_rank`
  // The terms block maintenance has work for, found without a scan of every term (SearchIndexWriter.MAINTENANCE_MIN_APPENDED_BLOCKS).
  yield* sql`CREATE INDEX search_packing_overdue ON search_packing (organization_id) WHERE appended_blocks >= greatest(rebuilt_blocks, 4)`
})
