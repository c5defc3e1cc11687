/**
 * Knowledge search at 10k and 100k chunks (1M on PostgreSQL with BENCH_SEARCH_SIZES=10000,100000,1000000),
 * embedded PGlite and PostgreSQL: ingestion throughput (pages/s) and GET /api/knowledge/search latency
 * (p50/p95) beside the latency of the bare BM25 statements it runs, and beside exhaustive BM25 (latency, and
 * the share of its top 10 that search returns: early termination's tolerance).
 * Prints tables; never asserts on timing.
 *
 * Per database (a throwaway PostgreSQL database, or a fresh embedded data dir):
 *  1. Lore runs alone in a child process (bench/lib/me-servers.ts "lore" mode, as bench/me.ts does). The
 *     first ~10k chunks are uploaded as plain-text documents through POST /api/sources (4 uploads in flight),
 *     so the real parse -> chunk -> index -> statistics path and the job queue run; pages/s = the sources'
 *     pageCount sum / wall time from the first upload until every source is READY.
 *  2. Search: ~50 natural-language questions over HTTP, a warm-up pass, then timed passes sequentially and
 *     with BENCH_SEARCH_CONCURRENCY in flight.
 *  3. Lore stops. The bench records the SQL that KnowledgeSearch.search sends for each question (Lore's own
 *     services, @effect/sql statement transformer: text + parameters as the driver gets them) and replays
 *     the BM25 query (and, for the breakdown, every statement of the request) with `pg` on the same
 *     database, same passes. Embedded: the bench opens the data dir the way Lore does (PGlite + pgvector
 *     behind PGLiteSocketServer, one connection) since PGlite serves one client at a time.
 *  4. Up to 100k chunks: the remaining documents go through Lore's ingestion code without HTTP and queue
 *     (parser, chunker, SourcesRepo, SearchIndexWriter.replaceChunks/makeSearchable: the same SQL), then 2-3 again.
 *  5. On PostgreSQL, when p95 at the largest corpus is 50 ms or more: EXPLAIN (ANALYZE, BUFFERS) of a typical
 *     question and measured SQL/index alternatives (bench/lib/search-plans.ts), on the bench database only.
 *
 * Settings (env): BENCH_SEARCH_DATABASES=embedded,postgresql  BENCH_SEARCH_SIZES=10000,100000
 * BENCH_SEARCH_EMBEDDED_SIZES=10000 (embedded only; default BENCH_SEARCH_SIZES if set, else 10000)
 * BENCH_SEARCH_VACUUM=manual|lore (manual: VACUUM ANALYZE after each PostgreSQL load; lore: as Lore leaves it)
 * BENCH_SEARCH_QUESTIONS=natural,short,long (which question shapes to measure; default natural; bench/lib/corpus.ts QUESTION_SETS)
 * BENCH_SEARCH_DIRECT_CHUNKS=100000 (PostgreSQL sizes past it, e.g. 1000000, are reached by SQL synthesis: mixed halves of existing chunks)
 * BENCH_SEARCH_HTTP_CHUNKS=10000  BENCH_SEARCH_ROUNDS=3  BENCH_SEARCH_CONCURRENCY=4  BENCH_SEARCH_MAX_SECONDS=25 (time cap of each timed run)
 * BENCH_SEARCH_STATE=steady: search as a steady stream of uploads leaves it (PostgreSQL): every document goes through
 * POST /api/sources one after another (BENCH_SEARCH_UPLOADS in flight, default 2) with Lore's own jobs (packer, statistics,
 * block maintenance) and nothing done by hand (no VACUUM, no rebuild); each size is measured once the packer
 * and block maintenance have caught up, and the largest size again after every block is rebuilt whole (the "rebuilt" rows), on the
 * same corpus (BENCH_SEARCH_REBUILD=0: not, so a kept database stays as steady ingestion left it).
 * Peers are skipped in this state. BENCH_SEARCH_MAINTAINED=1 (with BENCH_SEARCH_REUSE of a database steady ingestion left before block
 * maintenance existed) measures it also as maintenance leaves it once caught up, between the steady and rebuilt rows.
 * BENCH_SEARCH_KEEP=1 keeps the PostgreSQL database (for investigating plans on it afterwards).
 * BENCH_SEARCH_REUSE=<url of a kept database> measures it again as it is (sizes it already holds are not
 * ingested again; its first access token is replaced by the bench's), e.g. after a change to search.
 * DATABASE_URL (admin URL for creating the throwaway database; default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { documents, QUESTION_SETS, type QuestionSet, type SyntheticDocument } from "./lib/corpus"
import { type Ingested, ingestOverHttp, type Lore, startLore, takeChunks } from "./lib/search-ingest"
import { httpGetter, type Latency, measureLatency } from "./lib/latency"
import { table } from "./lib/load"
import { type CapturedSearch, type CapturedStatement, loreSql, openEmbedded, postgresTarget, type Target } from "./lib/lore-sql"
import { investigate } from "./lib/search-plans"
import { measurePeers, type PeerLatency } from "./lib/search-peers"
import { synthesizeChunks } from "./lib/search-synthesize"
import { createThrowawayDatabase, DEFAULT_DATABASE_URL, withPgClient } from "./lib/pg"
import { hashSecret } from "../packages/server/src/platform/SecretBox"

export const description = "knowledge search at 10k/100k(/1M) chunks: ingestion pages/s, search p50/p95 vs its bare BM25 SQL and exhaustive BM25, embedded and PostgreSQL"

const SEED = 20240611
const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const sizes = (list: string) => list.split(",").map(Number).sort((a, b) => a - b)
const settings = {
  databases: (process.env.BENCH_SEARCH_DATABASES ?? "embedded,postgresql").split(",").map((s) => s.trim()),
  sizes: sizes(process.env.BENCH_SEARCH_SIZES ?? "10000,100000"),
  /**
   * Embedded stops at 10k by default: with 100k the embedded run takes ~17 min on 2 cores (4 min of direct
   * ingestion, searches of ~10 s each), well past the ~10 minutes a database gets.
   */
  embeddedSizes: sizes(process.env.BENCH_SEARCH_EMBEDDED_SIZES ?? process.env.BENCH_SEARCH_SIZES ?? "10000"),
  httpChunks: process.env.BENCH_SEARCH_STATE === "steady" ? Infinity : number("BENCH_SEARCH_HTTP_CHUNKS", 10_000),
  /** Which shapes of the questions to measure (bench/lib/corpus.ts QUESTION_SETS), each at every size. */
  questionSets: (process.env.BENCH_SEARCH_QUESTIONS ?? "natural").split(",").map((s) => s.trim()).filter((s): s is QuestionSet => s in QUESTION_SETS),
  /** Past this many chunks, PostgreSQL corpora grow by SQL synthesis (bench/lib/search-synthesize.ts), not ingestion. */
  directChunks: number("BENCH_SEARCH_DIRECT_CHUNKS", 100_000),
  uploadConcurrency: process.env.BENCH_SEARCH_STATE === "steady" ? number("BENCH_SEARCH_UPLOADS", 2) : 4,
  rounds: number("BENCH_SEARCH_ROUNDS", 3),
  concurrency: number("BENCH_SEARCH_CONCURRENCY", 4),
  maxSeconds: number("BENCH_SEARCH_MAX_SECONDS", 25),
  /** "0": never investigate; "always": even when the target is met; otherwise when p95 >= 50 ms. */
  investigate: process.env.BENCH_SEARCH_INVESTIGATE ?? "auto",
  /**
   * "manual": VACUUM ANALYZE on PostgreSQL after each load (what autovacuum does shortly after); "lore": measure
   * as Lore leaves the tables (its own statistics refresh after HTTP ingestion; the direct loads get none).
   */
  vacuum: process.env.BENCH_SEARCH_VACUUM === "lore" || process.env.BENCH_SEARCH_STATE === "steady" ? "lore" as const : "manual" as const,
  /** "steady": every document over HTTP, Lore's jobs only; the largest size measured again after a rebuild of every block. */
  steady: process.env.BENCH_SEARCH_STATE === "steady",
  /** A database kept by an earlier run (BENCH_SEARCH_KEEP=1), measured again without ingesting what it holds. */
  reuse: process.env.BENCH_SEARCH_REUSE,
  /** Runs with N in flight (and the all-statements replay) are skipped when one search takes longer than this. */
  slowMs: 1000
}

interface SizeResult {
  readonly target: number
  /** How the blocks were when measured: as the load left them (and the bench's manual steps), steady ingestion, or rebuilt whole after it. */
  readonly state: "loaded" | "steady" | "maintained" | "rebuilt"
  /** Which question set these figures are for. */
  readonly questions: QuestionSet
  /** Totals in the database at measurement time. */
  readonly chunks: number
  readonly pages: number
  /** What was ingested to reach this size, and how. */
  readonly ingested: ReadonlyArray<Ingested>
  /** With Lore's CPU per search (µs, its process, warm-up pass included). */
  readonly lore: Latency & { readonly cpuMicros: number }
  readonly loreConcurrent: Latency
  readonly bare: Latency
  readonly bareConcurrent: Latency
  readonly bareAll: Latency
  /** Exhaustive BM25 (no early termination) replayed the same way, and the share of its top 10 that search returned. */
  readonly exhaustive: Latency
  readonly overlap: { readonly mean: number; readonly min: number; readonly whole: number }
  readonly statementsPerSearch: number
  readonly meanCandidates: number
  readonly meanHits: number
  /** ts_rank (OR-ed lexemes) on the same database and SQLite FTS5 in process, same passages and questions. */
  readonly peers: PeerLatency
}

interface DatabaseResult {
  readonly database: string
  readonly sizes: ReadonlyArray<SizeResult>
  readonly notes: ReadonlyArray<string>
}

const CANDIDATES_SQL = `
  SELECT count(*)::int AS n FROM chunks c
  WHERE c.searchable AND c.search_vector @@ (
    SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | '))
    FROM (SELECT DISTINCT v.lexeme FROM unnest(to_tsvector('english', $1)) AS v) AS t)`

/** Waits (up to 10 minutes) until no chunk waits for Lore's packer; returns the seconds waited. */
/**
 * Seconds until Lore's index jobs caught up after the last READY: the packer (no chunk pending), then block
 * maintenance and the statistics refresh (none of their jobs queued or running). Lore stops after this, so
 * maintenance left to do would otherwise run during the measurement.
 */
const indexJobsCaughtUp = async (databaseUrl: string) => {
  const started = performance.now()
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1)
  const waitFor = async (query: string) => {
    while (performance.now() - started < 900_000) {
      const { rows } = await withPgClient(databaseUrl, (c) => c.query<{ n: number }>(query))
      if (rows[0]!.n === 0) return
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
  await waitFor("SELECT count(*)::int AS n FROM search_pending")
  const packer = seconds()
  await waitFor(`SELECT count(*)::int AS n FROM jobs WHERE status IN ('QUEUED', 'RUNNING')
    AND kind IN ('knowledge.pack-search-postings', 'knowledge.maintain-search-blocks', 'knowledge.refresh-search-statistics')`)
  return { packer, maintenance: seconds() }
}

/** A run not made because single searches were already too slow for it to fit the time budget. */
const skipped: Latency = { count: 0, p50Ms: NaN, p95Ms: NaN, meanMs: NaN, perSecond: NaN, failures: 0 }

/**
 * A pg pool on the target. Embedded PGlite serves one connection: the one the bench's Lore services just
 * closed may not be gone yet, so the first connection is retried; idle connections are kept, never closed.
 */
const openPool = async (target: Target, max: number) => {
  for (let attempt = 1; ; attempt++) {
    const pool = new pg.Pool({ ...target.pg, max, idleTimeoutMillis: 0 })
    pool.on("error", () => {})
    try {
      await pool.query("SELECT 1")
      return pool
    } catch (error) {
      await pool.end().catch(() => {})
      if (attempt >= 40) throw error
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
}

/** GET /api/knowledge/search for every question: sequential, then with N in flight. */
const measureLore = async (lore: Lore, questions: ReadonlyArray<string>) => {
  const client = httpGetter(settings.concurrency)
  try {
    let calls = 0
    const operations = questions.map((q) => async () => {
      calls++
      const response = await client.get(`${lore.child.url}/api/knowledge/search?q=${encodeURIComponent(q)}`, lore.headers)
      return response.status === 200
    })
    // Lore's CPU per search beside its latency: on a shared machine the latency moves with the neighbours, the CPU less.
    const cpuBefore = await lore.child.cpuMicros()
    const latency = await measureLatency(operations, { rounds: settings.rounds, concurrency: 1, maxSeconds: settings.maxSeconds })
    const sequential = { ...latency, cpuMicros: ((await lore.child.cpuMicros()) - cpuBefore) / calls }
    const concurrent = sequential.p50Ms < settings.slowMs
      ? await measureLatency(operations, { rounds: settings.rounds, concurrency: settings.concurrency, maxSeconds: settings.maxSeconds })
      : skipped
    return { sequential, concurrent }
  } finally {
    client.close()
  }
}

/** Lore's statements for every question, recorded through its own services (Lore itself is stopped). */
const captureAll = async (target: Target, token: string, questions: ReadonlyArray<string>) => {
  const services = await loreSql(target)
  try {
    const captured: CapturedSearch[] = []
    for (const q of questions) captured.push(await services.capture(token, q))
    return captured
  } finally {
    await services.close()
  }
}

/** The recorded SQL replayed with pg on the same database: BM25 alone, then the whole request's statements. */
const measureBare = async (pool: pg.Pool, captured: ReadonlyArray<CapturedSearch>, questions: ReadonlyArray<string>) => {
  const run = (s: { text: string; params: ReadonlyArray<unknown> }) => pool.query(s.text, s.params as unknown[])
  const lexical = captured.map((c) => async () => {
    for (const statement of c.ranking) await run(statement)
    return true
  })
  const all = captured.map((c) => async () => {
    for (const statement of c.all) await run(statement)
    return true
  })
  const options = { rounds: settings.rounds, maxSeconds: settings.maxSeconds }
  const bare = await measureLatency(lexical, { ...options, concurrency: 1 })
  const slow = bare.p50Ms >= settings.slowMs
  const bareConcurrent = slow ? skipped : await measureLatency(lexical, { ...options, concurrency: settings.concurrency })
  const bareAll = slow ? skipped : await measureLatency(all, { ...options, maxSeconds: options.maxSeconds / 2, warmupSeconds: 0, concurrency: 1 })
  // Exhaustive BM25 beside it: its latency, and how much of its top 10 early termination returns.
  const exhaustive = slow ? skipped : await measureLatency(captured.map((c) => async () => (await run(c.exhaustive), true)), { ...options, maxSeconds: options.maxSeconds / 2, concurrency: 1 })
  const overlaps: number[] = []
  for (const c of captured) {
    const top = async (s: CapturedStatement) => (await run(s)).rows.filter((r: { id: string | null }) => r.id !== null).slice(0, 10).map((r: { id: string }) => r.id)
    const wanted = new Set(await top(c.exhaustive))
    const got = c.top.slice(0, 10)
    overlaps.push(wanted.size === 0 ? 1 : got.filter((id) => wanted.has(id)).length / wanted.size)
  }
  const overlap = { mean: overlaps.reduce((a, b) => a + b, 0) / overlaps.length, min: Math.min(...overlaps), whole: overlaps.filter((o) => o === 1).length / overlaps.length }
  // How many chunks each question's OR query matches (what the BM25 query scores), for as many questions as fit in 10 s.
  const counted: number[] = []
  const deadline = performance.now() + 10_000
  for (const q of questions) {
    if (counted.length > 0 && performance.now() > deadline) break
    counted.push((await pool.query<{ n: number }>(CANDIDATES_SQL, [q])).rows[0]!.n)
  }
  return { bare, bareConcurrent, bareAll, exhaustive, overlap, meanCandidates: counted.reduce((a, b) => a + b, 0) / counted.length }
}

const benchDatabase = async (database: "embedded" | "postgresql", databaseUrl: string | undefined): Promise<DatabaseResult> => {
  const notes: string[] = []
  const label = database === "embedded" ? "embedded PGlite" : "PostgreSQL"
  const token = `lore_pat_bench${randomBytes(24).toString("base64url")}`
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-"))
  const corpus = documents({ seed: SEED })
  const openTarget = () => (databaseUrl ? Promise.resolve(postgresTarget(databaseUrl)) : openEmbedded(dataDir))
  const sizes: SizeResult[] = []
  const targets = database === "embedded" ? settings.embeddedSizes : settings.sizes
  // The Lore child currently running, so a failure mid-run does not leave it behind.
  let running: Lore | undefined
  const start = async () => (running = await startLore(dataDir, token, databaseUrl))
  const stop = async () => {
    const lore = running
    running = undefined
    await lore?.child.stop()
  }
  try {
    const log = (message: string) => console.log(`  [${label}] ${message}`)
    let totals = { chunks: 0, pages: 0 }
    if (databaseUrl && databaseUrl === settings.reuse) {
      totals = await withPgClient(databaseUrl, async (c) => {
        // Lore's bootstrap token of that run is unknown here: its hash becomes this run's.
        await c.query("UPDATE access_tokens SET token_hash = $1 WHERE id = (SELECT id FROM access_tokens ORDER BY created_at LIMIT 1)", [hashSecret(token)])
        const held = await c.query<{ chunks: number; pages: number }>(
          "SELECT (SELECT coalesce(sum(chunk_count), 0) FROM search_corpus)::int AS chunks, (SELECT coalesce(sum(page_count), 0) FROM sources)::int AS pages")
        return held.rows[0]!
      })
      log(`reusing ${totals.chunks} chunks, ${totals.pages} pages (BENCH_SEARCH_REUSE)`)
    }
    let lore = await start()
    const me = await lore.api<{ userId: string; organizationId: string }>("/api/me")
    const [space] = await lore.api<Array<{ id: string }>>("/api/knowledge-spaces/upload-targets")
    const owner = { organizationId: me.organizationId, knowledgeSpaceId: space!.id, userId: me.userId }

    /** Records and replays the SQL, measures the peers and GET /api/knowledge/search at the corpus as it is now; Lore runs after it. */
    const measureState = async (target: Target, size: number, totals: { chunks: number; pages: number }, ingested: ReadonlyArray<Ingested>, state: SizeResult["state"], isLargest: boolean) => {
      const sets = settings.questionSets.map((name) => ({ name, questions: QUESTION_SETS[name] }))
      log(`recording Lore's SQL for each question (${settings.questionSets.join(", ")}), then replaying it with pg ...`)
      // Recorded before the pool opens: Lore's services hold PGlite's one connection while they record.
      const recordings: Array<ReadonlyArray<CapturedSearch>> = []
      for (const set of sets) recordings.push(await captureAll(target, token, set.questions))
      const pool = await openPool(target, target.kind === "embedded" ? 1 : settings.concurrency)
      const measured: Array<{ captured: ReadonlyArray<CapturedSearch>; bare: Awaited<ReturnType<typeof measureBare>> }> = []
      for (const [i, set] of sets.entries()) measured.push({ captured: recordings[i]!, bare: await measureBare(pool, recordings[i]!, set.questions) })
      const peers = settings.steady
        ? sets.map(() => ({ tsRank: skipped, fts5: skipped }))
        : (log("measuring the peers: ts_rank on the same database, SQLite FTS5 in process ..."),
          await measurePeers(pool, sets.map((set) => set.questions), { rounds: settings.rounds, maxSeconds: settings.maxSeconds }))
      let plans: string | undefined
      await pool.end()
      await target.close()
      log(`measuring GET /api/knowledge/search (${state}) ...`)
      await stop()
      lore = await start()
      for (const [i, set] of sets.entries()) {
        const searched = await measureLore(lore, set.questions)
        const { captured, bare } = measured[i]!
        sizes.push({
          target: size,
          state,
          questions: set.name,
          chunks: totals.chunks,
          pages: totals.pages,
          ingested: i === 0 ? ingested : [],
          lore: searched.sequential,
          loreConcurrent: searched.concurrent,
          ...bare,
          peers: peers[i]!,
          statementsPerSearch: captured.reduce((n, c) => n + c.all.length, 0) / captured.length,
          meanHits: captured.reduce((n, c) => n + c.hits, 0) / captured.length
        })
      }
      const result = sizes[sizes.length - sets.length]!
      const captured = measured[0]!.captured
      if (database === "postgresql" && isLargest && settings.investigate !== "0" && (result.lore.p95Ms >= 50 || settings.investigate === "always")) {
        await stop()
        target = await openTarget()
        log(`p95 ${ms(result.lore.p95Ms)} ms: investigating the BM25 statement (EXPLAIN, prototypes on this database) ...`)
        const investigationPool = await openPool(target, 1)
        try {
          plans = await investigate(investigationPool, captured, { rounds: settings.rounds, maxSeconds: settings.maxSeconds, before: result.bare })
        } finally {
          await investigationPool.end()
          await target.close()
        }
        lore = await start()
      }
      if (plans) notes.push(plans)
      for (const [what, figures] of [["Lore", result.lore], ["Lore concurrent", result.loreConcurrent], ["bare", result.bare]] as const) {
        if (figures.failures > 0) notes.push(`${label}, ${size}: ${figures.failures} of ${figures.count} ${what} requests failed; the figures are suspect.`)
      }
      return target
    }

    for (const size of targets) {
      const ingested: Ingested[] = []
      const viaHttp = Math.min(size, settings.httpChunks) - totals.chunks
      if (viaHttp > 0) {
        const docs = await takeChunks(corpus, viaHttp)
        log(`uploading ${docs.length} documents through POST /api/sources ...`)
        const result = await ingestOverHttp(lore, owner.knowledgeSpaceId, docs, settings.uploadConcurrency)
        ingested.push({ ...result, pages: result.pages - totals.pages, chunks: result.chunks - totals.chunks })
        totals = { chunks: result.chunks, pages: result.pages }
        log(`${result.chunks} chunks, ${result.pages} pages READY in ${result.seconds.toFixed(1)} s`)
        if (settings.steady && databaseUrl) {
          const caughtUp = await indexJobsCaughtUp(databaseUrl)
          log(`the packer caught up ${caughtUp.packer} s after the last READY, block maintenance and statistics ${caughtUp.maintenance} s after it`)
        }
      }
      // Lore stops while the bench loads directly (embedded: PGlite serves one client at a time).
      await stop()
      let target = await openTarget()
      const directSize = Math.min(size, Math.max(settings.directChunks, totals.chunks))
      if (totals.chunks < directSize) {
        const services = await loreSql(target)
        const started = performance.now()
        const direct = { documents: 0, pages: 0, chunks: 0 }
        const workers = target.kind === "embedded" ? 1 : 2
        log(`adding ${size - totals.chunks} chunks by direct ingestion (${workers} at a time) ...`)
        await Promise.all(
          Array.from({ length: workers }, async () => {
            while (totals.chunks + direct.chunks < directSize) {
              const document = corpus.next().value as SyntheticDocument
              const made = await services.ingestDirect(owner, document)
              direct.documents++
              direct.pages += made.pages
              direct.chunks += made.chunks
            }
          })
        )
        // Lore packs postings in a job soon after ingestion: part of ingesting, so inside the time.
        await services.pack(owner.organizationId, "pending")
        await services.close()
        const seconds = (performance.now() - started) / 1000
        ingested.push({ via: "direct", ...direct, seconds })
        totals = { chunks: totals.chunks + direct.chunks, pages: totals.pages + direct.pages }
        log(`${totals.chunks} chunks in total (${direct.pages} pages directly in ${seconds.toFixed(1)} s)`)
      }
      if (totals.chunks < size && target.kind === "postgresql") {
        const made = await synthesizeChunks(databaseUrl!, size - totals.chunks, log)
        // Synthesized postings bypass makeSearchable: every block is rebuilt from them (not timed as ingestion).
        const packer = await loreSql(target)
        await packer.pack(owner.organizationId, "all")
        await packer.close()
        ingested.push({ via: "synthesized", documents: 0, pages: 0, chunks: made.chunks, seconds: made.seconds })
        totals = { chunks: totals.chunks + made.chunks, pages: totals.pages }
        log(`${totals.chunks} chunks in total (${made.chunks} synthesized in ${made.seconds.toFixed(0)} s)`)
      }
      if (target.kind === "postgresql" && settings.vacuum === "manual") {
        // What autovacuum does within a minute or so of a bulk load (insert-driven vacuum since PostgreSQL 13
        // sets the visibility map that index-only scans of the postings need); done now so plans and heap
        // fetches do not change mid-run.
        await withPgClient(databaseUrl!, (c) => c.query("VACUUM ANALYZE"))
      }
      target = await measureState(target, size, totals, ingested, settings.steady ? "steady" : "loaded", size === targets[targets.length - 1])
      // BENCH_SEARCH_REBUILD=0 keeps the steady state (with BENCH_SEARCH_KEEP, a database to measure again with BENCH_SEARCH_REUSE).
      if (settings.steady && size === targets[targets.length - 1] && target.kind === "postgresql" && process.env.BENCH_SEARCH_REBUILD !== "0") {
        // The same corpus as block maintenance leaves it once caught up (BENCH_SEARCH_MAINTAINED=1: for a database
        // reused from before maintenance existed), then with every block rebuilt whole.
        if (process.env.BENCH_SEARCH_MAINTAINED === "1") {
          await stop()
          const maintainer = await loreSql(target)
          const began = performance.now()
          const runs = await maintainer.maintain(owner.organizationId)
          await maintainer.close()
          log(`block maintenance caught up in ${runs} runs, ${((performance.now() - began) / 1000).toFixed(1)} s`)
          target = await measureState(target, size, totals, [], "maintained", false)
        }
        await stop()
        const packer = await loreSql(target)
        const started = performance.now()
        await packer.pack(owner.organizationId, "all")
        await packer.close()
        log(`every block rebuilt whole in ${((performance.now() - started) / 1000).toFixed(1)} s`)
        target = await measureState(target, size, totals, [], "rebuilt", false)
      }
    }
  } finally {
    await stop().catch(() => {})
    rmSync(dataDir, { recursive: true, force: true })
  }
  return { database: label, sizes, notes }
}

const ms = (value: number) => (Number.isNaN(value) ? "-" : value >= 100 ? value.toFixed(0) : value.toFixed(1))
const perSecond = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(0))
const thousands = (value: number) => `${Math.round(value / 1000)}k`

const report = (result: DatabaseResult) => {
  const main = result.sizes.map((s) => {
    const http = s.ingested.find((i) => i.via === "HTTP")
    const direct = s.ingested.find((i) => i.via === "direct")
    const rate = (i: Ingested) => Math.round(i.pages / i.seconds).toString()
    const ingest = http && !direct ? rate(http) : direct ? `${rate(direct)} (direct)` : http ? rate(http) : "-"
    return [
      `${thousands(s.target)} ${s.questions}${s.state === "loaded" ? "" : ` ${s.state}`} (${s.chunks} chunks, ${s.pages} pages)`,
      ingest,
      ms(s.lore.p50Ms),
      ms(s.lore.p95Ms),
      (s.lore.cpuMicros / 1000).toFixed(1),
      ms(s.bare.p50Ms),
      ms(s.bare.p95Ms),
      `${(s.lore.p50Ms / s.bare.p50Ms).toFixed(2)}x / ${(s.lore.p95Ms / s.bare.p95Ms).toFixed(2)}x`,
      `${s.lore.count} / ${s.bare.count}`,
      `${ms(s.peers.tsRank.p50Ms)} / ${ms(s.peers.tsRank.p95Ms)}`,
      `${ms(s.peers.fts5.p50Ms)} / ${ms(s.peers.fts5.p95Ms)}`
    ]
  })
  console.log(`\n${result.database}: sequential requests (${QUESTION_SETS.natural.length} questions of each set, up to ${settings.rounds} passes after a warm-up pass, each run capped at ${settings.maxSeconds} s)\n`)
  console.log(table(["corpus", "ingest pages/s", "search p50 ms", "p95 ms", "Lore CPU ms", "bare p50 ms", "p95 ms", "ratio p50 / p95", "n search / bare", "ts_rank p50 / p95 ms", "FTS5 p50 / p95 ms"], main))
  const detail = result.sizes.map((s) => [
    `${thousands(s.target)} ${s.questions}${s.state === "loaded" ? "" : ` ${s.state}`}`,
    `${ms(s.loreConcurrent.p50Ms)} / ${ms(s.loreConcurrent.p95Ms)}`,
    perSecond(s.loreConcurrent.perSecond),
    `${ms(s.bareConcurrent.p50Ms)} / ${ms(s.bareConcurrent.p95Ms)}`,
    perSecond(s.bareConcurrent.perSecond),
    `${ms(s.bareAll.p50Ms)} / ${ms(s.bareAll.p95Ms)}`,
    s.statementsPerSearch.toFixed(1),
    Math.round(s.meanCandidates).toString(),
    s.meanHits.toFixed(1)
  ])
  console.log(`\n${result.database}: ${settings.concurrency} in flight, and every statement of the request replayed in order\n`)
  console.log(
    table(
      ["corpus", `search c${settings.concurrency} p50 / p95 ms`, "search/s", `bare c${settings.concurrency} p50 / p95 ms`, "bare/s", "bare all SQL p50 / p95 ms", "statements", "candidates/q", "hits/q"],
      detail
    )
  )
  const termination = result.sizes.map((s) => [
    `${thousands(s.target)} ${s.questions}${s.state === "loaded" ? "" : ` ${s.state}`}`,
    `${ms(s.bare.p50Ms)} / ${ms(s.bare.p95Ms)}`,
    `${ms(s.exhaustive.p50Ms)} / ${ms(s.exhaustive.p95Ms)}`,
    s.overlap.mean.toFixed(3),
    s.overlap.min.toFixed(1),
    `${Math.round(s.overlap.whole * 100)}%`
  ])
  console.log(`\n${result.database}: search's BM25 statements (whole when small, else early termination) beside exhaustive BM25 (bare SQL, sequential; top 10 of each question)\n`)
  console.log(table(["corpus", "search's BM25 p50 / p95 ms", "exhaustive p50 / p95 ms", "top-10 overlap mean", "min", "questions with all 10"], termination))
  const ingestion = result.sizes.flatMap((s) =>
    s.ingested.map((i) => [thousands(s.target), i.via, i.documents.toString(), i.pages.toString(), i.chunks.toString(), i.seconds.toFixed(1), i.pages > 0 ? (i.pages / i.seconds).toFixed(0) : "-"])
  )
  console.log(`\n${result.database}: ingestion\n`)
  console.log(table(["corpus", "path", "documents", "pages", "chunks", "seconds", "pages/s"], ingestion))
  for (const note of result.notes) console.log(`\n${note}`)
}

export default async function run(): Promise<void> {
  const notes: string[] = []
  const [busy] = loadavg()
  if (busy! > 0.8) notes.push(`The machine was busy when the run started (load average ${busy!.toFixed(1)} on ${cpus().length} cores): the figures undercount.`)
  const results: DatabaseResult[] = []
  if (settings.databases.includes("embedded")) {
    console.log("embedded PGlite ...")
    results.push(await benchDatabase("embedded", undefined))
    report(results[results.length - 1]!)
    const largest = settings.sizes[settings.sizes.length - 1]!
    if (!settings.embeddedSizes.includes(largest)) {
      notes.push(`Embedded ran ${settings.embeddedSizes.join(", ")} chunks only (PGlite is too slow for ${largest} in the time budget); BENCH_SEARCH_EMBEDDED_SIZES=10000,100000 runs it.`)
    }
  }
  if (settings.databases.includes("postgresql")) {
    const adminUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL
    const kept = settings.reuse && { name: new URL(settings.reuse).pathname.slice(1), url: settings.reuse, drop: async () => {} }
    const database = kept || await createThrowawayDatabase("search", adminUrl).catch((error: Error) => {
      notes.push(`PostgreSQL skipped: ${new URL(adminUrl).host} is unreachable (${error.message}); set DATABASE_URL.`)
      return undefined
    })
    if (database) {
      try {
        console.log(`PostgreSQL (${new URL(database.url).host}, ${kept ? "kept" : "throwaway"} database ${database.name}) ...`)
        results.push(await benchDatabase("postgresql", database.url))
        report(results[results.length - 1]!)
      } finally {
        if (process.env.BENCH_SEARCH_KEEP === "1" || kept) console.log(`Kept ${database.url}; drop it when done.`)
        else await database.drop()
      }
    }
  }
  console.log(
    [
      "",
      "Targets: search p95 < 50 ms at 100k chunks on PostgreSQL; Lore's search <= 1.5x its bare query; plain-text ingestion >= 200 pages/s.",
      "search = GET /api/knowledge/search?q=<question> (lexical: no embedding model configured), client-side latency over keep-alive HTTP.",
      "bare = the BM25 statements Lore's search sends (SearchIndexReader.lexical and lexicalPruned with AccessEvaluator.visibleTo's parameters; over packed blocks, not the sums and exact scores taken in the process), recorded from",
      "Lore's own services and replayed with pg on the same database; 'bare all SQL' replays every statement of the request in order",
      "(token lookup, access scope, BM25, details). ingest pages/s: HTTP = sources' pageCount sum / (first upload -> all READY), uploads",
      "4 at a time, 4 job workers (LORE_JOB_WORKERS); direct = Lore's parser, chunker and SearchIndexWriter SQL in one transaction per document, no HTTP or queue.",
      "ts_rank = PostgreSQL ts_rank over Lore's chunks with the question's lexemes OR-ed (GIN index, no access filter), pg on the same",
      "database; FTS5 = SQLite FTS5 bm25() in process (better-sqlite3, porter) loaded with the same chunks; both top 10, sequential.",
      "Corpus: synthetic English-like text (Zipf over ~3,500 words, 40 topics), 4-24 pages a document, ~1.5 chunks a page.",
      settings.vacuum === "manual"
        ? "PostgreSQL gets VACUUM ANALYZE after each load (what autovacuum does shortly after); PGlite has no autovacuum and is measured as Lore leaves it."
        : "Measured as Lore leaves the tables (BENCH_SEARCH_VACUUM=lore): no manual VACUUM ANALYZE; Lore refreshes statistics itself after HTTP ingestion.",
      ...notes
    ].join("\n")
  )
}
