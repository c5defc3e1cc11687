import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What a caller may learn from knowledge they cannot read (issue 10 points 14, 16, 17):
 * - titles no longer identify one asset per space: the title index becomes non-unique (uploads of one title
 *   are serialized by an advisory lock instead), so an upload never joins an asset its uploader cannot read;
 * - each asset names its current version (the newest READY one, else the newest live one), the one version
 *   whose visibility decides whether a caller sees the asset at all;
 * - BM25 statistics are kept per partition of space and classification, so a caller's scores are computed
 *   from the partitions they may read only.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`DROP INDEX knowledge_assets_title_key`
  yield* sql`CREATE INDEX knowledge_assets_title_idx ON knowledge_assets (knowledge_space_id, lower(title)) WHERE deleted_at IS NULL`

  yield* sql`ALTER TABLE knowledge_assets ADD COLUMN current_source_id uuid REFERENCES sources(id) ON DELETE SET NULL`
  yield* sql`
    UPDATE knowledge_assets ka SET current_source_id = (
      SELECT s.id FROM sources s WHERE s.knowledge_asset_id = ka.id AND s.deleted_at IS NULL
      ORDER BY (s.status = 'READY') DESC, s.version_number DESC LIMIT 1)`
  yield* sql`CREATE INDEX sources_asset_idx ON sources (knowledge_asset_id, version_number DESC) WHERE deleted_at IS NULL`

  yield* sql`DROP TABLE search_terms`
  yield* sql`DROP TABLE search_corpus`
  yield* sql`
    CREATE TABLE search_terms (
      organization_id uuid NOT NULL,
      term text NOT NULL,
      knowledge_space_id uuid NOT NULL,
      classification_rank smallint NOT NULL,
      document_frequency integer NOT NULL,
      PRIMARY KEY (organization_id, term, knowledge_space_id, classification_rank)
    )`
  yield* sql`
    CREATE TABLE search_corpus (
      organization_id uuid NOT NULL,
      knowledge_space_id uuid NOT NULL,
      classification_rank smallint NOT NULL,
      chunk_count bigint NOT NULL DEFAULT 0,
      token_total bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (organization_id, knowledge_space_id, classification_rank)
    )`
  yield* sql`
    INSERT INTO search_terms (organization_id, term, knowledge_space_id, classification_rank, document_frequency)
    SELECT c.organization_id, v.lexeme, c.knowledge_space_id, c.classification_rank, count(*)
    FROM chunks c CROSS JOIN LATERAL unnest(c.search_vector) AS v WHERE c.searchable
    GROUP BY 1, 2, 3, 4`
  yield* sql`
    INSERT INTO search_corpus (organization_id, knowledge_space_id, classification_rank, chunk_count, token_total)
    SELECT organization_id, knowledge_space_id, classification_rank, count(*), coalesce(sum(token_count), 0)
    FROM chunks WHERE searchable GROUP BY 1, 2, 3`
})
