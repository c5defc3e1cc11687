import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Impact-ordered postings, so search can stop reading a common term's postings once the top results are
 * certain (SearchIndexReader.lexical, docs/decisions.md "Search at scale: early termination").
 *
 * `impact` is BM25's term-frequency part computed with a fixed reference chunk length of 200 tokens:
 * f * (k1 + 1) / (f + k1 * (1 - b + b * length / 200)). It orders a term's postings and bounds the ones not
 * read; scores themselves are still computed exactly, with the caller's average length, from `frequency` and
 * `token_count`. A generated column, so every write path fills it the same way.
 *
 * The two indexes are replaced rather than added to (writes stay at two index entries per posting):
 * - (organization_id, term, impact DESC, chunk_id), covering: a term's postings best first, and still the
 *   whole list when a search scores every posting;
 * - (chunk_id, term), covering: a candidate chunk's frequency for each query term (and deletes by chunk).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE search_postings ADD COLUMN impact real NOT NULL
      GENERATED ALWAYS AS (frequency * 2.2 / (frequency + 1.2 * (0.25 + 0.75 * token_count / 200.0))) STORED`
  yield* sql`DROP INDEX search_postings_term_idx`
  yield* sql`DROP INDEX search_postings_chunk_idx`
  yield* sql`
    CREATE INDEX search_postings_impact_idx ON search_postings (organization_id, term, impact DESC, chunk_id)
      INCLUDE (knowledge_space_id, classification_rank, frequency, token_count)`
  yield* sql`CREATE INDEX search_postings_chunk_term_idx ON search_postings (chunk_id, term) INCLUDE (frequency, token_count)`
})
