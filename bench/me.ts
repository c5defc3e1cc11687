/**
 * GET /api/me with a bearer token: Lore against a bare node:http server that does the same work
 * (sha256 of the token, Lore's token lookup query, the department name query, the same JSON),
 * on embedded PGlite and on PostgreSQL. Prints one table; never asserts on timing.
 *
 * Each server runs alone in a child process while autocannon loads it from this process, so the
 * load generator does not share the server's event loop. Lore and the bare server take turns on the
 * same database (Lore first: it creates the schema and the bootstrap token the bare server reads).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { startChild } from "./lib/child"
import { load, type LoadFigures, table } from "./lib/load"

export const description = "GET /api/me (bearer token): Lore vs a bare node:http server, embedded PGlite and PostgreSQL"

const SERVERS = fileURLToPath(new URL("./lib/me-servers.ts", import.meta.url))
const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test"
const seconds = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const settings = {
  connections: seconds("BENCH_CONNECTIONS", 10),
  warmupSeconds: seconds("BENCH_WARMUP", 2),
  durationSeconds: seconds("BENCH_DURATION", 6)
}

interface Measured extends LoadFigures {
  readonly body: unknown
  /** CPU time of the server process per request during the measured run (microseconds). */
  readonly cpuMicrosPerRequest: number
}

/** Starts one server in a child, checks that GET /api/me answers 200, loads it, stops it. */
const measure = async (mode: "lore" | "bare", dataDir: string, token: string, databaseUrl?: string): Promise<Measured> => {
  const server = await startChild(SERVERS, [mode, dataDir, token, ...(databaseUrl ? [databaseUrl] : [])])
  try {
    const url = `${server.url}/api/me`
    const headers = { authorization: `Bearer ${token}` }
    const probe = await fetch(url, { headers })
    const body = await probe.json()
    if (probe.status !== 200) throw new Error(`${mode}: GET /api/me answered ${probe.status}: ${JSON.stringify(body)}`)
    let cpuBefore = 0
    let cpuAfter = 0
    const aroundMeasure = {
      before: async () => void (cpuBefore = await server.cpuMicros()),
      after: async () => void (cpuAfter = await server.cpuMicros())
    }
    const figures = await load({ url, headers, ...settings, aroundMeasure })
    return { ...figures, body, cpuMicrosPerRequest: (cpuAfter - cpuBefore) / Math.max(1, figures.requests) }
  } finally {
    await server.stop()
  }
}

const sorted = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sorted)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sorted(v)]))
      : value

/** Lore then bare on one database; both answers must be the same JSON. */
const pair = async (dataDir: string, token: string, databaseUrl?: string) => {
  const lore = await measure("lore", dataDir, token, databaseUrl)
  const bare = await measure("bare", dataDir, token, databaseUrl)
  if (JSON.stringify(sorted(lore.body)) !== JSON.stringify(sorted(bare.body))) {
    console.warn(`WARNING: the bodies differ\n  lore: ${JSON.stringify(lore.body)}\n  bare: ${JSON.stringify(bare.body)}`)
  }
  return { lore, bare }
}

const withAdmin = async <A>(url: string, use: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

export default async function run(): Promise<void> {
  const notes: string[] = []
  const [busy] = loadavg()
  if (busy! > 0.8) {
    notes.push(`The machine was busy when the run started (load average ${busy!.toFixed(1)} on ${cpus().length} cores): the figures undercount; rerun on a quiet machine.`)
  }
  const token = `lore_pat_bench${randomBytes(24).toString("base64url")}`
  const results: Array<{ database: string; lore: Measured; bare: Measured }> = []

  const embeddedDir = mkdtempSync(join(tmpdir(), "lore-bench-"))
  try {
    console.log("embedded PGlite: Lore, then bare ...")
    results.push({ database: "embedded PGlite", ...(await pair(embeddedDir, token)) })
  } finally {
    rmSync(embeddedDir, { recursive: true, force: true })
  }

  const adminUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL
  const name = `lore_bench_${process.pid}_${randomBytes(4).toString("hex")}`
  const created = await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`)).then(
    () => true,
    (error: Error) => {
      notes.push(`PostgreSQL skipped: ${new URL(adminUrl).host} is unreachable (${error.message}); set DATABASE_URL.`)
      return false
    }
  )
  if (created) {
    const target = new URL(adminUrl)
    target.pathname = `/${name}`
    const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-"))
    try {
      console.log(`PostgreSQL (${target.host}, throwaway database ${name}): Lore, then bare ...`)
      results.push({ database: "PostgreSQL", ...(await pair(dataDir, token, target.toString())) })
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
      await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    }
  }

  const rows: string[][] = []
  for (const { database, lore, bare } of results) {
    const row = (setup: string, f: Measured, ratio: string) => [
      setup,
      Math.round(f.requestsPerSecond).toString(),
      f.p50Ms.toFixed(0),
      f.p99Ms.toFixed(0),
      Math.round(f.cpuMicrosPerRequest).toString(),
      ratio
    ]
    rows.push(row(`Lore, ${database}`, lore, `${((100 * lore.requestsPerSecond) / bare.requestsPerSecond).toFixed(0)}%`))
    rows.push(row(`bare node:http, ${database}`, bare, ""))
    for (const [who, f] of [["Lore", lore], ["bare", bare]] as const) {
      if (f.non2xx + f.errors > 0) notes.push(`${who} on ${database}: ${f.non2xx} non-2xx responses and ${f.errors} errors in ${f.requests} requests.`)
    }
  }

  console.log(
    `\nGET /api/me, bearer token; autocannon ${settings.connections} connections, ` +
      `${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s measured; target: Lore >= 60% of bare.\n`
  )
  console.log(table(["setup", "req/s", "p50 ms", "p99 ms", "server CPU µs/req", "Lore / bare req/s"], rows))
  console.log(
    [
      "",
      "What is compared: both servers parse the bearer token, sha256 it, run Lore's token lookup query",
      "(IdentityRepo.principalByTokenHash) and its department name query, touch last_used_at at most once",
      "a minute, and answer the same JSON; Lore adds what a real request costs there: routing, the",
      "authentication middleware, request ids, problem+json handling, schema encoding, logging.",
      "Fairness: each server runs alone in its own child process (autocannon runs in the parent) and the",
      "two take turns on the same database with the same driver (pg) and pool size: 10 on PostgreSQL; on",
      "embedded, the bare server opens the same PGlite data dir Lore just closed and reaches it exactly as",
      "Lore does (PGlite + pgvector, PGLiteSocketServer on a unix socket, one connection), because that",
      "socket takes one connection and the two servers cannot share it.",
      ...notes
    ].join("\n")
  )
}
