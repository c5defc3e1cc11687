/**
 * Asset recommendations (issue 33.13): ranked in SQL (migration 0040, DeliveryRepo.recommended: BM25 over the
 * releases' indexed title, summary and body) against the in-process BM25 it replaced (lib/recommendations-in-process.ts,
 * which read every usable release's payload into the process and scored it there). Both rank the same released
 * assets, the judged set of packages/server/test/assets/recommendation-judgements.ts plus synthetic distractors
 * (BENCH_RECOMMENDATION_DISTRACTORS, 100: pages of made-up procedures sharing the set's vocabulary). Prints MRR,
 * answers first / in the top 3 / found, and the request time of GET /api/assistant/tools/asset-recommendations
 * (one-shot, over HTTP) beside the in-process scoring time alone (fetching the payloads not counted).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { catalog, judged, measure, rankOf } from "../packages/server/test/assets/recommendation-judgements"
import { createUser, http } from "../packages/server/test/support/http"
import { percentile } from "./lib/latency"
import { table } from "./lib/load"
import { bm25Scores } from "./lib/recommendations-in-process"
import { startLore } from "./lib/search-ingest"

export const description = "asset recommendations: BM25 in SQL vs the in-process BM25 it replaced, on a judged set (MRR, recall) and request time"

const distractorCount = Number(process.env.BENCH_RECOMMENDATION_DISTRACTORS ?? 100)
const rounds = Number(process.env.BENCH_RECOMMENDATION_ROUNDS ?? 5)

/** Made-up procedures from the judged set's own words, so they compete for the same terms. */
const distractors = (count: number) => {
  const words = catalog.flatMap((asset) => `${asset.title} ${asset.summary} ${JSON.stringify(asset.payload)}`.toLowerCase().match(/[a-z]{4,}/g) ?? [])
  let seed = 20261127
  const pick = () => words[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % words.length]!
  const phrase = (n: number) => Array.from({ length: n }, pick).join(" ")
  return Array.from({ length: count }, (_, i) => ({
    id: `distractor-${i}`,
    type: "WORK_INSTRUCTION" as const,
    title: phrase(3),
    summary: phrase(6),
    payload: { purpose: phrase(8), audience: "staff", prerequisites: [], completionOutcome: "done", responsibleRole: "lead", steps: [1, 2, 3].map((n) => ({ key: `s${n}`, title: `Step ${n}`, instruction: phrase(12) })) }
  }))
}

export default async () => {
  const token = `lore_pat_bench${randomBytes(24).toString("base64url")}`
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-recommendations-"))
  const lore = await startLore(dataDir, token, process.env.DATABASE_URL)
  try {
    const url = lore.child.url
    const admin = http(url, token)
    const departmentId = (await admin("POST", "/api/admin/departments", { name: "Bench" })).body.id as string
    const spaceId = (await admin("POST", "/api/admin/knowledge-spaces", { key: "recs", name: "Recommendations" })).body.id as string
    const person = async (email: string, relation: string, roles: Array<string> = []) => {
      const user = await createUser(admin, url, { email, departmentId, clearance: "CONFIDENTIAL" })
      await admin("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation, kind: "USER", subjectId: user.id })
      for (const role of roles) await admin("POST", `/api/admin/roles/${role}/members`, { userId: user.id })
      return user
    }
    const owner = await person("bench-owner@example.com", "contributor")
    const reviewer = await person("bench-reviewer@example.com", "viewer", ["ASSET_REVIEWER"])
    const viewer = await person("bench-viewer@example.com", "viewer")
    const expect2xx = (reply: { status: number; body: any }, what: string) => {
      if (reply.status >= 300) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`)
      return reply.body
    }

    const assets = [...distractors(distractorCount), ...catalog]
    const ids = new Map<string, string>()
    const started = performance.now()
    for (const asset of assets) {
      const draft = { title: asset.title, summary: asset.summary, classification: "INTERNAL", schemaVersion: "1", payload: JSON.stringify(asset.payload) }
      const created = expect2xx(await owner.call("POST", "/api/assets", { type: asset.type, namespace: "bench", slug: asset.id, knowledgeSpaceId: spaceId, draft }), "create")
      const submitted = expect2xx(await owner.call("POST", `/api/assets/${created.id}/submissions`, { changeNote: "ship", lockVersion: created.draft.lockVersion }), "submit")
      expect2xx(await reviewer.call("POST", `/api/assets/${created.id}/reviews/${submitted.reviews[0].id}/decisions`, { decision: "APPROVE", comment: "ok" }), "approve")
      expect2xx(await owner.call("POST", `/api/assets/${created.id}/releases`, { revisionId: submitted.revisions[0].id, versionLabel: "1.0.0" }), "release")
      ids.set(created.id, asset.id)
    }
    console.log(`  released ${assets.length} assets (${catalog.length} judged, ${distractorCount} distractors) in ${((performance.now() - started) / 1000).toFixed(1)} s`)

    const sqlRanks: Array<number> = []
    const sqlTimes: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      for (const [question, answer] of judged) {
        const before = performance.now()
        const reply = expect2xx(await viewer.call("GET", `/api/assistant/tools/asset-recommendations?q=${encodeURIComponent(question)}`), "recommend")
        sqlTimes.push(performance.now() - before)
        if (round === 0) sqlRanks.push(rankOf((reply.recommendations as Array<{ assetId: string }>).map((r) => ids.get(r.assetId)!), answer))
      }
    }

    const rankable = assets.map((asset) => ({ title: asset.title, summary: asset.summary, payload: JSON.stringify(asset.payload) }))
    const processRanks: Array<number> = []
    const processTimes: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      for (const [question, answer] of judged) {
        const before = performance.now()
        const scores = bm25Scores(question, rankable)
        const ranked = assets.map((asset, i) => ({ id: asset.id, score: scores[i]! })).filter((r) => r.score > 0).sort((a, b) => b.score - a.score).map((r) => r.id)
        processTimes.push(performance.now() - before)
        if (round === 0) processRanks.push(rankOf(ranked, answer))
      }
    }

    const row = (name: string, ranks: Array<number>, times: Array<number>, what: string) => {
      const m = measure(ranks)
      const sorted = [...times].sort((a, b) => a - b)
      return [name, m.mrr.toFixed(3), `${m.at1}/${ranks.length}`, `${m.at3}/${ranks.length}`, `${m.found}/${ranks.length}`, percentile(sorted, 0.5).toFixed(2), percentile(sorted, 0.95).toFixed(2), what]
    }
    console.log(`  ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} (times mean little on a busy machine)`)
    console.log(table(
      ["ranking", "MRR", "first", "top 3", "found", "p50 ms", "p95 ms", "time measured"],
      [
        row("SQL BM25 (migration 0040)", sqlRanks, sqlTimes, "whole HTTP request"),
        row("in-process BM25 (before)", processRanks, processTimes, "scoring only, payloads already read")
      ]
    ))
  } finally {
    await lore.child.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
