import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Database } from "../db/Sql"
import { rows } from "../db/Rows"
import { Classification } from "../domain/Model"
import { packedCandidates } from "./PackedRanking"
import { scoreVectors } from "./VectorScoring"
import { packedPosting } from "./SearchIndexWriter"
import { type AccessPredicate, seenVersion } from "./SourcesRepo"

/**
 * What narrows a search or the catalog beyond access: one space, one classification (by rank), and for
 * search only, a set of sources (versions) such as the evidence bound to an assistant conversation.
 */
export interface KnowledgeFilters {
  readonly knowledgeSpaceId?: string | undefined
  /** Any of these spaces (the MCP search tool's knowledgeSpaceIds); with knowledgeSpaceId, both hold. */
  readonly knowledgeSpaceIds?: ReadonlyArray<string> | undefined
  readonly classificationRank?: number | undefined
  readonly sourceIds?: ReadonlyArray<string> | undefined
}

/**
 * The caller's access, as closures over their read scope: `partitions` is the grant and clearance test for
 * rows keyed by space and classification (postings, BM25 statistics); `visible` is the full predicate (adds
 * the source ACL) for chunks.
 */
export interface SearchAccess {
  readonly partitions: AccessPredicate
  readonly visible: AccessPredicate
}

export const RankedChunk = Schema.Struct({ id: Schema.String, score: Schema.Number })
export type RankedChunk = typeof RankedChunk.Type

/**
 * The lexical statements' last row: no id, and as `score` the number of candidates the cap let through
 * (exhaustive) or the best score a chunk not scored could reach (pruned).
 */
const UnrankedRow = Schema.Struct({ id: Schema.Null, score: Schema.Number })

export const ChunkDetail = Schema.Struct({
  id: Schema.String,
  sourceId: Schema.String,
  knowledgeAssetId: Schema.String,
  knowledgeSpaceId: Schema.String,
  title: Schema.String,
  classification: Classification,
  mediaType: Schema.String,
  heading: Schema.NullOr(Schema.String),
  headingPath: Schema.Array(Schema.String),
  startPage: Schema.NullOr(Schema.Number),
  endPage: Schema.NullOr(Schema.Number),
  content: Schema.String,
  ordinal: Schema.Number
})
export type ChunkDetail = typeof ChunkDetail.Type

/** A row of `blockReading`: a block of a query term (or its pending postings); a null term when too many chunks are pending. */
const BlockRow = Schema.Struct({
  term: Schema.NullOr(Schema.String),
  weight: Schema.NullOr(Schema.Number),
  cut: Schema.NullOr(Schema.Number),
  factor: Schema.NullOr(Schema.Number),
  avgLen: Schema.NullOr(Schema.Number),
  packed: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  /** The term's document frequency in the caller's partitions (for the WholeScoringGate, `wholeAllowed`). */
  df: Schema.NullOr(Schema.Number)
})

/** A candidate of early termination over blocks, as VectorScoring scores it. */
const CandidateVector = Schema.Struct({ id: Schema.String, tokenCount: Schema.Number, vector: Schema.String })

const Neighbour = Schema.Struct({ ordinal: Schema.Number, content: Schema.String })

/**
 * A long question (a pasted paragraph) is reduced to this many of its most informative terms: the highest
 * IDF x query term frequency among the terms the caller's partitions contain. Bounds the postings scored.
 */
export const MAX_QUERY_TERMS = 32

/**
 * The chunk length (in tokens) postings' stored impacts are computed at (migration 0024): about a full chunk
 * of the default chunker. Any value keeps the bound on unread postings valid; a close one keeps it tight.
 */
const IMPACT_REFERENCE_LENGTH = 200

/**
 * When exhaustive scoring runs instead of early termination: when the query's terms have at most
 * `maxPostings` postings, or no more than early termination at `depth` and `candidates` would read
 * (its head postings, `depth` per query term in all, plus each candidate's scoring counted as CANDIDATE_COST postings).
 */
export interface WholeScoringGate {
  readonly maxPostings: number
  readonly depth: number
  readonly candidates: number
}

/**
 * Scoring one candidate exactly (one index scan of its ~120 postings, matched to the query's terms by hash)
 * costs about as much as this many head postings read and summed (EXPLAIN ANALYZE of a 32-term question at
 * 100k chunks: 500 candidates in 26 ms against 49k head postings in 145 ms).
 */
const CANDIDATE_COST = 16

/**
 * How strongly early termination favours informative terms when it shares its reading budget: each term's
 * depth is proportional to its weight to this power (water-filling, so lists shorter than their share are
 * read whole and the rest goes to the others). Measured at 100k chunks against exhaustive BM25's top 10
 * (docs/benchmarks.md): 0 (equal depths) 0.66 for 54-76-word questions, 2: 0.91, 4: 0.94, 6: 0.96; short
 * questions 0.96 at 0 and 4, 0.93 at 6.
 */
const PRIORITY_EXPONENT = 4

/**
 * Early termination reads the postings of chunks not packed yet (search_pending) one index probe per chunk
 * and query term; past this many such chunks (a bulk load the packer has not caught up with) it reads
 * postings rows instead of blocks.
 */
const PENDING_READ_LIMIT = 64

/** Okapi BM25 parameters (textbook values; see DESIGN.md "Search ranking"). */
const K1 = 1.2
const B = 0.75

/**
 * The search index's reads: lexical (BM25, whole or with early termination over packed blocks) and vector
 * candidates, and the chunks they name. Callers pass the access predicates by closure, so filtering happens
 * inside the same query, and statistics come only from partitions the caller may read. What keeps the index
 * (chunks, postings, statistics, blocks) is SearchIndexWriter's.
 */
export class SearchIndexReader extends Effect.Service<SearchIndexReader>()("lore/SearchIndexReader", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const database = yield* Database

    // Constants as literals: as parameters PostgreSQL would infer `1 - $1` to be an integer.
    const k1 = sql.literal(`${K1}::float8`)
    const k1Plus1 = sql.literal(`${K1 + 1}::float8`)
    const b = sql.literal(`${B}::float8`)
    const vectorLiteral = (v: Float32Array) => (database.vector ? `[${Array.from(v).join(",")}]` : `{${Array.from(v).join(",")}}`)

    /**
     * The filters on `chunks` (alias c), or on rows keyed by space and classification: `search_postings` (alias
     * p, which has no source column: by chunk id) or `search_blocks` (never with sources: no chunk column).
     */
    const filtersOn = (alias: string, filters: KnowledgeFilters): Statement.Fragment => {
      const a = sql(alias)
      const sources = filters.sourceIds
      return sql`
        ${filters.knowledgeSpaceId ? sql`AND ${a}.knowledge_space_id = ${filters.knowledgeSpaceId}` : sql``}
        ${filters.knowledgeSpaceIds ? sql`AND ${a}.knowledge_space_id = ANY(${filters.knowledgeSpaceIds}::uuid[])` : sql``}
        ${filters.classificationRank !== undefined ? sql`AND ${a}.classification_rank = ${filters.classificationRank}` : sql``}
        ${sources === undefined ? sql``
          : alias === "c" ? sql`AND c.source_id = ANY(${sources}::uuid[])`
          : sql`AND ${a}.chunk_id IN (SELECT sc.id FROM chunks sc WHERE sc.source_id = ANY(${sources}::uuid[]))`}`
    }

    /**
     * The query's terms and BM25 statistics, as the CTEs `corpus` (chunk count n, average length avg_len) and
     * `weights` (term, its document frequency df, weight = IDF x query term frequency). The question is
     * parsed with lore_search_query ('english' without whole hyphenated words, migration 0023), each lexeme
     * weighted by how often the question repeats it (the textbook's query term frequency), and reduced to its
     * MAX_QUERY_TERMS most informative terms.
     * Document frequencies, chunk count and average length are summed over the partitions the caller may read
     * only, so a score says nothing about documents they cannot see.
     */
    const statisticsOf = (organizationId: string, query: string, access: SearchAccess) => sql`
      terms AS (
        SELECT v.lexeme AS term, coalesce(array_length(v.positions, 1), 1)::float8 AS qtf
        FROM unnest(to_tsvector('lore_search_query', ${query})) AS v
      ),
      corpus AS (
        SELECT greatest(sum(sc.chunk_count), 1)::float8 AS n,
          greatest(sum(sc.token_total)::float8 / greatest(sum(sc.chunk_count), 1), 1) AS avg_len
        FROM search_corpus sc WHERE sc.organization_id = ${organizationId} AND ${access.partitions("sc")}
      ),
      weights AS (
        SELECT st.term, sum(st.document_frequency) AS df,
          terms.qtf * ln(1 + (corpus.n - sum(st.document_frequency) + 0.5::float8) / (sum(st.document_frequency) + 0.5::float8)) AS weight
        FROM terms
        JOIN search_terms st ON st.organization_id = ${organizationId} AND st.term = terms.term AND ${access.partitions("st")}
        CROSS JOIN corpus
        GROUP BY st.term, terms.qtf, corpus.n
        ORDER BY weight DESC, st.term
        LIMIT ${MAX_QUERY_TERMS}
      )`

    /** BM25's term-frequency part of a posting (alias with frequency, token_count), at the caller's average length. */
    const saturation = (alias: string) => {
      const a = sql(alias)
      return sql`(${a}.frequency * ${k1Plus1}) / (${a}.frequency + ${k1} * (1::float8 - ${b} + ${b} * ${a}.token_count / corpus.avg_len))`
    }

    /** The best `limit` of the scored chunks in CTE `scored` (chunk_id, score) that pass the full access predicate and the filters. */
    const visibleRanking = (scored: string, access: SearchAccess, filters: KnowledgeFilters, limit: number) => sql`
      SELECT * FROM (
        SELECT s.chunk_id AS id, s.score::float8 AS score
        FROM ${sql(scored)} s JOIN chunks c ON c.id = s.chunk_id
        WHERE c.searchable AND ${access.visible("c")} ${filtersOn("c", filters)}
        ORDER BY s.score DESC, s.chunk_id
        LIMIT ${limit}
      ) ranked`

    /**
     * Exhaustive BM25: every posting of the query's terms is scored (an index-only scan narrowed by the
     * caller's spaces and clearance); term frequencies carry the title x2 and heading x1.5 weights. The best
     * `cap` chunks are then checked against the full access predicate (which adds the source ACL) and the
     * filters; `cap` null means no cap. With a `gate`, nothing is scored when the terms' postings number more
     * than it allows (a one-time filter: the scan does not start). One more row, without an id, counts the
     * candidates, so the caller knows whether the cap bit; -1 when the gate stopped the scoring.
     */
    const exhaustive = rows(
      "search.lexical",
      Schema.Union(RankedChunk, UnrankedRow),
      (organizationId: string, query: string, access: SearchAccess, filters: KnowledgeFilters, limit: number, cap: number | null, gate: WholeScoringGate | null) => sql`
        WITH ${statisticsOf(organizationId, query, access)},
        postings AS (
          SELECT coalesce(sum(df), 0) <= ${gate === null ? null : sql`greatest(${gate.maxPostings}, least(coalesce(sum(df), 0), ${gate.depth} * count(*)) + ${CANDIDATE_COST * gate.candidates})`} AS whole
          FROM weights
        ),
        best AS (
          SELECT p.chunk_id, sum(w.weight * ${saturation("p")}) AS score
          FROM weights w
          JOIN search_postings p ON p.organization_id = ${organizationId} AND p.term = w.term AND ${access.partitions("p")} ${filtersOn("p", filters)}
          CROSS JOIN corpus
          ${gate === null ? sql`` : sql`WHERE (SELECT whole FROM postings)`}
          GROUP BY p.chunk_id
          ORDER BY score DESC, p.chunk_id
          LIMIT ${cap}
        )
        ${visibleRanking("best", access, filters, limit)}
        UNION ALL
        SELECT NULL, ${gate === null ? sql`count(*)::float8` : sql`CASE WHEN (SELECT whole FROM postings) THEN count(*)::float8 ELSE -1::float8 END`}
        FROM best`
    )

    /**
     * Early termination's reading plan, as CTEs after `statisticsOf`: `depth` postings per query term in all,
     * shared out by water-filling with each term's share proportional to its weight^PRIORITY_EXPONENT (`reads`:
     * a rare term's list is read whole when it is shorter than its share, and what it leaves goes to the
     * others), and `bounds`: how far a posting's true term-frequency part may exceed its impact (impacts were
     * computed at IMPACT_REFERENCE_LENGTH; a shorter average only lowers it).
     */
    const readingPlan = (depth: number) => sql`
        -- Water-filling: a term's share is level x priority. Taken in order of df / priority (the level at which
        -- a list fits whole), the level is the first one that leaves the next list cut: the lists before it
        -- are read whole, and each later term reads level x its priority.
        ordered AS (
          SELECT term, df, weight, priority, row_number() OVER (ORDER BY df / priority, term) AS i
          FROM (SELECT term, df, weight, power(greatest(weight, 1e-6), ${PRIORITY_EXPONENT}::float8) AS priority FROM weights) prioritized
        ),
        levels AS (
          SELECT i, df, priority,
            (${depth}::float8 * count(*) OVER () - coalesce(sum(df) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))
              / sum(priority) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS level
          FROM ordered
        ),
        water AS (SELECT coalesce((array_agg(level ORDER BY i) FILTER (WHERE df / priority >= level))[1], 'Infinity'::float8) AS level FROM levels),
        reads AS (
          SELECT o.term, o.df, o.weight, greatest(1, least(o.df, ceil(water.level * o.priority)))::int AS depth
          FROM ordered o CROSS JOIN water
        ),
        bounds AS (SELECT greatest(1::float8, corpus.avg_len / ${IMPACT_REFERENCE_LENGTH}::float8) AS factor FROM corpus)`

    /** CTE `scored`: each chunk of CTE `best` (chunk_id) scored exactly from all its postings, against CTEs `weights` and `corpus`. */
    const scoredCandidates = sql`
        scored AS (
          SELECT best.chunk_id, sum(w.weight * ${saturation("p")}) AS score
          FROM best
          -- OFFSET 0 keeps the join to the query's terms out of the scan: one index range per candidate, not one probe per term.
          CROSS JOIN LATERAL (SELECT p.term, p.frequency, p.token_count FROM search_postings p WHERE p.chunk_id = best.chunk_id OFFSET 0) p
          JOIN weights w ON w.term = p.term CROSS JOIN corpus
          GROUP BY best.chunk_id
        )`

    /**
     * BM25 with early termination over impact-ordered postings rows (docs/decisions.md, "Search at scale: early
     * termination"), for when packed blocks cannot serve (too many chunks not packed yet, or a filter by
     * source). Reads each term's share (`readingPlan`) highest impact first (index (organization_id, term,
     * impact DESC)), ranks the chunks read by the sum of their impacts times the terms' weights, scores the best
     * `candidates` of them exactly (`scoredCandidates`), then checks those against the full access predicate
     * and filters.
     *
     * The last row, without an id, is the best score a chunk not scored could reach: a posting not read has
     * an impact at most its term's lowest one read (`cut`, the term's weight times that; the impact at its
     * depth is found by a second, offset scan, only for lists not read whole), and a posting's true
     * term-frequency part is at most its impact x `bounds.factor`, never above k1 + 1. So a chunk read but not
     * scored reaches at most the bound of what was read of it (`excess` over the cuts) plus every cut, and a
     * chunk never read the sum of the cuts (`unread`). -1 when every list was read whole and every chunk read
     * was scored. The ranking is exact when its `limit`-th score beats that bound.
     */
    const prunedRows = rows(
      "search.lexical",
      Schema.Union(RankedChunk, UnrankedRow),
      (organizationId: string, query: string, access: SearchAccess, filters: KnowledgeFilters, limit: number, depth: number, candidates: number) => {
        /** The postings of the term in `alias`, through the caller's partitions and the filters (index (organization_id, term, impact DESC)). */
        const impactOrdered = (alias: string) => sql`
          SELECT p.chunk_id, p.impact FROM search_postings p
          WHERE p.organization_id = ${organizationId} AND p.term = ${sql(alias)}.term AND ${access.partitions("p")} ${filtersOn("p", filters)}`
        return sql`
        WITH ${statisticsOf(organizationId, query, access)},
        ${readingPlan(depth)},
        cuts AS (
          SELECT w.term, w.weight, w.depth, bounds.factor,
            CASE WHEN w.depth >= w.df OR last.impact IS NULL THEN 0::float8 ELSE w.weight * least(${k1Plus1}, last.impact * bounds.factor) END AS cut
          FROM reads w CROSS JOIN bounds
          LEFT JOIN LATERAL (${impactOrdered("w")} AND w.depth < w.df ORDER BY p.impact DESC OFFSET w.depth - 1 LIMIT 1) last ON true
        ),
        unread AS (SELECT coalesce(sum(cut), 0) AS bound FROM cuts),
        seen AS (
          SELECT h.chunk_id, sum(t.weight * h.impact) AS partial, sum(t.weight * least(${k1Plus1}, h.impact * t.factor) - t.cut) AS excess
          FROM cuts t
          CROSS JOIN LATERAL (${impactOrdered("t")} ORDER BY p.impact DESC LIMIT t.depth) h
          GROUP BY h.chunk_id
        ),
        best AS (SELECT chunk_id FROM seen ORDER BY partial DESC, chunk_id LIMIT ${candidates}),
        ${scoredCandidates}
        ${visibleRanking("scored", access, filters, limit)}
        UNION ALL
        SELECT NULL, CASE WHEN unread.bound = 0 AND (SELECT count(*) FROM seen) <= ${candidates} THEN -1::float8
          ELSE unread.bound + greatest(0::float8, (SELECT max(seen.excess) FROM seen WHERE seen.chunk_id NOT IN (SELECT chunk_id FROM best)))::float8 END
        FROM unread`
      }
    )

    /**
     * What early termination over packed blocks reads, one row per block: for each query term its weight, `cut`
     * and `factor`, and the blocks of its share. Of a list longer than its share, the rebuilt blocks are read
     * best first, as many as the share's fraction of the list, and the appended blocks whose top impact is above
     * the first rebuilt block left (the threshold): every posting above the threshold is read, and `cut` is the
     * term's weight times it (bounded as in `prunedRows`; 0 when nothing is left). Appended runs thus cost no
     * more of the share than their postings above it, however small their blocks.
     * Postings of chunks not packed yet (`search_pending`) are read whole, one row per term. When more than
     * PENDING_READ_LIMIT chunks are pending, one row with a null term says so and nothing is read.
     */
    const blockReading = rows(
      "search.blocks",
      BlockRow,
      (organizationId: string, query: string, access: SearchAccess, filters: KnowledgeFilters, depth: number, blockPostings: number) => {
        const partitioned = (alias: string) => sql`${access.partitions(alias)} ${filtersOn(alias, filters)}`
        /** A term's rebuilt or appended blocks, best top impact first. */
        const blocksOf = (alias: string, appended: boolean, above: Statement.Fragment = sql``) => sql`
          SELECT b.top_impact, b.packed FROM search_blocks b
          WHERE b.organization_id = ${organizationId} AND b.term = ${sql(alias)}.term AND ${partitioned("b")}
            AND ${appended ? sql`b.appended` : sql`NOT b.appended`} ${above}
          ORDER BY b.top_impact DESC`
        return sql`
        WITH ${statisticsOf(organizationId, query, access)},
        ${readingPlan(depth)},
        -- A list whose share covers it is read whole, every block. A longer one reads the same fraction of its
        -- rebuilt blocks as its share is of the list (search_packing counts them), and the threshold is the top
        -- impact of the first rebuilt block left: appended blocks are read when their top is above it.
        fill AS (
          SELECT w.term, w.weight, w.depth, w.df,
            CASE WHEN w.depth < w.df THEN ceil(w.depth * coalesce(
              (SELECT sum(k.rebuilt_blocks)::float8 / nullif(sum(k.in_blocks), 0) FROM search_packing k
               WHERE k.organization_id = ${organizationId} AND k.term = w.term AND ${partitioned("k")}), 1.0 / ${blockPostings}))::int END AS blocks
          FROM reads w
        ),
        cuts AS (
          SELECT w.term, w.weight, w.df, bounds.factor, w.blocks, next.top_impact AS threshold,
            CASE WHEN next.top_impact IS NULL THEN 0::float8 ELSE w.weight * least(${k1Plus1}, next.top_impact * bounds.factor) END AS cut
          FROM fill w CROSS JOIN bounds
          LEFT JOIN LATERAL (${blocksOf("w", false)} OFFSET w.blocks LIMIT 1) next ON w.blocks IS NOT NULL
        ),
        pending AS (SELECT count(*) <= ${PENDING_READ_LIMIT} AS few FROM (SELECT 1 FROM search_pending WHERE organization_id = ${organizationId} LIMIT ${PENDING_READ_LIMIT + 1}) p)
        SELECT c.term, c.weight, c.cut, c.factor, corpus.avg_len, b.packed, c.df::float8 AS df
        FROM cuts c CROSS JOIN corpus
        LEFT JOIN LATERAL (
          (${blocksOf("c", false)} LIMIT c.blocks)
          UNION ALL
          (${blocksOf("c", true, sql`AND (c.threshold IS NULL OR b.top_impact > c.threshold)`)})
        ) b ON true
        WHERE (SELECT few FROM pending)
        UNION ALL
        SELECT c.term, c.weight, c.cut, c.factor, corpus.avg_len, f.packed, c.df::float8
        FROM cuts c CROSS JOIN corpus
        CROSS JOIN LATERAL (
          SELECT string_agg(${packedPosting(sql, "p")}, ''::bytea) AS packed
          FROM search_pending q JOIN search_postings p ON p.chunk_id = q.chunk_id AND p.term = c.term
          WHERE q.organization_id = ${organizationId} AND ${partitioned("p")}
        ) f
        WHERE (SELECT few FROM pending) AND f.packed IS NOT NULL
        UNION ALL
        SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE NOT (SELECT few FROM pending)`
      }
    )

    /**
     * The chosen candidates that pass the full access predicate and the filters, with what scores them exactly
     * in the process (VectorScoring): their length and their search_vector as text.
     */
    const candidateVectors = rows(
      "search.candidates",
      CandidateVector,
      (ids: ReadonlyArray<string>, access: SearchAccess, filters: KnowledgeFilters) => sql`
        SELECT c.id, c.token_count, c.search_vector::text AS vector FROM chunks c
        WHERE c.id = ANY(${ids}::uuid[]) AND c.searchable AND ${access.visible("c")} ${filtersOn("c", filters)}`
    )

    /**
     * The WholeScoringGate's answer (as `exhaustive` computes it in SQL) from the terms' document frequencies that
     * `blockReading` returns: every term has a row, its blocks or one without.
     */
    const wholeAllowed = (read: ReadonlyArray<typeof BlockRow.Type>, gate: WholeScoringGate) => {
      const frequencies = new Map(read.map((row) => [row.term, row.df ?? 0]))
      let postings = 0
      for (const df of frequencies.values()) postings += df
      return postings <= Math.max(gate.maxPostings, Math.min(postings, gate.depth * frequencies.size) + CANDIDATE_COST * gate.candidates)
    }

    /**
     * Early termination over packed blocks: `blockReading`, the chunks' sums taken in the process
     * (PackedRanking), and the best `candidates` read (`candidateVectors`) and scored exactly in the process
     * (VectorScoring). Undefined when too many chunks wait for the packer; with a `gate`, "whole" (and nothing
     * more read) when it would let the terms be scored whole.
     */
    const prunedBlocks = (organizationId: string, query: string, access: SearchAccess, filters: KnowledgeFilters, limit: number, depth: number, candidates: number, blockPostings: number, gate: WholeScoringGate | null = null) =>
      Effect.gen(function* () {
        const read = yield* blockReading(organizationId, query, access, filters, depth, blockPostings)
        if (read.some((row) => row.term === null)) return undefined
        if (gate !== null && wholeAllowed(read, gate)) return "whole" as const
        const lists = new Map<string, { weight: number; cut: number; factor: number; blocks: Array<Uint8Array> }>()
        for (const row of read) {
          const list = lists.get(row.term!) ?? { weight: row.weight!, cut: row.cut!, factor: row.factor!, blocks: [] }
          lists.set(row.term!, list)
          if (row.packed !== null) list.blocks.push(row.packed)
        }
        const choice = packedCandidates([...lists.values()], candidates, K1 + 1)
        const chunks = choice.ids.length === 0 ? [] : yield* candidateVectors(choice.ids, access, filters)
        const terms = [...lists].map(([term, list]) => ({ term, weight: list.weight }))
        const ranked = scoreVectors(terms, chunks, { k1: K1, b: B, avgLen: read[0]!.avgLen! }).slice(0, limit)
        return { ranked, unscoredBound: choice.unscoredBound }
      })

    /**
     * Whether early termination's ranking is certainly the exhaustive one: `limit` chunks whose last beats
     * anything not scored (a relative margin absorbs the float rounding of sums taken in another order), or
     * every chunk with a query term scored.
     */
    const certainly = (ranked: ReadonlyArray<RankedChunk>, unscoredBound: number, limit: number) => {
      const last = ranked[limit - 1]
      return unscoredBound < 0 || (last !== undefined && last.score > unscoredBound + 1e-9 * Math.max(1, unscoredBound))
    }

    const nearest = rows(
      "search.nearest",
      RankedChunk,
      (organizationId: string, generationId: string, embedding: Float32Array, visible: AccessPredicate, filters: KnowledgeFilters, limit: number) =>
        database.vector
          ? sql`
              SELECT c.id, (1 - (e.embedding <=> ${vectorLiteral(embedding)}::vector))::float8 AS score
              FROM chunk_embeddings e JOIN chunks c ON c.id = e.chunk_id
              WHERE e.generation_id = ${generationId} AND c.searchable AND c.organization_id = ${organizationId} AND ${visible("c")} ${filtersOn("c", filters)}
              ORDER BY e.embedding <=> ${vectorLiteral(embedding)}::vector LIMIT ${limit}`
          : sql`
              SELECT c.id, (SELECT sum(a * b) FROM unnest(e.embedding, ${vectorLiteral(embedding)}::real[]) AS t(a, b))::float8 AS score
              FROM chunk_embeddings e JOIN chunks c ON c.id = e.chunk_id
              WHERE e.generation_id = ${generationId} AND c.searchable AND c.organization_id = ${organizationId} AND ${visible("c")} ${filtersOn("c", filters)}
              ORDER BY score DESC LIMIT ${limit}`
    )

    const details = rows("search.details", ChunkDetail, (organizationId: string, ids: ReadonlyArray<string>, visible: AccessPredicate) => sql`
      SELECT c.id, c.source_id, c.knowledge_asset_id, c.knowledge_space_id, s.title, s.classification, s.media_type,
        c.heading, c.heading_path, c.start_page, c.end_page, c.content, c.ordinal
      FROM chunks c JOIN sources s ON s.id = c.source_id
      WHERE c.organization_id = ${organizationId} AND c.id = ANY(${ids}::uuid[]) AND s.deleted_at IS NULL
        AND ${seenVersion(sql, visible, "c")}`)

    const split = (found: ReadonlyArray<RankedChunk | typeof UnrankedRow.Type>) => {
      const ranked: Array<RankedChunk> = []
      let unranked = 0
      for (const hit of found) {
        if (hit.id === null) unranked = hit.score
        else ranked.push({ id: hit.id, score: hit.score })
      }
      return { ranked, unranked }
    }

    return {
      /**
       * Exhaustive BM25 (see `exhaustive`): the ranking, how many candidates the cap let through, and whether
       * it was skipped because the query's terms have more postings than the `gate` allows.
       */
      lexical: (organizationId: string, query: string, access: SearchAccess, filters: KnowledgeFilters, limit: number, cap: number | null, gate: WholeScoringGate | null = null) =>
        Effect.map(exhaustive(organizationId, query, access, filters, limit, cap, gate), (found) => {
          const { ranked, unranked } = split(found)
          return { ranked, candidates: Math.max(unranked, 0), skipped: unranked < 0 }
        }),

      /**
       * BM25 with early termination: over packed blocks (`prunedBlocks`), or postings rows (`prunedRows`) with a
       * filter by source, when too many chunks wait for the packer, or when `via` asks for rows. The ranking,
       * and whether it is certainly the exhaustive one (`certainly`).
       */
      lexicalPruned: (organizationId: string, query: string, access: SearchAccess, filters: KnowledgeFilters, limit: number, depth: number, candidates: number, blockPostings: number, via: "any" | "rows" = "any") =>
        Effect.gen(function* () {
          const blocks = via === "any" && filters.sourceIds === undefined
            ? yield* prunedBlocks(organizationId, query, access, filters, limit, depth, candidates, blockPostings)
            : undefined
          // Without a gate the block statement never answers "whole".
          const packed = blocks === "whole" ? undefined : blocks
          const { ranked, unscoredBound } = packed ?? (yield* Effect.map(
            prunedRows(organizationId, query, access, filters, limit, depth, candidates),
            (found) => {
              const { ranked, unranked } = split(found)
              return { ranked, unscoredBound: unranked }
            }
          ))
          return { ranked, certain: certainly(ranked, unscoredBound, limit), unscoredBound, via: packed ? "blocks" as const : "rows" as const }
        }),

      /**
       * Early termination over blocks first, for questions whose terms are seldom few enough to score whole:
       * its statement also answers the `gate` (as `lexical` with it would), so such a question costs no gate
       * statement of its own. "whole" when the gate would let the terms be scored whole (the caller scores them
       * so); undefined when blocks cannot serve (a filter by source, too many chunks waiting for the packer).
       */
      blocksFirst: (organizationId: string, query: string, access: SearchAccess, filters: KnowledgeFilters, limit: number, gate: WholeScoringGate, blockPostings: number) =>
        filters.sourceIds !== undefined
          ? Effect.succeed(undefined)
          : Effect.map(prunedBlocks(organizationId, query, access, filters, limit, gate.depth, gate.candidates, blockPostings, gate), (packed) =>
            packed === undefined || packed === "whole" ? packed : { ranked: packed.ranked, certain: certainly(packed.ranked, packed.unscoredBound, limit) }),

      /** Nearest chunks of one embedding generation by cosine similarity (unit vectors: the dot product). */
      nearest,

      /** Chunks by id with what evidence needs, still filtered by access (a citation may be opened later). */
      details: (organizationId: string, ids: ReadonlyArray<string>, visible: AccessPredicate) =>
        ids.length === 0 ? Effect.succeed([] as ReadonlyArray<ChunkDetail>) : details(organizationId, ids, visible),

      /** The passages around a chunk, for excerpts with context. */
      neighbours: rows("search.neighbours", Neighbour, (sourceId: string, ordinal: number) => sql`
        SELECT ordinal, content FROM chunks WHERE source_id = ${sourceId} AND ordinal BETWEEN ${ordinal - 1} AND ${ordinal + 1}
        ORDER BY ordinal`)
    }
  })
}) {}
