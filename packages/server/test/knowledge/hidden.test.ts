import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Backend,
  backends,
  catalog,
  client,
  type Client,
  expectProblemReply,
  filler,
  getRaw,
  ingested,
  listAll,
  search,
  searchReply,
  settled,
  uploaded,
  userClient
} from "./support"

/**
 * Hidden documents must not show through (issue 10 points 14, 16, 17): an upload whose title equals a
 * document the uploader cannot read neither reveals nor supersedes it; every read path shows a caller an
 * asset only through its current version; BM25 scores do not move when documents the caller cannot read
 * are added. On PGlite, and on PostgreSQL when DATABASE_URL is set.
 */
describe.each(backends)("hidden documents on $name", { timeout: 300_000 }, (backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let admin: Client
  let sam: Client & { id: string }
  let shared: string
  let sealed: string

  const explain = async (userId: string, resourceType: string, resourceId: string) => {
    const reply = await admin.call("POST", "/api/admin/access/explain", { userId, resourceType, resourceId })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    return reply.body as { state: string; reasonCode: string }
  }

  beforeAll(async () => {
    server = await backend.start()
    admin = client(server.url, server.adminToken)
    const department = (await admin.call("POST", "/api/admin/departments", { name: "Floor" })).body.id
    shared = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "shared", name: "Shared" })).body.id
    sealed = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "sealed", name: "Sealed" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${shared}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    // Sam reads PUBLIC and INTERNAL (STANDARD clearance) and may add to the shared space.
    sam = await userClient(admin.call, server.url, { email: "sam@example.com", departmentId: department, clearance: "STANDARD" })
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${shared}/grants`, { relation: "contributor", kind: "USER", subjectId: sam.id })).status).toBe(204)
  }, 120_000)
  afterAll(() => server?.dispose())

  it("an upload titled like a document the uploader cannot read neither reveals nor supersedes it", async () => {
    const secret = await ingested(admin, {
      spaceId: shared, name: "plan.md", title: "Merger plan", classification: "RESTRICTED", type: "text/markdown",
      bytes: `# Merger plan\n\nThe zqmergerrestricted terms stay secret. ${filler("mergers", 2)}`
    })
    const mine = await uploaded(sam, {
      spaceId: shared, name: "plan.md", title: "Merger plan", classification: "INTERNAL", type: "text/markdown",
      bytes: `# Merger plan\n\nThe zqmergerinternal picnic is on Friday. ${filler("picnics", 2)}`
    })
    // A document of its own: nothing in the answer points at the hidden one.
    expect(mine.knowledgeAssetId).not.toBe(secret.knowledgeAssetId)
    expect(mine.versionNumber).toBe(1)
    expect(JSON.stringify(mine)).not.toContain(secret.knowledgeAssetId)
    expect(JSON.stringify(mine)).not.toContain(secret.id)
    await settled(sam, mine.id)

    // The hidden document is still what its readers get, unchanged.
    expect((await search(admin, "zqmergerrestricted")).map((e) => e.knowledgeAssetVersionId)).toEqual([secret.id])
    const plans = (await catalog(admin, { knowledgeSpaceId: shared })).filter((e) => e.title === "Merger plan")
    expect(plans.map((e) => e.knowledgeVersionId).sort()).toEqual([secret.id, mine.id].sort())
    // Sam sees their own only.
    expect((await catalog(sam, { knowledgeSpaceId: shared })).filter((e) => e.title === "Merger plan").map((e) => e.knowledgeVersionId)).toEqual([mine.id])
    expect(await search(sam, "zqmergerrestricted")).toEqual([])

    // Sam's next upload of the title is version 2 of Sam's document.
    const second = await ingested(sam, {
      spaceId: shared, name: "plan.md", title: "merger PLAN", classification: "INTERNAL", type: "text/markdown",
      bytes: `# Merger plan\n\nThe zqmergerinternal picnic moves to Saturday. ${filler("picnics", 2)}`
    })
    expect(second).toMatchObject({ knowledgeAssetId: mine.knowledgeAssetId, versionNumber: 2 })
    // The admin, who reads both, versions their own.
    const update = await ingested(admin, {
      spaceId: shared, name: "plan.md", title: "Merger plan", classification: "RESTRICTED", type: "text/markdown",
      bytes: `# Merger plan\n\nThe zqmergerrestricted terms changed. ${filler("mergers", 2)}`
    })
    expect(update).toMatchObject({ knowledgeAssetId: secret.knowledgeAssetId, versionNumber: 2 })
    expect((await search(sam, "zqmergerinternal")).map((e) => e.knowledgeAssetVersionId)).toEqual([second.id])
  })

  it("concurrent first uploads of a new title by two people make one document", async () => {
    const bodies = ["one", "two", "three", "four"]
    const made = await Promise.all(bodies.map((word, i) =>
      uploaded(i % 2 === 0 ? admin : sam, {
        spaceId: shared, name: "rota.md", classification: "INTERNAL", type: "text/markdown", bytes: `# Rota\n\nRota ${word}.`
      })))
    expect(new Set(made.map((s) => s.knowledgeAssetId)).size).toBe(1)
    expect(made.map((s) => s.versionNumber).sort()).toEqual([1, 2, 3, 4])
    for (const source of made) await settled(admin, source.id)
  })

  it("a caller sees an asset only through its current version, on every read path and in the explanation", async () => {
    // Raised: v1 INTERNAL, then v2 RESTRICTED. Sam could read v1, and must now see nothing of the asset.
    const v1 = await ingested(admin, {
      spaceId: shared, name: "pricing.md", classification: "INTERNAL", type: "text/markdown",
      bytes: `# Pricing\n\nThe zqpricingold list price is ten. ${filler("prices", 2)}`
    })
    const [citation] = await search(sam, "zqpricingold")
    expect(citation?.knowledgeAssetVersionId).toBe(v1.id)
    const v2 = await ingested(admin, {
      spaceId: shared, name: "pricing.md", classification: "RESTRICTED", type: "text/markdown",
      bytes: `# Pricing\n\nThe zqpricingnew list price is secret. ${filler("prices", 2)}`
    })
    expect(v2).toMatchObject({ knowledgeAssetId: v1.knowledgeAssetId, versionNumber: 2 })

    expect((await catalog(sam)).filter((e) => e.knowledgeAssetId === v1.knowledgeAssetId)).toEqual([])
    expect((await listAll(sam)).items.filter((s) => s.knowledgeAssetId === v1.knowledgeAssetId)).toEqual([])
    expectProblemReply(await sam.call("GET", `/api/sources/${v1.id}`), 404, "SOURCE_NOT_FOUND")
    expect((await getRaw(sam, `/api/sources/${v1.id}/content`)).status).toBe(404)
    expectProblemReply(await sam.call("DELETE", `/api/sources/${v1.id}`), 404, "SOURCE_NOT_FOUND")
    expectProblemReply(await sam.call("GET", `/api/citations/${citation!.citationId}/excerpt`), 404, "CITATION_NOT_FOUND")
    expect((await getRaw(sam, `/api/citations/${citation!.citationId}/content`)).status).toBe(404)
    expect(await search(sam, "zqpricingold zqpricingnew")).toEqual([])
    for (const [type, id] of [["KNOWLEDGE_ASSET", v1.knowledgeAssetId], ["SOURCE", v1.id], ["SOURCE", v2.id]] as const) {
      expect(await explain(sam.id, type, id), `${type} ${id}`).toMatchObject({ state: "DENIED", reasonCode: "CLEARANCE_TOO_LOW" })
    }
    // Those who read the current version still see the history.
    expect((await catalog(admin)).filter((e) => e.knowledgeAssetId === v1.knowledgeAssetId).map((e) => e.knowledgeVersionId)).toEqual([v2.id])
    expect((await listAll(admin)).items.filter((s) => s.knowledgeAssetId === v1.knowledgeAssetId).map((s) => s.id).sort()).toEqual([v1.id, v2.id].sort())
    expect((await admin.call("GET", `/api/citations/${citation!.citationId}/excerpt`)).status).toBe(200)

    // Lowered: v1 RESTRICTED, then v2 INTERNAL. Sam sees the asset through v2, and never v1.
    const r1 = await ingested(admin, {
      spaceId: shared, name: "roadmap.md", classification: "RESTRICTED", type: "text/markdown",
      bytes: `# Roadmap\n\nThe zqroadmapold plans are secret. ${filler("roadmaps", 2)}`
    })
    const r2 = await ingested(admin, {
      spaceId: shared, name: "roadmap.md", classification: "INTERNAL", type: "text/markdown",
      bytes: `# Roadmap\n\nThe zqroadmapnew plans are public inside. ${filler("roadmaps", 2)}`
    })
    expect((await catalog(sam)).filter((e) => e.knowledgeAssetId === r1.knowledgeAssetId).map((e) => e.knowledgeVersionId)).toEqual([r2.id])
    expect((await listAll(sam)).items.filter((s) => s.knowledgeAssetId === r1.knowledgeAssetId).map((s) => s.id)).toEqual([r2.id])
    expectProblemReply(await sam.call("GET", `/api/sources/${r1.id}`), 404, "SOURCE_NOT_FOUND")
    expect((await search(sam, "zqroadmapold zqroadmapnew")).map((e) => e.knowledgeAssetVersionId)).toEqual([r2.id])
    expect(await explain(sam.id, "KNOWLEDGE_ASSET", r1.knowledgeAssetId)).toMatchObject({ state: "ALLOWED" })
    expect(await explain(sam.id, "SOURCE", r2.id)).toMatchObject({ state: "ALLOWED" })
    expect(await explain(sam.id, "SOURCE", r1.id)).toMatchObject({ state: "DENIED", reasonCode: "CLEARANCE_TOO_LOW" })

    // Once a newer RESTRICTED version is READY, it is current, and the asset is gone for Sam again.
    const r3 = await uploaded(admin, {
      spaceId: shared, name: "roadmap.md", classification: "RESTRICTED", type: "text/markdown",
      bytes: `# Roadmap\n\nThe zqroadmapnewest plans. ${filler("roadmaps", 2)}`
    })
    await settled(admin, r3.id)
    expect((await catalog(sam)).filter((e) => e.knowledgeAssetId === r1.knowledgeAssetId)).toEqual([])
    expect(await explain(sam.id, "SOURCE", r2.id)).toMatchObject({ state: "DENIED", reasonCode: "CLEARANCE_TOO_LOW" })
  })

  it("BM25 scores do not move when 100 documents the caller cannot read, full of the query's terms, are added", async () => {
    const query = "glacier tariff quota for harbour pilots"
    const visibleTopics = [
      "Glacier tariffs are reviewed each spring by the harbour office.",
      "The quota for harbour pilots is set per season.",
      "Pilots report tariff changes to the glacier desk.",
      "Canteen menus change on Mondays.",
      "Harbour pilots renew their licence every two years."
    ]
    for (const [i, text] of visibleTopics.entries()) {
      await ingested(admin, { spaceId: shared, name: `harbour-${i}.txt`, classification: "INTERNAL", type: "text/plain", bytes: `${text} ${filler(`notes${i}`, 2)}` })
    }
    const scores = async (who: Client, filters: Record<string, string> = {}) =>
      (await searchReply(who, query, { limit: 20, ...filters })).evidence.map((e) => ({ id: e.citationId, score: e.relevanceScore }))
    // The admin's control sees the same passages as Sam (filtered), but reads every partition.
    const sameAsSam = { knowledgeSpaceId: shared, classification: "INTERNAL" }
    const samBefore = await scores(sam)
    const adminBefore = await scores(admin, sameAsSam)
    expect(samBefore.length).toBeGreaterThanOrEqual(4)

    // 50 in a space Sam has no grant on, 50 in Sam's space above Sam's clearance: all hammering the query's terms.
    const hidden = (i: number) => `Glacier tariff quota harbour pilots ${i}: glacier glacier tariff tariff quota quota pilots harbour.`
    const uploads = Array.from({ length: 100 }, (_, i) => ({
      spaceId: i < 50 ? sealed : shared,
      name: `hidden-${i}.txt`,
      classification: i < 50 ? "INTERNAL" : "CONFIDENTIAL",
      type: "text/plain",
      bytes: hidden(i)
    }))
    for (let start = 0; start < uploads.length; start += 10) {
      const batch = await Promise.all(uploads.slice(start, start + 10).map((input) => uploaded(admin, input)))
      for (const source of batch) expect((await settled(admin, source.id)).status).toBe("READY")
    }

    expect(await scores(sam)).toEqual(samBefore)
    // The same passages score differently for a caller who may read the new documents: the test can tell.
    const adminAfter = await scores(admin, sameAsSam)
    expect(adminAfter.map((hit) => hit.id).sort()).toEqual(adminBefore.map((hit) => hit.id).sort())
    for (const hit of adminAfter) expect(hit.score).not.toBe(adminBefore.find((before) => before.id === hit.id)!.score)
  })
})
