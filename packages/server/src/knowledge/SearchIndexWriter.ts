import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { exec, row, rows } from "../db/Rows"
import { appendedBlockSize, mergePlan, mergeRuns } from "./RunMerging"

export interface IndexedChunk {
  readonly id: string
  readonly ordinal: number
  readonly heading: string | null
  readonly headingPath: ReadonlyArray<string>
  readonly startPage: number | null
  readonly endPage: number | null
  readonly content: string
}

export interface ChunkScope {
  readonly sourceId: string
  readonly organizationId: string
  readonly knowledgeSpaceId: string
  readonly knowledgeAssetId: string
  readonly classificationRank: number
  readonly aclKeys: ReadonlyArray<string> | null
  /** Key sets a reader must each satisfy too (connector intersections); null when none. */
  readonly aclAll?: ReadonlyArray<string> | null | undefined
  readonly title: string
}

/**
 * pg_class's row estimate of chunks (-1 before the first ANALYZE) beside the searchable chunks counted, and the search
 * tables holding more dead rows than autovacuum would leave (SEARCH_TABLES).
 */
const StatisticsState = Schema.Struct({ analyzed: Schema.Number, searchable: Schema.Number, churned: Schema.Array(Schema.String) })

/**
 * What ingestion, the packer and block maintenance write, and search reads: vacuumed and analyzed together. The
 * packer and maintenance replace rows of the blocks, packing, terms and pending tables all the time; where nothing
 * vacuums them (a PostgreSQL run with autovacuum off; PGlite has none) search scanned their dead rows and planned
 * on statistics of a tenth of the corpus.
 */
const SEARCH_TABLES = ["chunks", "search_postings", "search_terms", "search_corpus", "search_blocks", "search_packing", "search_pending", "chunk_embeddings"]

/** Dead rows past which a search table is vacuumed again: autovacuum's default rule with a larger floor. */
const DEAD_ROWS_FLOOR = 1_000
const DEAD_ROWS_SHARE = 0.2

/** Below this many searchable chunks, tables are small enough that statistics do not matter. */
const STATISTICS_MIN_CHUNKS = 100

/**
 * Block maintenance looks at a term (in a partition) once the packer appended this many blocks to it since it last
 * did: it then merges its appended runs (RunMerging). Must match the partial index search_packing_loose (migration 0042).
 */
export const MAINTENANCE_LOOSE_BLOCKS = 8

/** Terms block maintenance considers per run (see `dueTerms` for which first). */
const MAINTENANCE_TERMS = 500

/** Postings a merge writes per statement (20 bytes each, sent as one bytea). */
const MERGE_WRITE_POSTINGS = 50_000

/** Chunks the packer takes per statement (about 120 postings each). */
const PACK_BATCH = 2000

const HEADING_SEPARATOR = "\u001f"

/** A posting as packed in search_blocks (PackedRanking.POSTING_BYTES): the chunk id, then the impact. */
export const packedPosting = (sql: SqlClient.SqlClient, alias: string | null) => {
  const column = (name: string) => (alias === null ? sql(name) : sql`${sql(alias)}.${sql(name)}`)
  return sql`uuid_send(${column("chunk_id")}) || float4send(${column("impact")})`
}

/**
 * The search index's writes: chunks with their tsvector, BM25 statistics per partition (space and
 * classification) and postings maintained as chunks become searchable or stop being so, the packer that keeps
 * search_blocks current, and the planner statistics of what ingestion bulk-loads. Reads are SearchIndexReader's.
 */
export class SearchIndexWriter extends Effect.Service<SearchIndexWriter>()("lore/SearchIndexWriter", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Moves BM25 statistics and postings by the chunks that just changed searchability (sign +1 or -1), in
     * each chunk's partition (space, classification rank). `flipped` returns the chunks' id, search_vector,
     * token_count, knowledge_space_id, classification_rank. Term rows are upserted in key order so concurrent
     * adjustments lock them in the same order.
     */
    const adjustStatistics = exec((flipped: Statement.Fragment, organizationId: string, sign: 1 | -1) => sql`
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
        INSERT INTO search_terms (organization_id, term, knowledge_space_id, classification_rank, document_frequency)
        SELECT ${organizationId}, v.lexeme, f.knowledge_space_id, f.classification_rank, ${sign} * count(*)
        FROM flipped f CROSS JOIN LATERAL unnest(f.search_vector) AS v
        GROUP BY v.lexeme, f.knowledge_space_id, f.classification_rank
        ORDER BY v.lexeme, f.knowledge_space_id, f.classification_rank
        ON CONFLICT (organization_id, term, knowledge_space_id, classification_rank)
          DO UPDATE SET document_frequency = search_terms.document_frequency + EXCLUDED.document_frequency
        RETURNING 1
      ),
      -- Postings made searchable wait for the packer; those taken out leave their blocks' entries stale (search
      -- skips them; the packer's next rebuild of the term drops them).
      pending AS (
        ${sign === 1
          ? sql`INSERT INTO search_pending (chunk_id, organization_id) SELECT id, ${organizationId} FROM flipped ON CONFLICT DO NOTHING RETURNING 1`
          : sql`DELETE FROM search_pending WHERE chunk_id IN (SELECT id FROM flipped) RETURNING 1`}
      )
      INSERT INTO search_corpus (organization_id, knowledge_space_id, classification_rank, chunk_count, token_total)
      SELECT ${organizationId}, knowledge_space_id, classification_rank, ${sign} * count(*), ${sign} * coalesce(sum(token_count), 0)
      FROM flipped GROUP BY knowledge_space_id, classification_rank
      ON CONFLICT (organization_id, knowledge_space_id, classification_rank) DO UPDATE SET
        chunk_count = search_corpus.chunk_count + EXCLUDED.chunk_count,
        token_total = search_corpus.token_total + EXCLUDED.token_total`)

    /** A search_packing row (alias) with work for block maintenance: the partial index's predicate. */
    const overdue = (alias: string) => sql`${sql(alias)}.loose_blocks >= ${sql.literal(String(MAINTENANCE_LOOSE_BLOCKS))}`

    const flippedColumns = sql.literal("id, search_vector, token_count, knowledge_space_id, classification_rank")

    const deleteChunks = exec((sourceId: string) => sql`DELETE FROM chunks WHERE source_id = ${sourceId}`)
    const insertChunks = exec((scope: ChunkScope, slice: ReadonlyArray<IndexedChunk>) => sql`
      INSERT INTO chunks (id, source_id, organization_id, knowledge_space_id, knowledge_asset_id, classification_rank, acl_keys, acl_all,
        ordinal, heading, heading_path, start_page, end_page, content, search_vector, token_count)
      SELECT r.id, ${scope.sourceId}, ${scope.organizationId}, ${scope.knowledgeSpaceId}, ${scope.knowledgeAssetId},
        ${scope.classificationRank}, ${scope.aclKeys === null ? null : scope.aclKeys}::text[], ${(scope.aclAll ?? null) as Array<string> | null}::text[],
        r.ordinal, r.heading, string_to_array(r.heading_path, ${HEADING_SEPARATOR}), r.start_page, r.end_page, r.content,
        r.vector, (SELECT coalesce(sum(array_length(p.positions, 1)), 0) FROM unnest(r.vector) AS p)::int
      FROM (
        SELECT u.*,
          setweight(to_tsvector('english', ${scope.title}), 'A')
            || setweight(to_tsvector('english', coalesce(u.heading_path, '')), 'B')
            || to_tsvector('english', u.content) AS vector
        FROM unnest(
          ${slice.map((c) => c.id)}::uuid[], ${slice.map((c) => c.ordinal)}::int[], ${slice.map((c) => c.heading)}::text[],
          ${slice.map((c) => c.headingPath.join(HEADING_SEPARATOR))}::text[], ${slice.map((c) => c.startPage)}::int[],
          ${slice.map((c) => c.endPage)}::int[], ${slice.map((c) => c.content)}::text[]
        ) AS u(id, ordinal, heading, heading_path, start_page, end_page, content)
      ) AS r`)

    /**
     * Inserts the postings of `source` (term, knowledge_space_id, classification_rank, chunk_id, impact, appended,
     * block_size, run) as blocks, each term's in a partition cut in impact order every `block_size` postings.
     */
    const insertBlocks = (organizationId: string, source: Statement.Fragment) => sql`
      INSERT INTO search_blocks (organization_id, term, knowledge_space_id, classification_rank, top_impact, postings, packed, appended, run)
      SELECT ${organizationId}, term, knowledge_space_id, classification_rank, max(impact), count(*),
        string_agg(${packedPosting(sql, null)}, ''::bytea ORDER BY impact DESC, chunk_id), appended, run
      FROM (
        SELECT s.*, (row_number() OVER (PARTITION BY term, knowledge_space_id, classification_rank ORDER BY impact DESC, chunk_id) - 1) / block_size AS block
        FROM (${source}) s
      ) numbered
      GROUP BY term, knowledge_space_id, classification_rank, appended, run, block`

    /**
     * CTEs for rebuilding or appending blocks: `dropped` deletes the blocks of the terms (in a partition) in CTE
     * `terms` (those whose `rebuild` holds, with `onlyRebuilt`), `inserted` writes CTE `source` as blocks, and
     * `counted` sums what was inserted per term: its postings and blocks.
     */
    const blocksReplaced = (organizationId: string, terms: string, onlyRebuilt: boolean) => sql`
        dropped AS (
          DELETE FROM search_blocks b USING ${sql(terms)} t
          WHERE ${onlyRebuilt ? sql`t.rebuild AND` : sql``} b.organization_id = ${organizationId} AND b.term = t.term
            AND b.knowledge_space_id = t.knowledge_space_id AND b.classification_rank = t.classification_rank
          RETURNING 1
        ),
        inserted AS (
          ${insertBlocks(organizationId, sql`SELECT * FROM source`)}
          RETURNING term, knowledge_space_id, classification_rank, postings
        ),
        counted AS (
          SELECT term, knowledge_space_id, classification_rank, sum(postings)::int AS postings, count(*)::int AS blocks
          FROM inserted GROUP BY 1, 2, 3
        )`

    /**
     * Takes up to `batch` chunks waiting in `search_pending` and packs their postings into `search_blocks`,
     * in one statement. A term's blocks (in a partition) are rebuilt whole from its postings (dropping stale
     * entries; chunks still waiting are left to their turn) when what was appended since the last rebuild
     * reaches what was rebuilt (so a posting is rewritten about twice as a list grows), or the stale entries
     * (entries past the term's document frequency) a quarter of it; otherwise the new postings are appended
     * as blocks of their own (`appended`), each spanning about the share of its run that a rebuilt block spans
     * of the rebuilt list, and no less than an eighth of a block: so a run's block that straddles a reading's
     * threshold holds few postings below it (see `blockReading`). Bookkeeping is in `search_packing`, which only the packer
     * writes, so it never waits on ingestion's locks (waiting chunks locked by another transaction are
     * skipped). Returns the chunks taken. Callers hold the organization's packing lock.
     */
    const packPending = row(
      "search.pack",
      Schema.Struct({ chunks: Schema.Number }),
      (organizationId: string, blockPostings: number, batch: number) => sql`
        WITH run AS (SELECT nextval('search_block_runs') AS id),
        taken AS (
          DELETE FROM search_pending WHERE chunk_id IN (
            SELECT chunk_id FROM search_pending WHERE organization_id = ${organizationId} ORDER BY chunk_id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
          RETURNING chunk_id
        ),
        fresh AS (
          SELECT p.term, p.knowledge_space_id, p.classification_rank, p.chunk_id, p.impact
          FROM taken JOIN search_postings p ON p.chunk_id = taken.chunk_id
        ),
        touched AS (
          SELECT f.term, f.knowledge_space_id, f.classification_rank, count(*)::int AS added,
            coalesce(max(k.rebuilt), 0) AS rebuilt, coalesce(max(k.in_blocks), 0) AS in_blocks,
            coalesce(max(k.rebuilt_blocks), 0) AS rebuilt_blocks, coalesce(max(k.appended_blocks), 0) AS appended_blocks,
            coalesce(max(k.loose_blocks), 0) AS loose_blocks,
            least(${blockPostings}, greatest(ceil(${blockPostings} / 8.0), ceil(${blockPostings}::float8 * count(*) / greatest(max(k.rebuilt), 1))))::int AS appended_block,
            max(k.rebuilt) IS NULL
              OR max(k.in_blocks) + count(*) - max(k.rebuilt) >= max(k.rebuilt)
              OR (max(k.in_blocks) + count(*) - coalesce(max(st.document_frequency), 0)) * 4 >= greatest(max(st.document_frequency), 1) AS rebuild
          FROM fresh f
          LEFT JOIN search_packing k ON k.organization_id = ${organizationId} AND k.term = f.term
            AND k.knowledge_space_id = f.knowledge_space_id AND k.classification_rank = f.classification_rank
          LEFT JOIN search_terms st ON st.organization_id = ${organizationId} AND st.term = f.term
            AND st.knowledge_space_id = f.knowledge_space_id AND st.classification_rank = f.classification_rank
          GROUP BY f.term, f.knowledge_space_id, f.classification_rank
        ),
        source AS (
          SELECT p.term, p.knowledge_space_id, p.classification_rank, p.chunk_id, p.impact, false AS appended, ${blockPostings}::int AS block_size, NULL::bigint AS run
          FROM touched t JOIN search_postings p ON p.organization_id = ${organizationId} AND p.term = t.term
            AND p.knowledge_space_id = t.knowledge_space_id AND p.classification_rank = t.classification_rank
          -- One snapshot for the whole statement: the chunks taken above still look pending here.
          WHERE t.rebuild AND (p.chunk_id IN (SELECT chunk_id FROM taken) OR NOT EXISTS (SELECT 1 FROM search_pending q WHERE q.chunk_id = p.chunk_id))
          UNION ALL
          SELECT f.term, f.knowledge_space_id, f.classification_rank, f.chunk_id, f.impact, true, t.appended_block, run.id
          FROM fresh f JOIN touched t USING (term, knowledge_space_id, classification_rank) CROSS JOIN run
          WHERE NOT t.rebuild
        ),
        ${blocksReplaced(organizationId, "touched", true)},
        packing AS (
          INSERT INTO search_packing (organization_id, term, knowledge_space_id, classification_rank, rebuilt, in_blocks, rebuilt_blocks, appended_blocks, loose_blocks)
          SELECT ${organizationId}, t.term, t.knowledge_space_id, t.classification_rank,
            CASE WHEN t.rebuild THEN coalesce(c.postings, 0) ELSE t.rebuilt END,
            CASE WHEN t.rebuild THEN 0 ELSE t.in_blocks END + coalesce(c.postings, 0),
            CASE WHEN t.rebuild THEN coalesce(c.blocks, 0) ELSE t.rebuilt_blocks END,
            CASE WHEN t.rebuild THEN 0 ELSE t.appended_blocks + coalesce(c.blocks, 0) END,
            CASE WHEN t.rebuild THEN 0 ELSE t.loose_blocks + coalesce(c.blocks, 0) END
          FROM touched t LEFT JOIN counted c USING (term, knowledge_space_id, classification_rank)
          ON CONFLICT (organization_id, term, knowledge_space_id, classification_rank)
            DO UPDATE SET rebuilt = EXCLUDED.rebuilt, in_blocks = EXCLUDED.in_blocks, rebuilt_blocks = EXCLUDED.rebuilt_blocks,
              appended_blocks = EXCLUDED.appended_blocks, loose_blocks = EXCLUDED.loose_blocks
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM taken)::int AS chunks`)

    /**
     * The terms (in a partition) block maintenance has work for, and how many there are: first those whose loose blocks
     * are the most rows for the postings a merge rewrites (rare and middling terms, which search reads whole, before a
     * common term's long appended runs).
     */
    const dueTerms = rows(
      "search.maintain.due",
      Schema.Struct({ term: Schema.String, knowledgeSpaceId: Schema.String, classificationRank: Schema.Number, rebuilt: Schema.Number, due: Schema.Number }),
      (organizationId: string) => sql`
        SELECT k.term, k.knowledge_space_id, k.classification_rank, k.rebuilt, count(*) OVER ()::int AS due
        FROM search_packing k WHERE k.organization_id = ${organizationId} AND ${overdue("k")}
        ORDER BY k.loose_blocks::float8 / greatest(k.in_blocks - k.rebuilt, 1) DESC, k.term, k.knowledge_space_id, k.classification_rank
        LIMIT ${MAINTENANCE_TERMS}`
    )

    type TermKey = { readonly term: string; readonly knowledgeSpaceId: string; readonly classificationRank: number }
    const keyOf = (key: TermKey) => `${key.classificationRank} ${key.knowledgeSpaceId} ${key.term}`
    /** Terms (in a partition) as parallel arrays, for `unnest`. */
    const termArrays = (keys: ReadonlyArray<TermKey>) => ({
      terms: keys.map((key) => key.term), spaces: keys.map((key) => key.knowledgeSpaceId), ranks: keys.map((key) => key.classificationRank)
    })

    /** The appended runs of some terms (in a partition): each run's id and postings. */
    const runSizes = rows(
      "search.maintain.runs",
      Schema.Struct({ term: Schema.String, knowledgeSpaceId: Schema.String, classificationRank: Schema.Number, run: Schema.String, postings: Schema.Number }),
      (organizationId: string, keys: ReadonlyArray<TermKey>) => {
        const { terms, spaces, ranks } = termArrays(keys)
        return sql`
          SELECT b.term, b.knowledge_space_id, b.classification_rank, b.run::text AS run, sum(b.postings)::int AS postings
          FROM unnest(${terms}::text[], ${spaces}::uuid[], ${ranks}::int[]) AS t(term, space, rank)
          JOIN search_blocks b ON b.organization_id = ${organizationId} AND b.term = t.term AND b.knowledge_space_id = t.space
            AND b.classification_rank = t.rank AND b.appended
          GROUP BY 1, 2, 3, 4`
      }
    )

    /**
     * Runs' blocks, each run's in its order (cut in impact order, ties by chunk id, which `packed` starts with). A run id
     * is shared by the terms one pack appended to: a run is its term (in a partition) and its id.
     */
    const runBlocks = rows(
      "search.maintain.blocks",
      Schema.Struct({ term: Schema.String, knowledgeSpaceId: Schema.String, classificationRank: Schema.Number, run: Schema.String, packed: Schema.Uint8ArrayFromSelf }),
      (organizationId: string, runs: ReadonlyArray<TermKey & { readonly run: string }>) => {
        const { terms, spaces, ranks } = termArrays(runs)
        return sql`
          SELECT b.term, b.knowledge_space_id, b.classification_rank, b.run::text AS run, b.packed
          FROM unnest(${terms}::text[], ${spaces}::uuid[], ${ranks}::int[], ${runs.map((r) => r.run)}::bigint[]) AS t(term, space, rank, run)
          JOIN search_blocks b ON b.organization_id = ${organizationId} AND b.term = t.term AND b.knowledge_space_id = t.space
            AND b.classification_rank = t.rank AND b.run = t.run
          ORDER BY b.term, b.knowledge_space_id, b.classification_rank, b.run, b.top_impact DESC, b.packed`
      }
    )

    const deleteRuns = exec((organizationId: string, runs: ReadonlyArray<TermKey & { readonly run: string }>) => {
      const { terms, spaces, ranks } = termArrays(runs)
      return sql`
        DELETE FROM search_blocks b
        USING unnest(${terms}::text[], ${spaces}::uuid[], ${ranks}::int[], ${runs.map((r) => r.run)}::bigint[]) AS t(term, space, rank, run)
        WHERE b.organization_id = ${organizationId} AND b.term = t.term AND b.knowledge_space_id = t.space
          AND b.classification_rank = t.rank AND b.run = t.run`
    })

    /** Merged runs' blocks, their bytes sent as one bytea and cut by offset. */
    const insertMerged = exec((organizationId: string, blocks: ReadonlyArray<TermKey & { readonly run: string; readonly topImpact: number; readonly postings: number; readonly packed: Uint8Array }>) => {
      const { terms, spaces, ranks } = termArrays(blocks)
      const bytes = Buffer.concat(blocks.map((block) => block.packed))
      const offsets: Array<number> = []
      let offset = 0
      for (const block of blocks) {
        offsets.push(offset)
        offset += block.packed.byteLength
      }
      return sql`
        INSERT INTO search_blocks (organization_id, term, knowledge_space_id, classification_rank, top_impact, postings, packed, appended, run)
        SELECT ${organizationId}, t.term, t.space, t.rank, t.top, t.postings, substring(${bytes}::bytea FROM t.at + 1 FOR t.length), true, t.run
        FROM unnest(${terms}::text[], ${spaces}::uuid[], ${ranks}::int[], ${blocks.map((b) => b.topImpact)}::real[],
          ${blocks.map((b) => b.postings)}::int[], ${offsets}::int[], ${blocks.map((b) => b.packed.byteLength)}::int[], ${blocks.map((b) => b.run)}::bigint[])
          AS t(term, space, rank, top, postings, at, length, run)`
    })

    /** Maintenance looked at these terms: their loose blocks start again from 0, and their appended blocks are recounted. */
    const maintained = exec((organizationId: string, keys: ReadonlyArray<TermKey>) => {
      const { terms, spaces, ranks } = termArrays(keys)
      return sql`
        UPDATE search_packing k SET loose_blocks = 0, appended_blocks = (
          SELECT count(*) FROM search_blocks b WHERE b.organization_id = k.organization_id AND b.term = k.term
            AND b.knowledge_space_id = k.knowledge_space_id AND b.classification_rank = k.classification_rank AND b.appended)
        FROM unnest(${terms}::text[], ${spaces}::uuid[], ${ranks}::int[]) AS t(term, space, rank)
        WHERE k.organization_id = ${organizationId} AND k.term = t.term AND k.knowledge_space_id = t.space AND k.classification_rank = t.rank`
    })

    const newRunIds = rows("search.maintain.run-ids", Schema.Struct({ id: Schema.String }), (count: number) =>
      sql`SELECT nextval('search_block_runs')::text AS id FROM generate_series(1, ${count})`)

    /**
     * Block maintenance: merges the appended runs of the terms due (loose blocks), size-tiered (RunMerging), until
     * about `budget` postings were merged (at least one term's). Returns the terms looked at, the postings merged
     * and how many terms were due. Callers hold the organization's packing lock.
     */
    const mergeDue = (organizationId: string, blockPostings: number, budget: number) =>
      Effect.gen(function* () {
        const due = yield* dueTerms(organizationId)
        if (due.length === 0) return { terms: 0, postings: 0, due: 0 }
        const sizes = yield* runSizes(organizationId, due)
        const runsOf = new Map<string, Array<{ run: string; postings: number }>>()
        for (const size of sizes) {
          const runs = runsOf.get(keyOf(size))
          if (runs) runs.push(size)
          else runsOf.set(keyOf(size), [size])
        }
        const looked: Array<TermKey> = []
        const merges: Array<{ key: (typeof due)[number]; runs: ReadonlyArray<string>; postings: number }> = []
        let postings = 0
        for (const key of due) {
          if (looked.length > 0 && postings >= budget) break
          looked.push(key)
          const runs = runsOf.get(keyOf(key)) ?? []
          const sizeOf = new Map(runs.map((run) => [run.run, run.postings]))
          for (const group of mergePlan(runs)) {
            const merged = group.reduce((sum, run) => sum + sizeOf.get(run)!, 0)
            merges.push({ key, runs: group, postings: merged })
            postings += merged
          }
        }
        if (merges.length > 0) {
          // The merged runs' blocks read and deleted in one statement each; the new runs written a batch at a time.
          const runs = merges.flatMap((merge) => merge.runs.map((run) => ({ ...merge.key, run })))
          const bytes = new Map<string, Array<Uint8Array>>()
          for (const block of yield* runBlocks(organizationId, runs)) {
            const key = `${keyOf(block)} ${block.run}`
            const blocks = bytes.get(key)
            if (blocks) blocks.push(block.packed)
            else bytes.set(key, [block.packed])
          }
          yield* deleteRuns(organizationId, runs)
          const ids = yield* newRunIds(merges.length)
          let pending: Array<Parameters<typeof insertMerged>[1][number]> = []
          let pendingPostings = 0
          for (const [index, merge] of merges.entries()) {
            const runBytes = merge.runs.map((run) => Buffer.concat(bytes.get(`${keyOf(merge.key)} ${run}`) ?? []))
            const merged = mergeRuns(runBytes, appendedBlockSize(blockPostings, merge.postings, merge.key.rebuilt))
            pending.push(...merged.map((block) => ({ ...merge.key, run: ids[index]!.id, ...block })))
            pendingPostings += merge.postings
            if (pendingPostings >= MERGE_WRITE_POSTINGS || index === merges.length - 1) {
              yield* insertMerged(organizationId, pending)
              pending = []
              pendingPostings = 0
            }
          }
        }
        yield* maintained(organizationId, looked)
        return { terms: looked.length, postings, due: due[0]!.due }
      })

    /** Whether any term of an organization is due for block maintenance (partial index search_packing_loose). */
    const anyOverdue = row("search.overdue", Schema.Struct({ due: Schema.Boolean }), (organizationId: string) => sql`
      SELECT EXISTS (SELECT 1 FROM search_packing k WHERE k.organization_id = ${organizationId} AND ${overdue("k")}) AS due`)

    /** How many of an organization's chunks wait for the packer, beside how many are searchable. */
    const pendingBacklog = row("search.backlog", Schema.Struct({ pending: Schema.Number, searchable: Schema.Number }), (organizationId: string) => sql`
      SELECT (SELECT count(*) FROM search_pending WHERE organization_id = ${organizationId})::int AS pending,
        (SELECT coalesce(sum(chunk_count), 0) FROM search_corpus WHERE organization_id = ${organizationId})::int AS searchable`)

    /**
     * The organization's packing lock: one packer (or repack) at a time, across processes. JIT is off for the
     * rest of the transaction: the planner's estimates for rebuilding a common term's blocks pass JIT's cost
     * threshold, and compiling the statement (~0.9 s measured) cost more than running it.
     */
    const packingLock = (organizationId: string) =>
      Effect.zipRight(
        sql`SELECT pg_advisory_xact_lock(hashtext(${`lore.search-pack:${organizationId}`}))`,
        sql`SET LOCAL jit = off`
      )

    /** The packing lock if no other packer holds it (then true, and JIT off as above), else false at once. */
    const packingLockIfFree = (organizationId: string) =>
      Effect.flatMap(
        sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(hashtext(${`lore.search-pack:${organizationId}`})) AS locked`,
        ([found]) => (found?.locked === true ? Effect.as(sql`SET LOCAL jit = off`, true) : Effect.succeed(false))
      )

    /**
     * The packer's loop (see `packPending` below). With `wait` false, a transaction that finds another packer
     * holding the lock stops: `busy`, and what was packed until then.
     */
    const packAll = (organizationId: string, blockPostings: number, wait: boolean) =>
      Effect.gen(function* () {
        // A bulk load (a quarter or more of the chunks waiting): one rebuild of everything costs less than
        // appending batch after batch to lists that keep outgrowing their last rebuild.
        const backlog = yield* pendingBacklog(organizationId)
        if (backlog !== undefined && backlog.pending >= PACK_BATCH && backlog.pending * 4 >= backlog.searchable) {
          yield* repack(organizationId, blockPostings, true)
          return { packed: backlog.pending, busy: false }
        }
        let packed = 0
        for (;;) {
          const taken = yield* Effect.flatMap(wait ? Effect.as(packingLock(organizationId), true) : packingLockIfFree(organizationId), (locked) =>
            locked ? Effect.map(packPending(organizationId, blockPostings, PACK_BATCH), (found) => found?.chunks ?? 0) : Effect.succeed(undefined)
          ).pipe(sql.withTransaction)
          if (taken === undefined) return { packed, busy: true }
          packed += taken
          if (taken < PACK_BATCH) return { packed, busy: false }
        }
      })

    /**
     * Every block of an organization rebuilt from its postings, in one transaction: with `takePending`, the
     * chunks waiting for the packer are taken in the same statement (one snapshot: what it takes, it packs);
     * without, they are left waiting and out of the blocks.
     */
    const repack = (organizationId: string, blockPostings: number, takePending: boolean) =>
      sql.withTransaction(Effect.gen(function* () {
        yield* packingLock(organizationId)
        yield* sql`DELETE FROM search_blocks WHERE organization_id = ${organizationId}`
        yield* sql`
          WITH taken AS (
            ${takePending ? sql`DELETE FROM search_pending WHERE organization_id = ${organizationId} RETURNING chunk_id` : sql`SELECT NULL::uuid AS chunk_id WHERE false`}
          )
          ${insertBlocks(organizationId, sql`
            SELECT p.term, p.knowledge_space_id, p.classification_rank, p.chunk_id, p.impact, false AS appended, ${blockPostings}::int AS block_size, NULL::bigint AS run
            FROM search_postings p
            WHERE p.organization_id = ${organizationId}
              AND (p.chunk_id IN (SELECT chunk_id FROM taken) OR NOT EXISTS (SELECT 1 FROM search_pending q WHERE q.chunk_id = p.chunk_id))`)}`
        yield* sql`DELETE FROM search_packing WHERE organization_id = ${organizationId}`
        yield* sql`
          INSERT INTO search_packing (organization_id, term, knowledge_space_id, classification_rank, rebuilt, in_blocks, rebuilt_blocks)
          SELECT organization_id, term, knowledge_space_id, classification_rank, sum(postings), sum(postings), count(*)
          FROM search_blocks WHERE organization_id = ${organizationId}
          GROUP BY organization_id, term, knowledge_space_id, classification_rank`
      }))

    const statistics = row("search.statistics", StatisticsState, () => sql`
      SELECT (SELECT reltuples FROM pg_class WHERE oid = 'chunks'::regclass)::float8 AS analyzed,
        (SELECT coalesce(sum(chunk_count), 0) FROM search_corpus)::float8 AS searchable,
        array(SELECT relname::text FROM pg_stat_user_tables
          WHERE relid = ANY(${SEARCH_TABLES}::text[]::regclass[]) AND n_dead_tup > ${DEAD_ROWS_FLOOR}::float8 + ${DEAD_ROWS_SHARE}::float8 * n_live_tup) AS churned`)

    /**
     * The search tables due a VACUUM (ANALYZE): all of them once searchable chunks outgrew the analyzed row count by
     * a tenth (or were never analyzed), else those churn left with dead rows; none below STATISTICS_MIN_CHUNKS.
     * Churn alone vacuums only the churned tables (the packer and maintenance rewrite terms, packing, pending and
     * blocks all day), not postings and chunks, which mostly grow and make a whole refresh long.
     */
    const tablesDue = Effect.map(statistics(), (state): ReadonlyArray<string> => {
      if (state === undefined || state.searchable < STATISTICS_MIN_CHUNKS) return []
      if (state.searchable > Math.max(state.analyzed, 0) * 1.1) return SEARCH_TABLES
      return SEARCH_TABLES.filter((table) => state.churned.includes(table))
    })

    return {
      /** Whether a search table is due a VACUUM (ANALYZE): see tablesDue. */
      statisticsStale: Effect.map(tablesDue, (tables) => tables.length > 0),

      /**
       * VACUUM (ANALYZE) of the search tables due (tablesDue), answering which: planner statistics for the BM25
       * statement, a current visibility map so its postings scan stays index-only, and no dead rows to scan.
       * Autovacuum may be off and PGlite has none (DESIGN.md, known traps). Runs outside any transaction.
       */
      refreshStatistics: Effect.flatMap(tablesDue, (tables) =>
        tables.length === 0 ? Effect.succeed(tables) : Effect.as(sql.unsafe(`VACUUM (ANALYZE) ${tables.join(", ")}`), tables)).pipe(Effect.orDie),

      /** Replaces a source's chunks (idempotent for re-runs of the same ingestion). Not searchable yet. */
      replaceChunks: (scope: ChunkScope, chunks: ReadonlyArray<IndexedChunk>) =>
        Effect.gen(function* () {
          yield* deleteChunks(scope.sourceId)
          const batch = 500
          for (let start = 0; start < chunks.length; start += batch) yield* insertChunks(scope, chunks.slice(start, start + batch))
        }),

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
       * Packs the postings of every chunk waiting for it in an organization (PACK_BATCH chunks per transaction,
       * one packer per organization at a time). Returns the chunks packed.
       */
      packPending: (organizationId: string, blockPostings: number) =>
        Effect.map(packAll(organizationId, blockPostings, true), (done) => done.packed),

      /**
       * The packer job's way: as `packPending`, but never waiting for another packer (it would hold a job worker,
       * and under steady ingestion the one-a-second packer jobs then took every worker from ingestion). `busy`
       * when another packer held the lock: the job then queues itself for the next window.
       */
      packPendingUnlessBusy: (organizationId: string, blockPostings: number) => packAll(organizationId, blockPostings, false),

      /**
       * Block maintenance (a job after packing, docs/decisions.md "Search under steady ingestion: merged runs"): merges
       * the appended runs of the terms due (`mergeDue`), about `budget` postings, in one transaction under the packing
       * lock. Like the packer job it never waits for the lock (`busy`, nothing done): maintenance jobs of several
       * windows waiting on each other took every job worker, and the packer's queue grew behind them (a 100k steady upload).
       */
      maintainBlocks: (organizationId: string, blockPostings: number, budget: number) =>
        packingLockIfFree(organizationId).pipe(
          Effect.flatMap((locked) =>
            locked
              ? Effect.map(mergeDue(organizationId, blockPostings, budget), (done) => ({ ...done, busy: false }))
              : Effect.succeed({ terms: 0, postings: 0, due: 0, busy: true })
          ),
          sql.withTransaction
        ),

      /** Whether block maintenance has work in an organization. */
      maintenanceDue: (organizationId: string) => Effect.map(anyOverdue(organizationId), (found) => found?.due === true),

      /**
       * Rebuilds every block of an organization from its postings: after postings were loaded other than
       * through makeSearchable (the bench's synthesized corpus), or to drop every stale entry at once.
       */
      repack
    }
  })
}) {}
