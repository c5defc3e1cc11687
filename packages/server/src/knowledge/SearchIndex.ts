import { SqlClient, type Statement } from "@effect/sql"
import { Effect } from "effect"
import { Database } from "../db/Sql"

export interface IndexedChunk {
  readonly id: string
  readonly ordinal: number
  readonly heading: string | null
  readonly headingPath: ReadonlyArray<string>
  readonly startPage: number | null
  readonly endPage: number | null
  readonly content: string
  readonly embedding: Float32Array | null
}

export interface ChunkScope {
  readonly sourceId: string
  readonly organizationId: string
  readonly knowledgeSpaceId: string
  readonly knowledgeAssetId: string
  readonly classificationRank: number
  readonly aclKeys: ReadonlyArray<string> | null
  readonly title: string
}

export interface RankedChunk {
  readonly id: string
  readonly score: number
}

export interface ChunkDetail {
  readonly id: string
  readonly sourceId: string
  readonly knowledgeAssetId: string
  readonly knowledgeSpaceId: string
  readonly title: string
  readonly classification: string
  readonly mediaType: string
  readonly heading: string | null
  readonly headingPath: ReadonlyArray<string>
  readonly startPage: number | null
  readonly endPage: number | null
  readonly content: string
  readonly ordinal: number
}

/** Okapi BM25 parameters (textbook values; see DESIGN.md "Search ranking"). */
const K1 = 1.2
const B = 0.75
const HEADING_SEPARATOR = "\u001f"

/**
 * SQL for the search index: chunks with their tsvector, BM25 statistics maintained as chunks become
 * searchable or stop being so, lexical (BM25) and vector candidate queries. Callers pass the access
 * predicate (AccessEvaluator.visibleTo on alias c), so filtering happens inside the same query.
 */
export class SearchIndex extends Effect.Service<SearchIndex>()("lore/SearchIndex", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const database = yield* Database

    // Constants as literals: as parameters PostgreSQL would infer `1 - $1` to be an integer.
    const k1 = sql.literal(`${K1}::float8`)
    const k1Plus1 = sql.literal(`${K1 + 1}::float8`)
    const b = sql.literal(`${B}::float8`)
    const vectorLiteral = (v: Float32Array) => (database.vector ? `[${Array.from(v).join(",")}]` : `{${Array.from(v).join(",")}}`)
    const vectorType = sql.literal(database.vector ? "vector" : "real[]")

    /**
     * Moves BM25 statistics and postings by the chunks that just changed searchability (sign +1 or -1).
     * `flipped` returns the chunks' id, search_vector, token_count, knowledge_space_id, classification_rank.
     */
    const adjustStatistics = (flipped: Statement.Fragment, organizationId: string, sign: 1 | -1) =>
      sql`
        WITH flipped AS (${flipped}),
        postings AS (
          ${sign === 1
            ? sql`INSERT INTO search_postings (term, chunk_id, organization_id, knowledge_space_id, classification_rank, frequency, token_count)
                SELECT v.lexeme, f.id, ${organizationId}, f.knowledge_space_id, f.classification_rank,
                  (SELECT sum(CASE w WHEN 'A' THEN 2.0 WHEN 'B' THEN 1.5 ELSE 1.0 END) FROM unnest(v.weights) AS w), f.token_count
                FROM flipped f CROSS JOIN LATERAL unnest(f.search_vector) AS v
                RETURNING 1`
            : sql`DELETE FROM search_postings WHERE chunk_id IN (SELECT id FROM flipped) RETURNING 1`}
        ),
        terms AS (
          INSERT INTO search_terms (organization_id, term, document_frequency)
          SELECT ${organizationId}, v.lexeme, ${sign} * count(*)
          FROM flipped f CROSS JOIN LATERAL unnest(f.search_vector) AS v
          GROUP BY v.lexeme ORDER BY v.lexeme
          ON CONFLICT (organization_id, term) DO UPDATE SET document_frequency = search_terms.document_frequency + EXCLUDED.document_frequency
          RETURNING 1
        )
        INSERT INTO search_corpus (organization_id, chunk_count, token_total)
        SELECT ${organizationId}, ${sign} * count(*), ${sign} * coalesce(sum(token_count), 0) FROM flipped
        ON CONFLICT (organization_id) DO UPDATE SET
          chunk_count = search_corpus.chunk_count + EXCLUDED.chunk_count,
          token_total = search_corpus.token_total + EXCLUDED.token_total`.pipe(Effect.asVoid, Effect.orDie)

    const flippedColumns = sql.literal("id, search_vector, token_count, knowledge_space_id, classification_rank")

    return {
      /** Replaces a source's chunks (idempotent for re-runs of the same ingestion). Not searchable yet. */
      replaceChunks: (scope: ChunkScope, chunks: ReadonlyArray<IndexedChunk>) =>
        Effect.gen(function* () {
          yield* sql`DELETE FROM chunks WHERE source_id = ${scope.sourceId}`
          const batch = 500
          for (let start = 0; start < chunks.length; start += batch) {
            const slice = chunks.slice(start, start + batch)
            yield* sql`
              INSERT INTO chunks (id, source_id, organization_id, knowledge_space_id, knowledge_asset_id, classification_rank, acl_keys,
                ordinal, heading, heading_path, start_page, end_page, content, search_vector, token_count, embedding)
              SELECT r.id, ${scope.sourceId}, ${scope.organizationId}, ${scope.knowledgeSpaceId}, ${scope.knowledgeAssetId},
                ${scope.classificationRank}, ${scope.aclKeys === null ? null : scope.aclKeys}::text[],
                r.ordinal, r.heading, string_to_array(r.heading_path, ${HEADING_SEPARATOR}), r.start_page, r.end_page, r.content,
                r.vector, (SELECT coalesce(sum(array_length(p.positions, 1)), 0) FROM unnest(r.vector) AS p)::int,
                r.embedding::${vectorType}
              FROM (
                SELECT u.*,
                  setweight(to_tsvector('english', ${scope.title}), 'A')
                    || setweight(to_tsvector('english', coalesce(u.heading_path, '')), 'B')
                    || to_tsvector('english', u.content) AS vector
                FROM unnest(
                  ${slice.map((c) => c.id)}::uuid[], ${slice.map((c) => c.ordinal)}::int[], ${slice.map((c) => c.heading)}::text[],
                  ${slice.map((c) => c.headingPath.join(HEADING_SEPARATOR))}::text[], ${slice.map((c) => c.startPage)}::int[],
                  ${slice.map((c) => c.endPage)}::int[], ${slice.map((c) => c.content)}::text[],
                  ${slice.map((c) => (c.embedding ? vectorLiteral(c.embedding) : null))}::text[]
                ) AS u(id, ordinal, heading, heading_path, start_page, end_page, content, embedding)
              ) AS r`
          }
        }).pipe(Effect.orDie),

      /** Makes a source's chunks searchable, and the statistics count them; a no-op when they already are. */
      makeSearchable: (sourceId: string, organizationId: string) =>
        adjustStatistics(
          sql`UPDATE chunks SET searchable = true WHERE source_id = ${sourceId} AND NOT searchable RETURNING ${flippedColumns}`,
          organizationId,
          1
        ),

      /** Takes a source's chunks out of search at once (deletion, superseded versions). Idempotent. */
      makeUnsearchable: (sourceId: string, organizationId: string) =>
        adjustStatistics(
          sql`UPDATE chunks SET searchable = false WHERE source_id = ${sourceId} AND searchable RETURNING ${flippedColumns}`,
          organizationId,
          -1
        ),

      /**
       * BM25 over the query's lexemes with OR semantics, summed over the query terms' postings (an
       * index-only scan narrowed by the caller's spaces and clearance); term frequencies carry the title
       * x2 and heading x1.5 weights. The best `cap` chunks are then checked against the full access
       * predicate (`visible`, which adds the source ACL) and the filters. `cap` null means no cap.
       */
      lexical: (
        organizationId: string,
        query: string,
        postingsVisible: Statement.Fragment,
        visible: Statement.Fragment,
        filters: Statement.Fragment,
        limit: number,
        cap: number | null
      ) =>
        sql<RankedChunk>`
          WITH terms AS (
            SELECT DISTINCT v.lexeme AS term FROM unnest(to_tsvector('english', ${query})) AS v
          ),
          corpus AS (
            SELECT greatest(chunk_count, 1)::float8 AS n, greatest(token_total::float8 / greatest(chunk_count, 1), 1) AS avg_len
            FROM search_corpus WHERE organization_id = ${organizationId}
          ),
          weights AS (
            SELECT st.term, ln(1 + (corpus.n - st.document_frequency + 0.5::float8) / (st.document_frequency + 0.5::float8)) AS idf
            FROM terms JOIN search_terms st ON st.organization_id = ${organizationId} AND st.term = terms.term CROSS JOIN corpus
          ),
          best AS (
            SELECT p.chunk_id, sum(w.idf * (p.frequency * ${k1Plus1}) / (p.frequency + ${k1} * (1::float8 - ${b} + ${b} * p.token_count / corpus.avg_len))) AS score
            FROM weights w
            JOIN search_postings p ON p.organization_id = ${organizationId} AND p.term = w.term AND ${postingsVisible}
            CROSS JOIN corpus
            GROUP BY p.chunk_id
            ORDER BY score DESC, p.chunk_id
            LIMIT ${cap}
          )
          SELECT * FROM (
            SELECT b.chunk_id AS id, b.score::float8 AS score
            FROM best b JOIN chunks c ON c.id = b.chunk_id
            WHERE c.searchable AND ${visible} ${filters}
            ORDER BY b.score DESC, b.chunk_id
            LIMIT ${limit}
          ) ranked
          -- one more row, without an id, counts the candidates, so the caller knows whether the cap bit
          UNION ALL SELECT NULL, count(*)::float8 FROM best`.pipe(
          Effect.map((rows) => ({ ranked: rows.filter((row) => row.id !== null), candidates: rows.find((row) => row.id === null)?.score ?? 0 })),
          Effect.orDie
        ),

      /** Nearest chunks by cosine similarity (vectors are unit length, so similarity is the dot product). */
      nearest: (organizationId: string, embedding: Float32Array, visible: Statement.Fragment, filters: Statement.Fragment, limit: number) =>
        (database.vector
          ? sql<RankedChunk>`
              SELECT c.id, (1 - (c.embedding <=> ${vectorLiteral(embedding)}::vector))::float8 AS score FROM chunks c
              WHERE c.searchable AND c.organization_id = ${organizationId} AND c.embedding IS NOT NULL AND ${visible} ${filters}
              ORDER BY c.embedding <=> ${vectorLiteral(embedding)}::vector LIMIT ${limit}`
          : sql<RankedChunk>`
              SELECT c.id, (SELECT sum(a * b) FROM unnest(c.embedding, ${vectorLiteral(embedding)}::real[]) AS t(a, b))::float8 AS score
              FROM chunks c
              WHERE c.searchable AND c.organization_id = ${organizationId} AND c.embedding IS NOT NULL AND ${visible} ${filters}
              ORDER BY score DESC LIMIT ${limit}`).pipe(Effect.orDie),

      /** Chunks by id with what evidence needs, still filtered by access (a citation may be opened later). */
      details: (organizationId: string, ids: ReadonlyArray<string>, visible: Statement.Fragment) =>
        ids.length === 0
          ? Effect.succeed([] as ReadonlyArray<ChunkDetail>)
          : sql<ChunkDetail>`
              SELECT c.id, c.source_id, c.knowledge_asset_id, c.knowledge_space_id, s.title, s.classification, s.media_type,
                c.heading, c.heading_path, c.start_page, c.end_page, c.content, c.ordinal
              FROM chunks c JOIN sources s ON s.id = c.source_id
              WHERE c.organization_id = ${organizationId} AND c.id = ANY(${ids}::uuid[]) AND s.deleted_at IS NULL AND ${visible}`.pipe(
              Effect.orDie
            ),

      /** The passages around a chunk, for excerpts with context. */
      neighbours: (sourceId: string, ordinal: number) =>
        sql<{ ordinal: number; content: string }>`
          SELECT ordinal, content FROM chunks WHERE source_id = ${sourceId} AND ordinal BETWEEN ${ordinal - 1} AND ${ordinal + 1}
          ORDER BY ordinal`.pipe(Effect.orDie)
    }
  })
}) {}
