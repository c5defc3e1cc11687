/**
 * GET /api/me with a bearer token: Lore against a bare node:http server that does the lookup on every
 * request (sha256 of the token, Lore's token lookup query (which carries the department name), the same
 * JSON), on embedded PGlite and on PostgreSQL. Lore answers a token it has seen from its principal cache
 * (identity/PrincipalCache.ts): that is the design being measured. Prints one table; never asserts on timing.
 *
 * Each server runs in a child process of its own while autocannon loads it from this process, so the
 * load generator shares neither server's event loop. Lore and the bare server are up together and are
 * loaded in turn, in alternating slices (L B B L L B ...), so a change in background load (other
 * processes on the machine) falls on both alike.
 *
 * Throughput follows CPU share on a busy machine, so beside the req/s ratio the bench prints each server's CPU time
 * per request (process.cpuUsage of its process over the measured slices / the responses) and their ratio (bare
 * µs / Lore µs): what the req/s ratio would be with a core for each server and none taken by other work.
 *
 * Settings (env): BENCH_CONNECTIONS=10 BENCH_WARMUP=1.5 (s, per server) BENCH_SLICE=2 (s) BENCH_SLICES=3 (per server)
 * BENCH_ME_DATABASES=embedded,postgresql (which to run)
 * DATABASE_URL (admin URL to create a throwaway database; default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from "node:crypto"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createThrowawayDatabase, type ThrowawayDatabase } from "./lib/pg"
import { type ChildServer, startChild } from "./lib/child"
import { type LoadFigures, type Slice, slice, summarize, table } from "./lib/load"

export const description = "GET /api/me (bearer token): Lore vs a bare node:http server, embedded PGlite and PostgreSQL"

const SERVERS = fileURLToPath(new URL("./lib/me-servers.ts", import.meta.url))
const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test"
const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const settings = {
  connections: setting("BENCH_CONNECTIONS", 10),
  warmupSeconds: setting("BENCH_WARMUP", 1.5),
  sliceSeconds: setting("BENCH_SLICE", 2),
  slices: setting("BENCH_SLICES", 3),
  databases: (process.env.BENCH_ME_DATABASES ?? "embedded,postgresql").split(",").map((s) => s.trim())
}

interface Measured extends LoadFigures {
  /**
   * CPU time of the server process per request over the measured slices (microseconds), less what the process
   * spends when no request comes (its job workers polling, timers): that rate is measured while the other server
   * is loaded. Without it, a server starved of CPU by other work would show its idle cost spread over few requests.
   */
  readonly cpuMicrosPerRequest: number
  /** The process's CPU time per second while it served nothing (microseconds per second). */
  readonly idleCpuMicrosPerSecond: number
}

interface Side {
  readonly server: ChildServer
  readonly slices: Slice[]
  cpuMicros: number
  idleCpuMicros: number
  idleSeconds: number
}

const sorted = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sorted)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sorted(v)]))
      : value

/** Checks both answer 200 with the same JSON, warms both up, then loads them in alternating slices. */
const compare = async (lore: ChildServer, bare: ChildServer, token: string, notes: string[], database: string) => {
  const headers = { authorization: `Bearer ${token}` }
  const target = (server: ChildServer) => ({ url: `${server.url}/api/me`, headers, connections: settings.connections })
  const bodies: unknown[] = []
  for (const [who, server] of [["Lore", lore], ["bare", bare]] as const) {
    const response = await fetch(target(server).url, { headers })
    const body = await response.json()
    if (response.status !== 200) throw new Error(`${who}: GET /api/me answered ${response.status}: ${JSON.stringify(body)}`)
    bodies.push(body)
  }
  if (JSON.stringify(sorted(bodies[0])) !== JSON.stringify(sorted(bodies[1]))) {
    notes.push(`WARNING (${database}): the two bodies differ:\n  Lore: ${JSON.stringify(bodies[0])}\n  bare: ${JSON.stringify(bodies[1])}`)
  }
  const sides: Side[] = [lore, bare].map((server) => ({ server, slices: [], cpuMicros: 0, idleCpuMicros: 0, idleSeconds: 0 }))
  for (const side of sides) await slice(target(side.server), settings.warmupSeconds)
  for (let i = 0; i < settings.slices; i++) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const other = sides.find((s) => s !== side)!
      const [before, otherBefore] = [await side.server.cpuMicros(), await other.server.cpuMicros()]
      const loaded = await slice(target(side.server), settings.sliceSeconds)
      side.slices.push(loaded)
      side.cpuMicros += (await side.server.cpuMicros()) - before
      other.idleCpuMicros += (await other.server.cpuMicros()) - otherBefore
      other.idleSeconds += loaded.seconds
    }
  }
  const [loreFigures, bareFigures] = sides.map((side): Measured => {
    const figures = summarize(side.slices)
    const idleRate = side.idleCpuMicros / Math.max(1e-9, side.idleSeconds)
    const seconds = side.slices.reduce((sum, s) => sum + s.seconds, 0)
    return {
      ...figures,
      cpuMicrosPerRequest: Math.max(0, side.cpuMicros - idleRate * seconds) / Math.max(1, figures.requests),
      idleCpuMicrosPerSecond: idleRate
    }
  })
  return { lore: loreFigures!, bare: bareFigures! }
}

/** Starts both children, runs `use`, and always stops them. */
const withServers = async <A>(lore: () => Promise<ChildServer>, bare: () => Promise<ChildServer>, use: (lore: ChildServer, bare: ChildServer) => Promise<A>) => {
  const a = await lore()
  try {
    const b = await bare()
    try {
      return await use(a, b)
    } finally {
      await b.stop()
    }
  } finally {
    await a.stop()
  }
}

/**
 * Embedded: PGlite serves one connection on its socket, and Lore holds it, so the bare server cannot
 * share Lore's instance. Lore starts once on a fresh data dir (schema, organization, token) and stops;
 * the bare server gets a copy of that database files and opens it exactly as Lore opens its own
 * (PGlite + pgvector behind PGLiteSocketServer, a pg pool of one): same data, same path to it.
 */
const embedded = async (token: string, notes: string[]) => {
  const loreDir = mkdtempSync(join(tmpdir(), "lore-bench-"))
  const bareDir = mkdtempSync(join(tmpdir(), "lore-bench-"))
  try {
    await (await startChild(SERVERS, ["lore", loreDir, token])).stop()
    cpSync(join(loreDir, "pgdata"), join(bareDir, "pgdata"), { recursive: true })
    return await withServers(
      () => startChild(SERVERS, ["lore", loreDir, token]),
      () => startChild(SERVERS, ["bare", bareDir, token]),
      (lore, bare) => compare(lore, bare, token, notes, "embedded")
    )
  } finally {
    rmSync(loreDir, { recursive: true, force: true })
    rmSync(bareDir, { recursive: true, force: true })
  }
}

/** PostgreSQL: a throwaway database; Lore creates the schema, then both servers use it (pools of 10). */
const postgres = async (adminUrl: string, token: string, notes: string[]) => {
  let database: ThrowawayDatabase
  try {
    database = await createThrowawayDatabase("me", adminUrl)
  } catch (error) {
    notes.push(`PostgreSQL skipped: ${new URL(adminUrl).host} is unreachable (${(error as Error).message}); set DATABASE_URL.`)
    return undefined
  }
  const target = new URL(database.url)
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-"))
  try {
    console.log(`PostgreSQL: throwaway database ${database.name} on ${target.host}`)
    return await withServers(
      () => startChild(SERVERS, ["lore", dataDir, token, target.toString()]),
      () => startChild(SERVERS, ["bare", dataDir, token, target.toString()]),
      (lore, bare) => compare(lore, bare, token, notes, "PostgreSQL")
    )
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
    await database.drop()
  }
}

/** How busy all cores are over one second, 0..1: other work skews every figure. */
const busyFraction = async () => {
  const sample = () => cpus().reduce((acc, cpu) => {
    const t = cpu.times
    return { idle: acc.idle + t.idle, total: acc.total + t.user + t.nice + t.sys + t.idle + t.irq }
  }, { idle: 0, total: 0 })
  const before = sample()
  await new Promise((done) => setTimeout(done, 1000))
  const after = sample()
  return 1 - (after.idle - before.idle) / Math.max(1, after.total - before.total)
}

export default async function run(): Promise<void> {
  const notes: string[] = []
  const busy = await busyFraction()
  if (busy > 0.25) {
    notes.push(
      `Other work kept the machine ${(100 * busy).toFixed(0)}% busy just before the run (${cpus().length} cores): ` +
        "every figure undercounts, Lore's more than bare's (see docs/benchmarks.md); rerun on an idle machine."
    )
  }
  const token = `lore_pat_bench${randomBytes(24).toString("base64url")}`
  const results: Array<{ database: string; lore: Measured; bare: Measured }> = []

  if (settings.databases.includes("embedded")) {
    console.log("embedded PGlite ...")
    results.push({ database: "embedded PGlite", ...(await embedded(token, notes)) })
  }
  const onPostgres = settings.databases.includes("postgresql") ? await postgres(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL, token, notes) : undefined
  if (onPostgres) results.push({ database: "PostgreSQL", ...onPostgres })

  const rows: string[][] = []
  for (const { database, lore, bare } of results) {
    const row = (setup: string, f: Measured, ratio: string, cpuRatio: string) => [
      setup,
      Math.round(f.requestsPerSecond).toString(),
      f.p50Ms.toFixed(1),
      f.p99Ms.toFixed(1),
      Math.round(f.cpuMicrosPerRequest).toString(),
      Math.round(f.idleCpuMicrosPerSecond / 1000).toString(),
      ratio,
      cpuRatio
    ]
    const percent = (x: number) => `${(100 * x).toFixed(0)}%`
    rows.push(row(`Lore, ${database}`, lore, percent(lore.requestsPerSecond / bare.requestsPerSecond), percent(bare.cpuMicrosPerRequest / lore.cpuMicrosPerRequest)))
    rows.push(row(`bare node:http, ${database}`, bare, "", ""))
    for (const [who, f] of [["Lore", lore], ["bare", bare]] as const) {
      if (f.non2xx + f.errors > 0) notes.push(`${who} on ${database}: ${f.non2xx} non-2xx responses and ${f.errors} errors in ${f.requests} requests.`)
    }
  }

  const measured = settings.slices * settings.sliceSeconds
  console.log(
    `\nGET /api/me, bearer token; autocannon, ${settings.connections} connections; per server ${settings.warmupSeconds} s warm-up, ` +
      `then ${measured} s measured in ${settings.slices} slices alternating with the other server. Target: Lore >= 60% of bare.\n`
  )
  console.log(table(["setup", "req/s", "p50 ms", "p99 ms", "server CPU µs/req", "idle CPU ms/s", "Lore / bare req/s", "bare / Lore CPU µs/req"], rows))
  console.log(
    [
      "",
      "Both servers parse the bearer token, sha256 it, touch last_used_at at most once a minute, and answer the same",
      "JSON (checked). The bare server runs Lore's token lookup query (IdentityRepo.principalByTokenHash, department",
      "name included) on every request; Lore runs it once and then answers from its principal cache, which on",
      "PostgreSQL first waits for one empty query on its LISTEN connection (shared by the requests that arrive",
      "together) so that no change to the token or its user is missed. Lore adds what its requests cost: routing, the",
      "authentication middleware, request ids, problem+json handling, schema encoding, tracing spans, logging. Same driver (pg) and pool size on both sides:",
      "10 on PostgreSQL; on embedded one connection to a PGlite opened exactly as Lore opens its own, on a copy of",
      "Lore's database files (the PGlite socket takes one connection and Lore holds it). Each server is a child",
      "process of its own; autocannon runs in this one. server CPU = the server process's CPU time per request (process.cpuUsage",
      "over the measured slices, less its idle CPU (ms per second, measured while the other server was loaded: job workers,",
      "timers) over the same time, / responses); bare / Lore CPU = the req/s ratio neither server starved would reach, the figure",
      "to trust on a shared machine, where the scheduler gives each busy process a similar share and req/s follows it.",
      ...notes
    ].join("\n")
  )
}
