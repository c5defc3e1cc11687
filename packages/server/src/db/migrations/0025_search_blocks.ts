import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Packed postings, so early termination reads a long list as a few rows instead of a row per posting
 * (SearchIndexWriter and SearchIndexReader, docs/decisions.md "Search at scale: packed postings").
 *
 * - `search_blocks`: a term's postings in one partition (space, classification), in impact order, cut into
 *   blocks of up to 256 (LORE_SEARCH_BLOCK_POSTINGS). `packed` is each posting's chunk id (16 bytes) and impact
 *   (float4, big-endian), in that order; `top_impact` its highest impact. Stored PLAIN: a block fits a page,
 *   and neither compression (random ids do not compress) nor out-of-line storage would pay for itself.
 * - `search_pending`: chunks made searchable whose postings are not packed yet. Search reads their postings
 *   from `search_postings` directly; a job packs them soon after ingestion.
 * - `search_packing`: per term and partition, the postings in its blocks at their last rebuild (`rebuilt`) and
 *   now (`in_blocks`, stale entries of chunks taken out of search included), and its blocks (search reads as
 *   many as hold its share at their average fill). The packer rebuilds a term's blocks whole once appends
 *   reach what was rebuilt or stale entries a quarter of it, and otherwise appends. Only the packer writes
 *   it (under its lock), so packing never contends with ingestion for search_terms.
 *
 * Existing postings are packed here, so search is fast from the first start.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE search_blocks (
      organization_id uuid NOT NULL,
      term text NOT NULL,
      knowledge_space_id uuid NOT NULL,
      classification_rank smallint NOT NULL,
      top_impact real NOT NULL,
      postings integer NOT NULL,
      packed bytea NOT NULL
    )`
  yield* sql`ALTER TABLE search_blocks ALTER COLUMN packed SET STORAGE PLAIN`
  yield* sql`
    CREATE INDEX search_blocks_impact_idx ON search_blocks (organization_id, term, top_impact DESC)
      INCLUDE (knowledge_space_id, classification_rank)`
  yield* sql`
    CREATE TABLE search_pending (
      chunk_id uuid PRIMARY KEY,
      organization_id uuid NOT NULL
    )`
  yield* sql`CREATE INDEX search_pending_organization_idx ON search_pending (organization_id)`
  yield* sql`
    CREATE TABLE search_packing (
      organization_id uuid NOT NULL,
      term text NOT NULL,
      knowledge_space_id uuid NOT NULL,
      classification_rank smallint NOT NULL,
      rebuilt integer NOT NULL,
      in_blocks integer NOT NULL,
      blocks integer NOT NULL,
      PRIMARY KEY (organization_id, term, knowledge_space_id, classification_rank)
    )`
  yield* sql`
    INSERT INTO search_blocks (organization_id, term, knowledge_space_id, classification_rank, top_impact, postings, packed)
    SELECT organization_id, term, knowledge_space_id, classification_rank, max(impact), count(*),
      string_agg(uuid_send(chunk_id) || float4send(impact), ''::bytea ORDER BY impact DESC, chunk_id)
    FROM (
      SELECT p.organization_id, p.term, p.knowledge_space_id, p.classification_rank, p.chunk_id, p.impact,
        (row_number() OVER (PARTITION BY p.organization_id, p.term, p.knowledge_space_id, p.classification_rank ORDER BY p.impact DESC, p.chunk_id) - 1) / 256 AS block
      FROM search_postings p
    ) numbered
    GROUP BY organization_id, term, knowledge_space_id, classification_rank, block`
  yield* sql`
    INSERT INTO search_packing (organization_id, term, knowledge_space_id, classification_rank, rebuilt, in_blocks, blocks)
    SELECT organization_id, term, knowledge_space_id, classification_rank, sum(postings), sum(postings), count(*)
    FROM search_blocks GROUP BY organization_id, term, knowledge_space_id, classification_rank`
})
