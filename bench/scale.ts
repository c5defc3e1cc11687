/**
 * Several Lore processes on one PostgreSQL database (docs/deployment.md): search throughput with 1, 2 and 4
 * processes. One throwaway database, ~BENCH_SCALE_CHUNKS chunks uploaded through the first process; then for
 * each count, that many processes (each a child process, sharing the data dir for its secret key) are loaded at
 * once with autocannon, BENCH_SCALE_CONNECTIONS keep-alive connections each, GET /api/knowledge/search with a
 * natural-language question, a warm-up slice then a measured one. Prints requests/s and latency; never asserts.
 * On a machine with fewer cores than processes the figure shows what coordination costs, not a speed-up.
 *
 * Settings (env): BENCH_SCALE_PROCESSES=1,2,4 BENCH_SCALE_CHUNKS=2000 BENCH_SCALE_CONNECTIONS=4 BENCH_SCALE_SECONDS=6
 * DATABASE_URL (admin URL for the throwaway database; default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { createThrowawayDatabase, type ThrowawayDatabase } from "./lib/pg"
import { documents, QUESTIONS } from "./lib/corpus"
import { type LoadFigures, slice, summarize, table } from "./lib/load"
import { ingestOverHttp, type Lore, startLore, takeChunks } from "./lib/search-ingest"

export const description = "several Lore processes on one PostgreSQL: search throughput with 1, 2 and 4 processes"

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const settings = {
  processes: (process.env.BENCH_SCALE_PROCESSES ?? "1,2,4").split(",").map(Number).sort((a, b) => a - b),
  chunks: number("BENCH_SCALE_CHUNKS", 2000),
  connections: number("BENCH_SCALE_CONNECTIONS", 4),
  seconds: number("BENCH_SCALE_SECONDS", 6)
}

export default async () => {
  let database: ThrowawayDatabase
  try {
    database = await createThrowawayDatabase("scale")
  } catch (error) {
    console.log(`PostgreSQL unreachable (${(error as Error).message}); set DATABASE_URL. Nothing measured (one embedded process is all PGlite allows).`)
    return
  }
  const databaseUrl = database.url
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-scale-"))
  const token = `lore_pat_bench${randomBytes(16).toString("hex")}`
  const running: Array<Lore> = []
  try {
    running.push(await startLore(dataDir, token, databaseUrl))
    const first = running[0]!
    const [space] = await first.api<Array<{ id: string }>>("/api/knowledge-spaces/upload-targets")
    const docs = await takeChunks(documents({ seed: 20261126, minPages: 2, maxPages: 6 }), settings.chunks)
    const ingested = await ingestOverHttp(first, space!.id, docs, 4)
    console.log(`${ingested.chunks} chunks (${ingested.documents} documents) uploaded through one process in ${ingested.seconds.toFixed(1)} s; ${cpus().length} CPUs`)

    const rows: Array<ReadonlyArray<string>> = []
    let single: LoadFigures | undefined
    for (const count of settings.processes) {
      while (running.length < count) running.push(await startLore(dataDir, token, databaseUrl))
      const targets = running.slice(0, count).map((lore, i) => ({
        url: `${lore.child.url}/api/knowledge/search?q=${encodeURIComponent(QUESTIONS[i % QUESTIONS.length]!)}&limit=10`,
        headers: lore.headers,
        connections: settings.connections
      }))
      await Promise.all(targets.map((t) => slice(t, 2)))
      const figures = summarize(await Promise.all(targets.map((t) => slice(t, settings.seconds))))
      // Slices run side by side: throughput is their sum, not requests over summed seconds.
      const perSecond = figures.requestsPerSecond * count
      single ??= { ...figures, requestsPerSecond: perSecond }
      rows.push([
        String(count), perSecond.toFixed(0), `${(perSecond / single.requestsPerSecond).toFixed(2)}x`,
        figures.p50Ms.toFixed(1), figures.p99Ms.toFixed(1), String(figures.non2xx + figures.errors)
      ])
    }
    console.log(table(["processes", "searches/s", "vs 1", "p50 ms", "p99 ms", "failed"], rows))
  } finally {
    for (const lore of running.reverse()) await lore.child.stop().catch(() => {})
    rmSync(dataDir, { recursive: true, force: true })
    await database.drop().catch(() => {})
  }
}
