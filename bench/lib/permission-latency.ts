/**
 * Seconds from a permission change at the source to its enforcement in search (issue 30, point 12), for any
 * connector kind with a `syncPermissions`: the reusable part of bench/sharepoint-permissions.ts and
 * bench/confluence-permissions.ts. A kind plugs in through a small driver:
 *
 *   interface PermissionLatencyDriver {
 *     label: string                        // "SHAREPOINT"
 *     sourceSystem: string                 // the kind's sourceSystem
 *     affectedEmail: string                // the Lore user whose access the samples take away
 *     start({ documents, samples }): Promise<PermissionLatencyFake>
 *   }
 *   interface PermissionLatencyFake {      // the kind's loopback vendor, started with `documents` documents
 *     allowedPrivateHosts, connectorBaseUrls?, sourceConfig, credential   // what the connection is set up with
 *     targetWord(i): string                // a word only target i (0 <= i < samples) holds
 *     revoke(i): void                      // takes affectedEmail's access to target i away at the source
 *     requestsServed(): number             // vendor requests so far (a rise tells when a sync started)
 *     contentServed(): number              // content requests so far (a permission sync must fetch none)
 *     close(): Promise<void>
 *   }
 *
 * Targets must be readable by the affected user only through what `revoke(i)` takes away, each its own (a group
 * membership per target, a restriction per page), so a sample needs no restoring. A change the kind reads last in
 * its permission sync (SharePoint's group memberships, after every ACL) makes the figure the sync's full cost; one it
 * reads first (Confluence's groups) shows how soon after the sync's start it takes effect.
 *
 * What it does, per size (PERM_BENCH_SIZES, default 1000,10000 documents): starts the fake and a Lore server in this
 * process (PostgreSQL: a throwaway database on DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test), sets up
 * a TRUSTED connection (permission interval 3600 s, so only the bench starts syncs), crawls it and waits until every
 * target is searchable as the affected user. Then PERM_BENCH_SAMPLES times (default 5; PERM_BENCH_LARGE_SAMPLES, default 3, from 10,000
 * documents): revoke(i) at the fake, POST
 * `…/crawl?component=permissions` (what the scheduler's enqueue does), and time
 *   - wake: until the fake sees the sync's first request (the job queue's wake-up: JobSignal, else a 1 s poll);
 *   - enforced: until a search as the affected user no longer returns target i (polled every 50 ms);
 *   - sync: until the permission attempt is recorded (the whole sync: every ACL, then every group).
 *
 * Composed at the default schedule (permissionSyncIntervalSeconds = PERM_BENCH_INTERVAL, default 300): the scheduler
 * enqueues a connection's sync when `permissions_finished_at + interval <= now()`, checked every
 * `connectors.scheduleCheckMs` (30 s), so a sync starts L ~ U(0, 30 s) + wake after the interval elapses. Syncs
 * start every G = sync + interval + L + wake; a change lands uniformly in that gap, waits for the next start, and is
 * enforced `enforced - wake` after it (a sync already running when the change lands is not counted on: the bound is
 * conservative). p50/p95 over 200,000 draws from the measured samples. Also printed: the simple model,
 * U(0, interval) + enforced. Asserts nothing.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startServer } from "../../packages/server/src/index"
import { defaultConnectors } from "../../packages/server/src/Config"
import { percentile } from "./latency"
import { table } from "./load"
import { createThrowawayDatabase } from "./pg"

export interface PermissionLatencyFake {
  readonly allowedPrivateHosts: ReadonlyArray<string>
  readonly connectorBaseUrls?: Readonly<Record<string, string>>
  readonly sourceConfig: Readonly<Record<string, unknown>>
  readonly credential: unknown
  readonly targetWord: (i: number) => string
  readonly revoke: (i: number) => void
  readonly requestsServed: () => number
  readonly contentServed: () => number
  readonly close: () => Promise<void>
}

export interface PermissionLatencyDriver {
  readonly label: string
  readonly sourceSystem: string
  readonly affectedEmail: string
  readonly start: (input: { readonly documents: number; readonly samples: number }) => Promise<PermissionLatencyFake>
}

export interface PermissionSample {
  readonly wakeMs: number
  readonly enforcedMs: number
  readonly syncMs: number
}

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const seconds = (ms: number) => (ms / 1000).toFixed(ms >= 100_000 ? 0 : 1)

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>
const caller = (url: string, token: string): Call => async (method, path, body) => {
  const response = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : null }
}
const must = async (reply: Promise<{ status: number; body: any }>, status: number, what: string) => {
  const got = await reply
  if (got.status !== status) throw new Error(`${what}: ${got.status} ${JSON.stringify(got.body).slice(0, 400)}`)
  return got.body
}

const until = async <A>(check: () => Promise<A>, done: (a: A) => boolean, what: string, timeoutMs: number, everyMs = 50): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(everyMs)
  }
}

/** The composed p50/p95 (seconds) of change → enforcement at `intervalSeconds`, by Monte Carlo over the samples. */
export const composeLatency = (samples: ReadonlyArray<PermissionSample>, intervalSeconds: number, scheduleCheckMs: number, draws = 200_000) => {
  const pick = () => samples[Math.floor(Math.random() * samples.length)]!
  const withPickup: Array<number> = []
  const simple: Array<number> = []
  for (let i = 0; i < draws; i++) {
    const previous = pick()
    const next = pick()
    const gap = (previous.syncMs - previous.wakeMs) + intervalSeconds * 1000 + Math.random() * scheduleCheckMs + next.wakeMs
    withPickup.push(gap * Math.random() + (next.enforcedMs - next.wakeMs))
    simple.push(Math.random() * intervalSeconds * 1000 + next.enforcedMs)
  }
  withPickup.sort((a, b) => a - b)
  simple.sort((a, b) => a - b)
  return {
    p50: percentile(withPickup, 0.5) / 1000,
    p95: percentile(withPickup, 0.95) / 1000,
    simpleP50: percentile(simple, 0.5) / 1000,
    simpleP95: percentile(simple, 0.95) / 1000
  }
}

/** One size: a server, a connection of `documents` documents, `samples` revocations timed. */
const measureSize = async (driver: PermissionLatencyDriver, documents: number, samples: number): Promise<ReadonlyArray<PermissionSample>> => {
  const fake = await driver.start({ documents, samples })
  const database = await createThrowawayDatabase("permlat")
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-perm-"))
  const bootstrapToken = `lore_pat_bench${randomBytes(12).toString("hex")}${"x".repeat(16)}`
  const server = await startServer({
    dataDir,
    databaseUrl: database.url,
    port: 0,
    bootstrapToken,
    allowedPrivateHosts: fake.allowedPrivateHosts,
    connectorBaseUrls: fake.connectorBaseUrls ?? {}
  })
  try {
    const admin = caller(server.url, bootstrapToken)
    const departmentId = (await must(admin("POST", "/api/admin/departments", { name: "Bench" }), 201, "department")).id
    const spaceId = (await must(admin("POST", "/api/admin/knowledge-spaces", { key: "bench", name: "Bench" }), 201, "space")).id
    await must(admin("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" }), 204, "grant")
    const invitation = await must(admin("POST", "/api/admin/invitations", { email: driver.affectedEmail, departmentId }), 201, "invitation")
    const accepted = await must(caller(server.url, "")("POST", "/api/invitations/accept", { code: invitation.invitationCode }), 201, "acceptance")
    const user = caller(server.url, accepted.token.token)
    const path = `/api/admin/connectors/${driver.sourceSystem}/bench`
    await must(admin("PUT", path, { knowledgeSpaceId: spaceId, sourceConfig: fake.sourceConfig, identityTrust: "TRUSTED", crawlEnabled: true, contentCrawlIntervalSeconds: 86_400, permissionSyncIntervalSeconds: 3600 }), 200, "connection")
    await must(admin("PUT", `${path}/credential`, { credential: fake.credential }), 204, "credential")
    const attempts = async (component: string) => ((await must(admin("GET", `${path}/activity`), 200, "activity")).recentAttempts as Array<any>).filter((a) => a.component === component)
    const visible = async (word: string) => ((await must(user("GET", `/api/knowledge/search?q=${encodeURIComponent(word)}`), 200, "search")).evidence as Array<unknown>).length > 0

    const crawlStarted = performance.now()
    await must(admin("POST", `${path}/crawl`), 202, "crawl")
    const crawled = await until(() => attempts("content"), (list) => list.length > 0, "the first crawl", 3_600_000, 500)
    if (crawled[0].outcome !== "SUCCEEDED") throw new Error(`the first crawl: ${JSON.stringify(crawled[0])}`)
    await until(() => attempts("permissions"), (list) => list.length > 0, "the first permission sync", 3_600_000, 500)
    for (let i = 0; i < samples; i++) await until(() => visible(fake.targetWord(i)), (v) => v, `target ${i} searchable`, 3_600_000, 500)
    console.log(`${driver.label} ${documents} documents: crawled, synced and searchable in ${seconds(performance.now() - crawlStarted)} s`)

    const measured: Array<PermissionSample> = []
    for (let i = 0; i < samples; i++) {
      const before = (await attempts("permissions")).length
      const content = fake.contentServed()
      fake.revoke(i)
      const served = fake.requestsServed()
      const started = performance.now()
      let wake = NaN
      const watching = (async () => {
        while (Number.isNaN(wake) && performance.now() - started < 600_000) {
          if (fake.requestsServed() > served) wake = performance.now() - started
          await sleep(2)
        }
      })()
      await must(admin("POST", `${path}/crawl?component=permissions`), 202, "permission sync")
      await until(() => visible(fake.targetWord(i)), (v) => !v, `target ${i} hidden`, 3_600_000)
      const enforced = performance.now() - started
      const done = await until(() => attempts("permissions"), (list) => list.length > before, "the sync's attempt", 3_600_000, 100)
      const sync = performance.now() - started
      await watching
      if (done[0].outcome !== "SUCCEEDED") console.log(`  sample ${i}: the sync ended ${done[0].outcome} (${done[0].errorCode})`)
      if (fake.contentServed() !== content) console.log(`  sample ${i}: the permission sync fetched ${fake.contentServed() - content} content items`)
      measured.push({ wakeMs: wake, enforcedMs: enforced, syncMs: sync })
    }
    return measured
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
    await database.drop().catch(() => undefined)
    await fake.close()
  }
}

/** Measures each size, prints the samples and the composed figures. */
export const runPermissionLatency = async (driver: PermissionLatencyDriver) => {
  const sizes = (process.env.PERM_BENCH_SIZES ?? "1000,10000").split(",").map(Number).filter((n) => n > 0)
  const samples = number("PERM_BENCH_SAMPLES", 5)
  // A sync of 10,000 documents takes minutes: fewer samples there unless asked.
  const samplesAt = (documents: number) => (documents >= 10_000 ? number("PERM_BENCH_LARGE_SAMPLES", 3) : samples)
  const interval = number("PERM_BENCH_INTERVAL", 300)
  const scheduleCheckMs = defaultConnectors.scheduleCheckMs
  const rows: Array<Array<string>> = []
  for (const documents of sizes) {
    const measured = await measureSize(driver, documents, samplesAt(documents))
    const sorted = (pick: (s: PermissionSample) => number) => measured.map(pick).sort((a, b) => a - b)
    const composed = composeLatency(measured, interval, scheduleCheckMs)
    const wake = sorted((s) => s.wakeMs)
    const enforced = sorted((s) => s.enforcedMs)
    const sync = sorted((s) => s.syncMs)
    console.log(`  samples (s): enforced ${enforced.map(seconds).join(", ")}; whole sync ${sync.map(seconds).join(", ")}; wake ms ${wake.map((w) => w.toFixed(0)).join(", ")}`)
    rows.push([
      String(documents),
      String(measured.length),
      `${percentile(wake, 0.5).toFixed(0)}`,
      `${seconds(percentile(enforced, 0.5))} / ${seconds(percentile(enforced, 0.95))}`,
      `${seconds(percentile(sync, 0.5))} / ${seconds(percentile(sync, 0.95))}`,
      `${composed.p50.toFixed(0)} / ${composed.p95.toFixed(0)}`,
      `${composed.simpleP50.toFixed(0)} / ${composed.simpleP95.toFixed(0)}`
    ])
  }
  console.log(`\n${driver.label}: permission change → enforcement in search (interval ${interval} s, scheduler check every ${scheduleCheckMs / 1000} s)`)
  console.log(table(["documents", "samples", "wake ms p50", "enforced s p50/p95", "whole sync s p50/p95", `composed s p50/p95`, `U(0,${interval})+enforced p50/p95`], rows))
}
