import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { catalog, judged, measure, rankOf } from "./recommendation-judgements"
import { createAsset, draftOf, ok, type Person, startWorld, type World } from "./support"

/**
 * Issue 33.13: recommendations ranked by the database (migration 0040, DeliveryRepo.recommended): BM25 over
 * title, summary and body of the latest released version of each asset the caller may use. Measured on the small
 * judged set (recommendation-judgements.ts; bench/recommendations.ts compares it with the in-process ranking it
 * replaces): every answer found, at least 8 of 10 first. Hostile requests (tsquery syntax, quotes, backslashes,
 * a long request) answer 200; classification above the caller's clearance is never recommended.
 */

describe("asset recommendations ranked in SQL", { timeout: 240_000 }, () => {
  let world: World
  let owner: Person
  let reviewer: Person
  let viewer: Person
  let internalOnly: Person
  const ids = new Map<string, string>()

  const release = async (body: Record<string, unknown>) => {
    const asset = await createAsset(owner, body)
    const submitted = await ok(owner.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "ship", lockVersion: asset.draft.lockVersion }), 201)
    await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${submitted.reviews[0].id}/decisions`, { decision: "APPROVE", comment: "ok" }))
    await ok(owner.call("POST", `/api/assets/${asset.id}/releases`, { revisionId: submitted.revisions[0].id, versionLabel: "1.0.0" }), 201)
    return asset.id as string
  }

  beforeAll(async () => {
    world = await startWorld()
    owner = await world.person("rec-owner@example.com")
    reviewer = await world.person("rec-reviewer@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
    viewer = await world.person("rec-viewer@example.com", { relation: "viewer" })
    internalOnly = await world.person("rec-internal@example.com", { relation: "viewer", clearance: "STANDARD" })
    for (const asset of catalog) {
      const draft = draftOf(asset.payload, { title: asset.title, summary: asset.summary })
      ids.set(await release({ type: asset.type, namespace: "rec", slug: asset.id, knowledgeSpaceId: world.spaceId, draft }), asset.id)
    }
    ids.set(await release({ type: "WORK_INSTRUCTION", namespace: "rec", slug: "secret-pager", knowledgeSpaceId: world.spaceId, draft: draftOf(catalog[0]!.payload, { title: "Pager rotation for the board", summary: "Confidential pager", classification: "CONFIDENTIAL" }) }), "secret-pager")
  })
  afterAll(async () => world.server.dispose())

  const ranked = async (who: Person, q: string) => {
    const found = await ok(who.call("GET", `/api/assistant/tools/asset-recommendations?q=${encodeURIComponent(q)}`))
    return (found.recommendations as Array<{ assetId: string }>).map((r) => ids.get(r.assetId)!)
  }

  it("finds every judged answer, most of them first", async () => {
    const ranks = []
    for (const [question, answer] of judged) ranks.push(rankOf(await ranked(viewer, question), answer))
    const figures = measure(ranks)
    console.log(`recommendations (SQL BM25) on ${judged.length} judged questions: MRR ${figures.mrr.toFixed(2)}, first ${figures.at1}, top 3 ${figures.at3}, found ${figures.found}`)
    expect(figures.found).toBe(judged.length)
    expect(figures.at1).toBeGreaterThanOrEqual(8)
  })

  it("lists every usable release newest first for a request without terms, and only releases sharing a term otherwise", async () => {
    const all = await ranked(viewer, "how do I the")
    expect(all).toHaveLength(catalog.length + 1)
    expect(all[0]).toBe("secret-pager")
    expect(await ranked(viewer, "laptop")).toEqual(["onboarding"])
    expect(await ranked(viewer, "zebra")).toEqual([])
  })

  it("ranks the title above the body, and keeps classification above the caller's clearance out", async () => {
    expect((await ranked(viewer, "pager")).slice(0, 2).sort()).toEqual(["pager", "secret-pager"])
    expect(await ranked(internalOnly, "pager")).toEqual(["pager"])
  })

  it("reads hostile requests as words, never as tsquery syntax", async () => {
    for (const q of ["pager & | ! :* ( <-> )", "o'neil\\ 'pager'", "\\\\'", "pager ".repeat(80), "!!!"]) {
      const reply = await viewer.call("GET", `/api/assistant/tools/asset-recommendations?q=${encodeURIComponent(q)}`)
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    }
    expect(await ranked(viewer, "'pager' & !onboarding")).toContain("pager")
  })
})
