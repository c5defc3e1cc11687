import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * An inverted index for BM25: one row per (searchable chunk, lexeme) with the weighted term frequency,
 * the chunk's length and what the access filter needs. Scoring then reads only the query terms'
 * postings from the index (no heap, no TOAST, no unnest of every candidate's tsvector): measured 57x
 * faster at 100k chunks (docs/benchmarks.md).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE search_postings (
      term text NOT NULL,
      chunk_id uuid NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL,
      knowledge_space_id uuid NOT NULL,
      classification_rank smallint NOT NULL,
      frequency real NOT NULL,
      token_count integer NOT NULL
    )`
  yield* sql`
    CREATE INDEX search_postings_term_idx ON search_postings (organization_id, term, chunk_id)
      INCLUDE (knowledge_space_id, classification_rank, frequency, token_count)`
  yield* sql`CREATE INDEX search_postings_chunk_idx ON search_postings (chunk_id)`
  yield* sql`
    INSERT INTO search_postings
    SELECT v.lexeme, c.id, c.organization_id, c.knowledge_space_id, c.classification_rank,
      (SELECT sum(CASE w WHEN 'A' THEN 2.0 WHEN 'B' THEN 1.5 ELSE 1.0 END) FROM unnest(v.weights) AS w), c.token_count
    FROM chunks c CROSS JOIN LATERAL unnest(c.search_vector) AS v WHERE c.searchable`
})
