import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Blocks the packer appended, told apart from those it rebuilt (docs/decisions.md "Search at scale: packed
 * postings"): early termination reads a term's rebuilt blocks by count, the share of its list its share of
 * postings is, and its appended blocks by threshold, those whose top impact is above the first rebuilt block
 * it did not read. `search_packing.rebuilt_blocks` counts the rebuilt ones.
 *
 * Blocks appended before this migration cannot be told apart, so the terms that have any (postings in blocks
 * differ from those rebuilt) are rebuilt here from their postings, chunks waiting for the packer left out.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE search_blocks ADD COLUMN appended boolean NOT NULL DEFAULT false`
  yield* sql`ALTER TABLE search_packing ADD COLUMN rebuilt_blocks integer NOT NULL DEFAULT 0`
  // Search no longer reads a term's count of all its blocks (appended ones are read by threshold).
  yield* sql`ALTER TABLE search_packing DROP COLUMN blocks`
  yield* sql`
    DELETE FROM search_blocks b USING search_packing a
    WHERE a.in_blocks <> a.rebuilt AND b.organization_id = a.organization_id AND b.term = a.term
      AND b.knowledge_space_id = a.knowledge_space_id AND b.classification_rank = a.classification_rank`
  yield* sql`
    INSERT INTO search_blocks (organization_id, term, knowledge_space_id, classification_rank, top_impact, postings, packed)
    SELECT organization_id, term, knowledge_space_id, classification_rank, max(impact), count(*),
      string_agg(uuid_send(chunk_id) || float4send(impact), ''::bytea ORDER BY impact DESC, chunk_id)
    FROM (
      SELECT p.organization_id, p.term, p.knowledge_space_id, p.classification_rank, p.chunk_id, p.impact,
        (row_number() OVER (PARTITION BY p.organization_id, p.term, p.knowledge_space_id, p.classification_rank ORDER BY p.impact DESC, p.chunk_id) - 1) / 256 AS block
      FROM search_postings p JOIN search_packing a ON a.in_blocks <> a.rebuilt AND p.organization_id = a.organization_id AND p.term = a.term
        AND p.knowledge_space_id = a.knowledge_space_id AND p.classification_rank = a.classification_rank
      WHERE NOT EXISTS (SELECT 1 FROM search_pending q WHERE q.chunk_id = p.chunk_id)
    ) numbered
    GROUP BY organization_id, term, knowledge_space_id, classification_rank, block`
  yield* sql`
    UPDATE search_packing k SET rebuilt = b.postings, in_blocks = b.postings, rebuilt_blocks = b.blocks
    FROM (
      SELECT organization_id, term, knowledge_space_id, classification_rank, sum(postings)::int AS postings, count(*)::int AS blocks
      FROM search_blocks GROUP BY 1, 2, 3, 4
    ) b
    WHERE k.organization_id = b.organization_id AND k.term = b.term
      AND k.knowledge_space_id = b.knowledge_space_id AND k.classification_rank = b.classification_rank`
  // A term whose every posting was stale has no blocks left: the packer starts it afresh.
  yield* sql`
    DELETE FROM search_packing k
    WHERE NOT EXISTS (
      SELECT 1 FROM search_blocks b WHERE b.organization_id = k.organization_id AND b.term = k.term
        AND b.knowledge_space_id = k.knowledge_space_id AND b.classification_rank = k.classification_rank)`
})
