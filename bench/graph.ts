/**
 * The knowledge graph on PostgreSQL: LOCAL extraction throughput (chunks/s), then the explorer at 10k entities /
 * 50k relations, depth 2, p50/p95 over HTTP beside its bare SQL (the same breadth-first walk without the access
 * predicates and without aggregation), as a ratio. Prints figures; never asserts on timing.
 *
 *  1. Lore in a child process on a throwaway database; BENCH_GRAPH_DOCS plain-text documents naming people,
 *     organizations and places are uploaded, then indexed with POST .../graph-index (LOCAL: compromise); chunks/s =
 *     the jobs' chunks / wall time from the first graph-index until every job SUCCEEDED.
 *  2. The graph is grown with `pg` to BENCH_GRAPH_ENTITIES entities and BENCH_GRAPH_RELATIONS relations in the same
 *     space, each entity and relation with one mention on one of the real chunks (so every read runs the real
 *     visibility predicates), then VACUUM ANALYZE.
 *  3. GET /api/knowledge-spaces/{id}/graph/explorer?q=<name>&maxDepth=2&entityLimit=50 for names of the graph,
 *     sequentially, a warm-up pass then timed passes; the bare walk replayed with `pg` for the same names.
 *
 * Settings (env): BENCH_GRAPH_DOCS=200 BENCH_GRAPH_ENTITIES=10000 BENCH_GRAPH_RELATIONS=50000 BENCH_GRAPH_QUERIES=40
 * DATABASE_URL (admin URL for the throwaway database; default postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startLore } from "./lib/search-ingest"
import { createThrowawayDatabase, type ThrowawayDatabase, withPgClient } from "./lib/pg"

export const description = "knowledge graph: LOCAL extraction chunks/s; explorer p50/p95 at 10k entities / 50k relations, depth 2, vs its bare SQL"

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const settings = {
  docs: number("BENCH_GRAPH_DOCS", 200),
  entities: number("BENCH_GRAPH_ENTITIES", 10_000),
  relations: number("BENCH_GRAPH_RELATIONS", 50_000),
  queries: number("BENCH_GRAPH_QUERIES", 40)
}

const FIRST = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Julia", "Kofi", "Lena", "Mateo", "Nadia", "Omar", "Priya"]
const LAST = ["Johnson", "Silva", "Wang", "Novak", "Okafor", "Haddad", "Petrov", "Sato", "Kowalski", "Berg", "Mensah", "Rossi"]
const ORGS = ["Acme Corporation", "Globex Corporation", "Initech", "Umbrella Corporation", "Stark Industries", "Wayne Enterprises", "Hooli", "Vandelay Industries"]
const PLACES = ["Paris", "Berlin", "Tokyo", "Madrid", "Oslo", "Lagos", "Toronto", "Sydney", "Cairo", "Lima"]
const pick = <A>(list: ReadonlyArray<A>, i: number) => list[i % list.length]!

const documentText = (i: number) =>
  Array.from({ length: 12 }, (_, s) => {
    const k = i * 12 + s
    return `${pick(FIRST, k)} ${pick(LAST, k * 7)} met ${pick(FIRST, k * 3 + 1)} ${pick(LAST, k * 5 + 2)} of ${pick(ORGS, k)} in ${pick(PLACES, k * 11)} to review the quarterly plan.`
  }).join(" ")

const percentile = (sorted: ReadonlyArray<number>, q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN
const timed = async (operations: ReadonlyArray<() => Promise<unknown>>, rounds = 3) => {
  for (const op of operations) await op()
  const samples: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    for (const op of operations) {
      const start = performance.now()
      await op()
      samples.push(performance.now() - start)
    }
  }
  samples.sort((a, b) => a - b)
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), count: samples.length }
}

/** The walk without access predicates or aggregation: what the explorer would cost with nothing to filter. */
const BARE_WALK = `
  WITH RECURSIVE seeds AS (
    SELECT e.id FROM graph_entities e WHERE e.knowledge_space_id = $1 AND e.canonical_id = e.id AND NOT e.suppressed AND e.name ILIKE $2
    ORDER BY e.mention_count DESC, e.id LIMIT 51),
  walk(id, depth) AS (
    SELECT id, 0 FROM seeds
    UNION
    SELECT CASE WHEN r.source_canonical_id = w.id THEN r.target_canonical_id ELSE r.source_canonical_id END, w.depth + 1
    FROM walk w JOIN graph_relations r ON (r.source_canonical_id = w.id OR r.target_canonical_id = w.id)
    WHERE w.depth < 2 AND NOT r.suppressed)
  SELECT id, min(depth) FROM walk GROUP BY id ORDER BY min(depth), id LIMIT 51`

export default async () => {
  let database: ThrowawayDatabase
  try {
    database = await createThrowawayDatabase("graph")
  } catch (error) {
    console.log(`PostgreSQL unreachable (${(error as Error).message}); set DATABASE_URL. Nothing measured.`)
    return
  }
  const databaseUrl = database.url
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-graph-"))
  const token = `lore_pat_bench${randomBytes(16).toString("hex")}`
  const lore = await startLore(dataDir, token, databaseUrl)
  const call = lore.call
  try {
    const space = await call("POST", "/api/admin/knowledge-spaces", { key: "graph-bench", name: "Graph bench" })
    // 1. Upload, wait until READY, then extraction throughput.
    const assets: Array<string> = []
    for (let i = 0; i < settings.docs; i++) {
      const form = new FormData()
      form.append("file", new Blob([documentText(i)], { type: "text/plain" }), `meeting-${i}.txt`)
      const response = await fetch(`${lore.child.url}/api/sources?knowledgeSpaceId=${space.id}&classification=INTERNAL&title=Meeting%20${i}`, { method: "POST", headers: lore.headers, body: form })
      if (!response.ok) throw new Error(`upload: ${response.status} ${await response.text()}`)
      assets.push((await response.json()).knowledgeAssetId)
    }
    for (;;) {
      const page = await call("GET", "/api/sources?pageSize=1")
      if (page.statusCounts.ready + page.statusCounts.attention >= settings.docs) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const started = performance.now()
    const jobs: Array<string> = []
    for (const asset of assets) jobs.push((await call("POST", `/api/knowledge-assets/${asset}/graph-index`)).id)
    let chunks = 0
    for (const job of jobs) {
      for (;;) {
        const current = await call("GET", `/api/knowledge-assets/graph-jobs/${job}`)
        if (current.status === "SUCCEEDED") {
          chunks += current.chunksTotal
          break
        }
        if (current.status === "FAILED" || current.status === "CANCELLED") throw new Error(`graph job ${job} ${current.status}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const seconds = (performance.now() - started) / 1000
    console.log(`LOCAL extraction: ${settings.docs} documents, ${chunks} chunks in ${seconds.toFixed(1)} s = ${(chunks / seconds).toFixed(1)} chunks/s (HTTP, queue, compromise, projection)`)

    // 2. Grow the graph to the target size (synthetic entities and relations, each with one mention on a real chunk).
    const extracted = await withPgClient(databaseUrl, async (c) => {
      const counts = await c.query(`SELECT (SELECT count(*) FROM graph_entities) AS e, (SELECT count(*) FROM graph_relations) AS r`)
      const { e, r } = counts.rows[0]
      await c.query(`
        INSERT INTO graph_entities (id, organization_id, knowledge_space_id, normalized_name, type, name, canonical_id)
        SELECT x.g, ks.organization_id, ks.id, 'synthetic entity ' || x.i, 'TOPIC', 'Synthetic Entity ' || x.i, x.g
        FROM (SELECT gen_random_uuid() AS g, i FROM generate_series(1, $2::int) i) x JOIN knowledge_spaces ks ON ks.id = $1`, [space.id, Math.max(0, settings.entities - Number(e))])
      await c.query(`
        WITH ents AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM graph_entities WHERE knowledge_space_id = $1),
             total AS (SELECT count(*) AS c FROM ents),
             pairs AS (SELECT DISTINCT a.id AS s, b.id AS t
                       FROM generate_series(1, $2::int) AS g(i) CROSS JOIN total
                       JOIN ents a ON a.n = 1 + abs(hashtext(g.i::text)::bigint) % total.c
                       JOIN ents b ON b.n = 1 + abs(hashtext(g.i::text || 'b')::bigint) % total.c
                       WHERE a.id <> b.id)
        INSERT INTO graph_relations (organization_id, knowledge_space_id, source_entity_id, target_entity_id, type, source_canonical_id, target_canonical_id)
        SELECT ks.organization_id, ks.id, s, t, 'RELATED_TO', s, t FROM pairs JOIN knowledge_spaces ks ON ks.id = $1
        ON CONFLICT DO NOTHING`, [space.id, Math.max(0, settings.relations - Number(r))])
      await c.query(`
        WITH ch AS (SELECT id, knowledge_asset_id, source_id, row_number() OVER (ORDER BY id) AS n, count(*) OVER () AS c FROM chunks WHERE knowledge_space_id = $1)
        INSERT INTO graph_entity_mentions (entity_id, chunk_id, knowledge_asset_id, source_id, description, acl_generation)
        SELECT e.id, ch.id, ch.knowledge_asset_id, ch.source_id, 'Synthetic description of ' || e.name, 0
        FROM (SELECT id, name, row_number() OVER (ORDER BY id) AS n FROM graph_entities WHERE knowledge_space_id = $1) e
        JOIN ch ON ch.n = 1 + e.n % ch.c
        ON CONFLICT DO NOTHING`, [space.id])
      await c.query(`
        WITH ch AS (SELECT id, knowledge_asset_id, source_id, row_number() OVER (ORDER BY id) AS n, count(*) OVER () AS c FROM chunks WHERE knowledge_space_id = $1)
        INSERT INTO graph_relation_mentions (relation_id, chunk_id, knowledge_asset_id, source_id, description, keywords, weight, acl_generation)
        SELECT r.id, ch.id, ch.knowledge_asset_id, ch.source_id, 'Synthetic relation', '{review}', 1, 0
        FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM graph_relations WHERE knowledge_space_id = $1) r
        JOIN ch ON ch.n = 1 + r.n % ch.c
        ON CONFLICT DO NOTHING`, [space.id])
      await c.query(`UPDATE graph_entities e SET mention_count = (SELECT count(*) FROM graph_entity_mentions m WHERE m.entity_id = e.id) WHERE knowledge_space_id = $1`, [space.id])
      await c.query("VACUUM ANALYZE")
      const final = await c.query(`SELECT (SELECT count(*) FROM graph_entities) AS e, (SELECT count(*) FROM graph_relations) AS r`)
      return { before: { e: Number(e), r: Number(r) }, after: { e: Number(final.rows[0].e), r: Number(final.rows[0].r) } }
    })
    console.log(`Graph: ${extracted.before.e} entities / ${extracted.before.r} relations extracted, grown to ${extracted.after.e} / ${extracted.after.r}`)

    // 3. Explorer over HTTP vs the bare walk.
    const queries = Array.from({ length: settings.queries }, (_, i) => (i % 4 === 0 ? `${pick(FIRST, i)} ${pick(LAST, i * 7)}` : `Synthetic Entity ${1 + ((i * 2654435761) % settings.entities)}`))
    const sizes: Array<number> = []
    const lore2 = await timed(queries.map((q) => async () => {
      const graph = await call("GET", `/api/knowledge-spaces/${space.id}/graph/explorer?q=${encodeURIComponent(q)}&maxDepth=2&entityLimit=50`)
      sizes.push(graph.entities.length)
    }))
    const bare = await withPgClient(databaseUrl, (c) => timed(queries.map((q) => () => c.query(BARE_WALK, [space.id, `%${q}%`]))))
    const mean = sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length)
    console.log(`Explorer (depth 2, entityLimit 50, ${lore2.count} requests, mean ${mean.toFixed(1)} entities returned): p50 ${lore2.p50.toFixed(1)} ms, p95 ${lore2.p95.toFixed(1)} ms`)
    console.log(`Bare walk SQL (no access predicates, no aggregation, pg): p50 ${bare.p50.toFixed(1)} ms, p95 ${bare.p95.toFixed(1)} ms`)
    console.log(`Ratio p95 explorer / bare: ${(lore2.p95 / bare.p95).toFixed(1)}x`)
  } finally {
    await lore.child.stop()
    rmSync(dataDir, { recursive: true, force: true })
    if (process.env.BENCH_GRAPH_KEEP) console.log(`Kept database ${databaseUrl} (BENCH_GRAPH_KEEP)`)
    else await database.drop().catch(() => undefined)
  }
}
