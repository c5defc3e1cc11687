/**
 * Connectors (issue 16): the PUSH indexing API's throughput and the time from a push to a search hit, and search
 * latency on a corpus whose every chunk carries a source ACL beside the same corpus without one. Prints tables;
 * never asserts on timing. PostgreSQL only (a throwaway database): the corpus is loaded directly while Lore runs,
 * which embedded PGlite (one client at a time) does not allow.
 *
 *  1. Lore runs in a child process (bench/lib/me-servers.ts "lore" mode). A TRUSTED PUSH connection is set up
 *     and the bench admin is joined to its principal u-admin by email (IDP_JOIN).
 *  2. Push throughput: BENCH_CONNECTORS_DOCS synthetic multi-page documents (bench/lib/corpus.ts), each with a
 *     user and a group ACL, one PUT per document with 4 in flight, then the same number through
 *     `documents:bulk` (25 a request, 2 in flight). Accepted documents/s (the API answered), then documents/s
 *     and pages/s until every pushed source is READY.
 *  3. Push to searchable: BENCH_CONNECTORS_SAMPLES small documents pushed one at a time, each with a word no
 *     other document has; the time from the PUT to the first search that returns it (polled every 20 ms).
 *  4. ACL cost: the corpus is grown to BENCH_CONNECTORS_CHUNKS chunks by direct ingestion (Lore's own ingestion
 *     code and SQL, as bench/search.ts does), then GET /api/knowledge/search for the natural-language questions of
 *     bench/lib/corpus.ts in three states of the same chunks: no source ACL (NULL keys), an ACL on every chunk
 *     that admits the admin (a group every chunk names, plus one of 50 team groups), and an ACL admitting the admin
 *     on 20% of the chunks (10 of the 50 teams). VACUUM ANALYZE after each change, as autovacuum would.
 *
 * Settings (env): BENCH_CONNECTORS_DOCS=200  BENCH_CONNECTORS_SAMPLES=30  BENCH_CONNECTORS_CHUNKS=100000
 * BENCH_CONNECTORS_ROUNDS=3  BENCH_CONNECTORS_MAX_SECONDS=25
 * DATABASE_URL (admin URL for the throwaway database; default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { documents, QUESTIONS, type SyntheticDocument } from "./lib/corpus"
import { httpGetter, type Latency, measureLatency, percentile } from "./lib/latency"
import { table } from "./lib/load"
import { loreSql, postgresTarget } from "./lib/lore-sql"
import { createThrowawayDatabase } from "./lib/pg"
import { type Lore, startLore } from "./lib/search-ingest"

export const description = "connectors: PUSH API documents/s, push-to-searchable latency, search p95 with source ACLs on every chunk vs none"

const SEED = 20261126
const SECRET = `bench-push-${randomBytes(18).toString("base64url")}`
const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const settings = {
  docs: number("BENCH_CONNECTORS_DOCS", 200),
  samples: number("BENCH_CONNECTORS_SAMPLES", 30),
  chunks: number("BENCH_CONNECTORS_CHUNKS", 100_000),
  rounds: number("BENCH_CONNECTORS_ROUNDS", 3),
  maxSeconds: number("BENCH_CONNECTORS_MAX_SECONDS", 25)
}
const TEAMS = 50
const ADMIN_TEAMS = 10

const ms = (value: number) => (Number.isNaN(value) ? "-" : value >= 100 ? value.toFixed(0) : value.toFixed(1))
const sleep = (msToWait: number) => new Promise((resolve) => setTimeout(resolve, msToWait))

/** A JSON request with the connection's credential, as a pusher sends it. */
const pusher = (lore: Lore) => async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${lore.child.url}/api/indexing/PUSH/bench${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}

const aclFor = (index: number) => ({ users: [{ id: `u-owner-${index % 200}` }], groups: [{ id: `team-${index % TEAMS}` }, { id: "everyone" }] })
const pushed = (document: SyntheticDocument, index: number) => ({
  title: document.fileName, content: document.text, mediaType: "text/plain", fileName: document.fileName, classification: "INTERNAL", acl: aclFor(index)
})

/** Sources of the space by status, through the admin's view of the catalog of sources. */
const readyCount = async (lore: Lore, spaceId: string) => {
  let ready = 0
  let pages = 0
  let cursor: string | undefined
  for (;;) {
    const page = await lore.api<{ items: Array<{ status: string; pageCount: number | null }>; nextCursor: string | null }>(
      `/api/sources?knowledgeSpaceId=${spaceId}&limit=200${cursor ? `&cursor=${cursor}` : ""}`)
    for (const source of page.items) if (source.status === "READY") { ready++; pages += source.pageCount ?? 0 }
    if (!page.nextCursor) return { ready, pages }
    cursor = page.nextCursor
  }
}

const untilReady = async (lore: Lore, spaceId: string, expected: number) => {
  for (;;) {
    const counts = await readyCount(lore, spaceId)
    if (counts.ready >= expected) return counts
    await sleep(250)
  }
}

interface Throughput { readonly how: string; readonly documents: number; readonly acceptedPerSecond: number; readonly readyPerSecond: number; readonly pagesPerSecond: number }

const pushThroughput = async (lore: Lore, spaceId: string, corpus: Iterator<SyntheticDocument>): Promise<ReadonlyArray<Throughput>> => {
  const push = pusher(lore)
  const results: Throughput[] = []
  let pushedSoFar = 0
  for (const how of ["PUT, 4 in flight", "bulk of 25, 2 in flight"] as const) {
    const batch = Array.from({ length: settings.docs }, () => corpus.next().value as SyntheticDocument)
    const offset = pushedSoFar
    const before = await readyCount(lore, spaceId)
    const started = performance.now()
    let next = 0
    if (how.startsWith("PUT")) {
      await Promise.all(Array.from({ length: 4 }, async () => {
        while (next < batch.length) {
          const index = next++
          await push("PUT", `/documents/doc-${offset + index}`, pushed(batch[index]!, offset + index))
        }
      }))
    } else {
      await Promise.all(Array.from({ length: 2 }, async () => {
        while (next < batch.length) {
          const from = next
          next += 25
          const documents = batch.slice(from, from + 25).map((document, i) => ({ externalId: `doc-${offset + from + i}`, ...pushed(document, offset + from + i) }))
          const reply = await push("POST", "/documents:bulk", { documents })
          if (reply.failed.length > 0) throw new Error(`bulk push refused ${reply.failed.length}: ${JSON.stringify(reply.failed[0])}`)
        }
      }))
    }
    const accepted = (performance.now() - started) / 1000
    const after = await untilReady(lore, spaceId, before.ready + batch.length)
    const ready = (performance.now() - started) / 1000
    pushedSoFar += batch.length
    results.push({
      how,
      documents: batch.length,
      acceptedPerSecond: batch.length / accepted,
      readyPerSecond: batch.length / ready,
      pagesPerSecond: (after.pages - before.pages) / ready
    })
  }
  return results
}

/** Time from a PUT to the first search that returns the document, one sample at a time. */
const pushToSearchable = async (lore: Lore) => {
  const push = pusher(lore)
  const client = httpGetter(1)
  const times: number[] = []
  try {
    for (let i = 0; i < settings.samples; i++) {
      const word = `zqfresh${randomBytes(5).toString("hex")}`
      const started = performance.now()
      await push("PUT", `/documents/fresh-${i}`, {
        title: `Fresh ${i}`, content: `# Fresh ${i}\n\nThe ${word} notice was pushed a moment ago by the bench.`, acl: { users: [{ id: "u-admin" }] }
      })
      for (;;) {
        const response = await client.get(`${lore.child.url}/api/knowledge/search?q=${word}`, lore.headers)
        if (response.status === 200 && JSON.parse(response.body).evidence.length > 0) break
        if (performance.now() - started > 60_000) throw new Error(`${word} not searchable after 60 s`)
        await sleep(20)
      }
      times.push(performance.now() - started)
    }
  } finally {
    client.close()
  }
  const sorted = [...times].sort((a, b) => a - b)
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted[sorted.length - 1]! }
}

const measureSearch = async (lore: Lore, spaceId: string): Promise<Latency & { meanHits: number }> => {
  const client = httpGetter(1)
  let hits = 0
  let searches = 0
  try {
    const operations = QUESTIONS.map((q) => async () => {
      const response = await client.get(`${lore.child.url}/api/knowledge/search?knowledgeSpaceId=${spaceId}&q=${encodeURIComponent(q)}`, lore.headers)
      if (response.status !== 200) return false
      hits += JSON.parse(response.body).evidence.length
      searches++
      return true
    })
    const latency = await measureLatency(operations, { rounds: settings.rounds, concurrency: 1, maxSeconds: settings.maxSeconds })
    return { ...latency, meanHits: hits / Math.max(searches, 1) }
  } finally {
    client.close()
  }
}

export default async () => {
  const throwaway = await createThrowawayDatabase("connectors")
  const databaseUrl = throwaway.url
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-connectors-"))
  const token = `lore_pat_bench${randomBytes(24).toString("base64url")}`
  const database = new pg.Client({ connectionString: databaseUrl })
  let lore: Lore | undefined
  const log = (message: string) => console.log(`  [PostgreSQL] ${message}`)
  try {
    lore = await startLore(dataDir, token, databaseUrl)
    await database.connect()
    const me = await lore.api<{ userId: string; organizationId: string; email: string }>("/api/me")
    const [space] = await lore.api<Array<{ id: string }>>("/api/knowledge-spaces/upload-targets")
    const spaceId = space!.id
    await lore.call("PUT", "/api/admin/connectors/PUSH/bench", { knowledgeSpaceId: spaceId, sourceConfig: {}, identityTrust: "TRUSTED" })
    await lore.call("PUT", "/api/admin/connectors/PUSH/bench/credential", { credential: SECRET })
    const push = pusher(lore)
    // The admin joins u-admin by email; u-admin is in "everyone" and in the first ADMIN_TEAMS teams.
    await push("PUT", "/groups/everyone", { displayName: "Everyone", members: { users: [{ id: "u-admin", email: me.email }] } })
    for (let team = 0; team < TEAMS; team++) {
      const members = team < ADMIN_TEAMS ? [{ id: "u-admin", email: me.email }, { id: `u-owner-${team}` }] : [{ id: `u-owner-${team}` }]
      await push("PUT", `/groups/team-${team}`, { displayName: `Team ${team}`, members: { users: members } })
    }

    const corpus = documents({ seed: SEED })
    log(`pushing ${settings.docs} documents one by one, then ${settings.docs} in bulk ...`)
    const throughput = await pushThroughput(lore, spaceId, corpus)
    log(`push to searchable, ${settings.samples} samples ...`)
    const fresh = await pushToSearchable(lore)

    const chunkCount = async () => (await database.query<{ n: number }>("SELECT count(*)::int AS n FROM chunks WHERE searchable")).rows[0]!.n
    let chunks = await chunkCount()
    if (chunks < settings.chunks) {
      log(`adding ${settings.chunks - chunks} chunks by direct ingestion ...`)
      const services = await loreSql(postgresTarget(databaseUrl))
      const owner = { organizationId: me.organizationId, knowledgeSpaceId: spaceId, userId: me.userId }
      const started = performance.now()
      // The database's own count decides when to stop (re-read every 20 documents).
      let documentsSinceCount = 0
      await Promise.all(Array.from({ length: 2 }, async () => {
        while (chunks < settings.chunks) {
          await services.ingestDirect(owner, corpus.next().value as SyntheticDocument)
          if (++documentsSinceCount % 20 === 0) chunks = await chunkCount()
        }
      }))
      await services.close()
      chunks = await chunkCount()
      log(`${chunks} chunks (${((performance.now() - started) / 1000).toFixed(0)} s)`)
    }
    const connectionId = (await database.query<{ id: string }>("SELECT id FROM connector_connections WHERE connection_key = 'bench'")).rows[0]!.id
    const key = (kind: "U" | "G", id: string) => `SRC:${connectionId}:${kind}:${id}`
    // Every chunk's ACL: its owner, its team; "everyone" too when `everyone` (what connector documents carry).
    const setAcl = async (mode: "none" | "everyone" | "teams") => {
      const everyone = mode === "everyone" ? `, '${key("G", "everyone")}'` : ""
      const keys = mode === "none"
        ? "NULL"
        : `ARRAY['SRC:${connectionId}:U:u-owner-' || (abs(hashtext(c.id::text)) % 200)::text,
                 'SRC:${connectionId}:G:team-' || (abs(hashtext(c.id::text)) % ${TEAMS})::text${everyone}]`
      await database.query(`UPDATE chunks c SET acl_keys = ${keys} WHERE knowledge_space_id = $1`, [spaceId])
      await database.query("VACUUM ANALYZE chunks")
    }
    const states = [
      ["no source ACL", "none"],
      ["ACL on every chunk, admits the admin on all", "everyone"],
      [`ACL on every chunk, admits the admin on ${Math.round((ADMIN_TEAMS / TEAMS) * 100)}%`, "teams"]
    ] as const
    const searches: Array<readonly [string, Latency & { meanHits: number }]> = []
    for (const [label, mode] of states) {
      log(`search with ${label} ...`)
      await setAcl(mode)
      searches.push([label, await measureSearch(lore, spaceId)])
    }

    console.log(`\nPUSH indexing API (${settings.docs} documents each, synthetic plain text of several pages, user + group ACL)\n`)
    console.log(table(["how", "documents", "accepted docs/s", "READY docs/s", "READY pages/s"], throughput.map((t) => [
      t.how, String(t.documents), t.acceptedPerSecond.toFixed(1), t.readyPerSecond.toFixed(1), t.pagesPerSecond.toFixed(0)
    ])))
    console.log(`\nPush to searchable (${settings.samples} one-paragraph documents, one at a time): p50 ${ms(fresh.p50)} ms, p95 ${ms(fresh.p95)} ms, max ${ms(fresh.max)} ms`)
    console.log(`\nGET /api/knowledge/search at ${chunks} chunks (${QUESTIONS.length} natural-language questions, sequential, up to ${settings.rounds} passes after a warm-up)\n`)
    const base = searches[0]![1]
    console.log(table(["chunks' source ACL", "p50 ms", "p95 ms", "p95 vs none", "mean hits", "n"], searches.map(([label, s]) => [
      label, ms(s.p50Ms), ms(s.p95Ms), `${(s.p95Ms / base.p95Ms).toFixed(2)}x`, s.meanHits.toFixed(1), String(s.count)
    ])))
    console.log(`\nMachine: ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  } finally {
    await lore?.child.stop().catch(() => {})
    await database.end().catch(() => {})
    await throwaway.drop().catch(() => {})
    rmSync(dataDir, { recursive: true, force: true })
  }
}
