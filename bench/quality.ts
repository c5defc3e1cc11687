/**
 * Search quality on a committed evaluation set (bench/quality: World Factbook sections, public domain, with
 * questions and graded judgements; see its README): nDCG@10, Recall@10 and MRR@10 of Lore's
 * GET /api/knowledge/search beside a textbook Okapi BM25 written here, SQLite FTS5 bm25() and PostgreSQL
 * ts_rank with OR-ed lexemes (bench/lib/quality-rankers.ts), with each one's p50/p95 latency per question.
 *
 * Lore: a fresh embedded server in a child process; every document uploaded through POST /api/sources
 * (title as the source title, text as a plain-text file), then each question sent with limit 10. Chunks are
 * mapped to their documents by source, first occurrence, so a document counts once at its best chunk's rank.
 * With DATABASE_URL set (an admin URL), Lore and ts_rank also run on a throwaway PostgreSQL database.
 *
 * Settings (env): BENCH_QUALITY_POOL=<file> writes the union of every system's top 20 per question (for
 * judging; see the README). BENCH_QUALITY_DETAIL=1 prints nDCG@10 per question and system.
 * BENCH_QUALITY_DATA_DIR=<dir> keeps the embedded Lore data there and reuses it when already loaded (to try
 * query-time ranking changes without re-ingesting). BENCH_QUALITY_SYSTEMS=bm25,fts5,tsrank,lore (default: all).
 */
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { PGlite } from "@electric-sql/pglite"
import pg from "pg"
import { type Latency, httpGetter, measureLatency } from "./lib/latency"
import { table } from "./lib/load"
import { type Judgements, mean, score, type Scores } from "./lib/quality-metrics"
import { type CorpusDocument, loadTsRank, type Ranker, sqliteFts5, textbookBm25 } from "./lib/quality-rankers"
import { type Lore, startLore } from "./lib/search-ingest"

export const description = "search quality (nDCG@10, R@10, MRR@10) and latency: Lore beside textbook BM25, SQLite FTS5 and ts_rank"

interface Question {
  readonly id: string
  readonly question: string
  readonly source: string
  readonly relevant: Judgements
}

const here = dirname(fileURLToPath(import.meta.url))
const corpus = JSON.parse(readFileSync(join(here, "quality", "corpus.json"), "utf8")) as { documents: ReadonlyArray<CorpusDocument> }
const questions = JSON.parse(readFileSync(join(here, "quality", "questions.json"), "utf8")) as ReadonlyArray<Question>
const systems = (process.env.BENCH_QUALITY_SYSTEMS ?? "bm25,fts5,tsrank,lore").split(",").map((s) => s.trim())
const CUTOFF = 10
const POOL_DEPTH = 20

interface SystemResult {
  readonly system: string
  readonly scores: Scores
  readonly perQuestion: ReadonlyArray<Scores>
  readonly latency: Latency
  readonly runs: ReadonlyMap<string, ReadonlyArray<string>>
  readonly pooled: ReadonlyMap<string, ReadonlyArray<string>>
}

/** Every question once for the rankings (the warm-up), then two timed passes. */
const evaluate = async (system: string, rank: Ranker): Promise<SystemResult> => {
  const runs = new Map<string, ReadonlyArray<string>>()
  const pooled = new Map<string, ReadonlyArray<string>>()
  for (const q of questions) runs.set(q.id, await rank(q.question, CUTOFF))
  // Deeper rankings only for the judging pool (Lore's top 20 chunks are not its top 10 plus 10 more documents).
  if (process.env.BENCH_QUALITY_POOL) for (const q of questions) pooled.set(q.id, await rank(q.question, POOL_DEPTH))
  const perQuestion = questions.map((q) => score(runs.get(q.id)!, q.relevant, CUTOFF))
  const operations = questions.map((q) => async () => (await rank(q.question, CUTOFF)).length > 0)
  const latency = await measureLatency(operations, { rounds: 2, concurrency: 1, maxSeconds: 30, warmupSeconds: 0 })
  const result = { system, scores: mean(perQuestion), perQuestion, latency, runs, pooled }
  console.log(`  ${system}: nDCG@10 ${result.scores.ndcg.toFixed(3)}, p50 ${latency.p50Ms.toFixed(1)} ms`)
  return result
}

/** Uploads every document (4 in flight) and waits until all are READY; returns source id -> document id. */
const ingest = async (lore: Lore, spaceId: string) => {
  const bySource = new Map<string, string>()
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < corpus.documents.length) {
        const document = corpus.documents[next++]!
        const form = new FormData()
        form.append("file", new Blob([document.text], { type: "text/plain" }), `${document.id}.txt`)
        const query = new URLSearchParams({ knowledgeSpaceId: spaceId, classification: "INTERNAL", title: document.title })
        const response = await fetch(`${lore.child.url}/api/sources?${query}`, { method: "POST", headers: lore.headers, body: form })
        const body = await response.text()
        if (!response.ok) throw new Error(`upload ${document.id}: ${response.status} ${body}`)
        bySource.set((JSON.parse(body) as { id: string }).id, document.id)
      }
    })
  )
  for (;;) {
    const page = await lore.api<{ statusCounts: { ready: number; attention: number } }>("/api/sources?pageSize=1")
    if (page.statusCounts.attention > 0) throw new Error(`${page.statusCounts.attention} uploads ended in ATTENTION`)
    if (page.statusCounts.ready >= corpus.documents.length) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  console.log(`  ${corpus.documents.length} documents READY in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  return bySource
}

/** Lore over HTTP: a fresh server (embedded, or on a PostgreSQL database), loaded, then asked every question. */
const evaluateLore = async (label: string, databaseUrl: string | undefined) => {
  const kept = databaseUrl === undefined ? process.env.BENCH_QUALITY_DATA_DIR : undefined
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), "lore-quality-"))
  if (kept) mkdirSync(kept, { recursive: true })
  const token = kept ? "lore_pat_benchquality0000000000000000000000000000" : `lore_pat_bench${randomBytes(24).toString("base64url")}`
  const mapFile = join(dataDir, "quality-sources.json")
  const lore = await startLore(dataDir, token, databaseUrl)
  const client = httpGetter(1)
  try {
    let bySource: Map<string, string>
    if (kept && existsSync(mapFile)) bySource = new Map(Object.entries(JSON.parse(readFileSync(mapFile, "utf8")) as Record<string, string>))
    else {
      const [space] = await lore.api<Array<{ id: string }>>("/api/knowledge-spaces/upload-targets")
      bySource = await ingest(lore, space!.id)
      if (kept) writeFileSync(mapFile, JSON.stringify(Object.fromEntries(bySource)))
    }
    const rank = async (question: string, limit: number) => {
      const url = `${lore.child.url}/api/knowledge/search?q=${encodeURIComponent(question)}&limit=${limit}`
      const response = await client.get(url, lore.headers)
      if (response.status !== 200) throw new Error(`search: ${response.status} ${response.body}`)
      const evidence = (JSON.parse(response.body) as { evidence: Array<{ knowledgeAssetVersionId: string }> }).evidence
      return [...new Set(evidence.map((e) => bySource.get(e.knowledgeAssetVersionId)!))]
    }
    return await evaluate(label, rank)
  } finally {
    client.close()
    await lore.child.stop()
    if (!kept) rmSync(dataDir, { recursive: true, force: true })
  }
}

const withDatabase = async <A>(adminUrl: string, use: (url: string) => Promise<A>) => {
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 })
  await admin.connect()
  const name = `lore_quality_${process.pid}_${randomBytes(4).toString("hex")}`
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  try {
    return await use(url.toString())
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

const f3 = (x: number) => x.toFixed(3)
const ms = (x: number) => (Number.isNaN(x) ? "-" : x >= 100 ? x.toFixed(0) : x.toFixed(1))

export default async function run(): Promise<void> {
  const judgedQuestions = questions.filter((q) => Object.values(q.relevant).some((g) => g > 0)).length
  const long = questions.filter((q) => q.question.split(/\s+/).length >= 30).length
  console.log(`${corpus.documents.length} documents, ${questions.length} questions (${long} of 30 words or more, ${judgedQuestions} judged)`)
  const results: SystemResult[] = []
  if (systems.includes("bm25")) {
    results.push(await evaluate("textbook BM25 (bench, in memory)", await textbookBm25(corpus.documents)))
    // Where Lore's BM25 differs from the textbook, one change at a time (Lore's analyzer aside: Snowball via to_tsvector).
    results.push(await evaluate("  over Lore's chunks, best chunk per document", await textbookBm25(corpus.documents, { chunks: { titleWeight: 1 } })))
    results.push(await evaluate("  over Lore's chunks, title x2 (as Lore)", await textbookBm25(corpus.documents, { chunks: { titleWeight: 2 } })))
    // Published improvements on the textbook ranker, with the papers' parameters (see quality-rankers.ts).
    results.push(await evaluate("  + BM25TP proximity (window 5, weight 1)", await textbookBm25(corpus.documents, { proximity: { window: 5, weight: 1, depth: 100 } })))
    results.push(await evaluate("  + RM3 (10 documents, 10 terms, original 0.5)", await textbookBm25(corpus.documents, { rm3: { documents: 10, terms: 10, originalWeight: 0.5 } })))
  }
  if (systems.includes("fts5")) {
    const fts = sqliteFts5(corpus.documents)
    results.push(await evaluate("SQLite FTS5 bm25() (better-sqlite3, in process)", fts.rank))
    fts.close()
  }
  if (systems.includes("tsrank")) {
    const db = new PGlite()
    results.push(await evaluate("PostgreSQL ts_rank, OR-ed lexemes (PGlite, in process)", await loadTsRank(db, corpus.documents)))
    await db.close()
  }
  if (systems.includes("lore")) results.push(await evaluateLore("Lore GET /api/knowledge/search (embedded PGlite)", undefined))
  const adminUrl = process.env.DATABASE_URL
  if (adminUrl) {
    await withDatabase(adminUrl, async (url) => {
      if (systems.includes("tsrank")) {
        const pool = new pg.Pool({ connectionString: url, max: 1 })
        try {
          results.push(await evaluate("PostgreSQL ts_rank, OR-ed lexemes (PostgreSQL, pg)", await loadTsRank(pool, corpus.documents)))
        } finally {
          await pool.end()
        }
      }
      if (systems.includes("lore")) results.push(await evaluateLore("Lore GET /api/knowledge/search (PostgreSQL)", url))
    })
  }

  console.log(`\nquality over ${questions.length} questions at cutoff ${CUTOFF}; latency per question (one pass to warm up and rank, then 2 timed passes)\n`)
  console.log(
    table(
      ["system", "nDCG@10", "R@10", "MRR@10", "p50 ms", "p95 ms"],
      results.map((r) => [r.system, f3(r.scores.ndcg), f3(r.scores.recall), f3(r.scores.rr), ms(r.latency.p50Ms), ms(r.latency.p95Ms)])
    )
  )
  // How many questions each system ranks better or worse than the textbook: a 0.01 difference in the mean can be one question.
  const textbook = results.find((r) => r.system.startsWith("textbook"))
  if (textbook) {
    console.log("\nquestions with a higher / lower nDCG@10 than the textbook BM25\n")
    console.log(
      table(
        ["system", "better", "worse"],
        results.filter((r) => r !== textbook).map((r) => {
          const delta = r.perQuestion.map((s, i) => s.ndcg - textbook.perQuestion[i]!.ndcg)
          return [r.system, String(delta.filter((d) => d > 1e-9).length), String(delta.filter((d) => d < -1e-9).length)]
        })
      )
    )
  }
  const longIds = new Set(questions.filter((q) => q.question.split(/\s+/).length >= 30).map((q) => q.id))
  console.log(`\nnDCG@10 on the ${long} long questions (30 words or more) and the ${questions.length - long} others\n`)
  console.log(
    table(
      ["system", "long", "others"],
      results.map((r) => {
        const of = (keep: boolean) => mean(r.perQuestion.filter((_, i) => longIds.has(questions[i]!.id) === keep)).ndcg
        return [r.system, f3(of(true)), f3(of(false))]
      })
    )
  )
  if (process.env.BENCH_QUALITY_DETAIL) {
    console.log("\nnDCG@10 per question\n")
    console.log(table(["question", ...results.map((_, i) => `s${i + 1}`)], questions.map((q, qi) => [q.id, ...results.map((r) => f3(r.perQuestion[qi]!.ndcg))])))
  }
  const poolFile = process.env.BENCH_QUALITY_POOL
  if (poolFile) {
    const pool = Object.fromEntries(questions.map((q) => [q.id, [...new Set(results.flatMap((r) => r.pooled.get(q.id) ?? []))]]))
    writeFileSync(poolFile, JSON.stringify(pool, null, 1))
    console.log(`\npool of the top ${POOL_DEPTH} of every system written to ${poolFile}`)
  }
  const runsFile = process.env.BENCH_QUALITY_RUNS
  if (runsFile) writeFileSync(runsFile, JSON.stringify(Object.fromEntries(results.map((r) => [r.system, Object.fromEntries(r.runs)])), null, 0))
}
