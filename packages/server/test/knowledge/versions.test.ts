import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { indexStatistics, type InspectableServer, startInspectableServer } from "./inspect"
import { catalog, client, type Client, filler, listAll, search, settled, uploaded } from "./support"

/**
 * Versions under concurrency (what a CLI adding a folder twice, or two people saving the same document,
 * does): concurrent first uploads of one title make one asset; two versions ingested at the same time
 * leave exactly one of them searchable, the newest; BM25 statistics stay exact. PGlite serializes
 * everything on its one connection; PostgreSQL (DATABASE_URL) is where the races are real.
 */
describe("versions uploaded and ingested concurrently", { timeout: 180_000 }, () => {
  let server: InspectableServer
  let admin: Client
  let space: string

  /** A document of many sections, so its ingestion transaction takes a while; `word` marks the version. */
  const document = (word: string, tag: string) =>
    Array.from({ length: 20 }, (_, s) => `## Section ${s}\n\nThe ${word} clause ${s} of ${tag} applies. ${filler(`subject${s}`, 25)}`).join("\n\n")

  beforeAll(async () => {
    server = await startInspectableServer()
    admin = client(server.url, server.adminToken)
    space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "concurrent", name: "Concurrent" })).body.id
  })
  afterAll(() => server?.dispose())

  it("concurrent first uploads of one title make one asset, and identical bytes one version", async () => {
    const same = await Promise.all(
      Array.from({ length: 4 }, () => uploaded(admin, { spaceId: space, name: "same.md", bytes: "# Same\n\nIdentical bytes, uploaded four times at once.", type: "text/markdown" }))
    )
    expect(new Set(same.map((s) => s.id)).size).toBe(1)
    expect(same[0]!.versionNumber).toBe(1)

    const different = await Promise.all(
      Array.from({ length: 4 }, (_, i) => uploaded(admin, { spaceId: space, name: "draft.md", bytes: `# Draft\n\nDraft number ${i}.`, type: "text/markdown" }))
    )
    expect(new Set(different.map((s) => s.knowledgeAssetId)).size).toBe(1)
    expect(different.map((s) => s.versionNumber).sort()).toEqual([1, 2, 3, 4])
    for (const source of [...same, ...different]) await settled(admin, source.id)
    const listed = (await listAll(admin, { knowledgeSpaceId: space })).items
    expect(listed.filter((s) => s.title === "same")).toHaveLength(1)
    expect(listed.filter((s) => s.title === "draft")).toHaveLength(4)
    const [entry, ...more] = (await catalog(admin, { knowledgeSpaceId: space })).filter((e) => e.title === "draft")
    expect(more).toEqual([])
    expect(entry!.versionNumber).toBe(4)
    // Only the newest ready version answers.
    const drafts = (await search(admin, "draft number")).filter((e) => e.knowledgeAssetId === different[0]!.knowledgeAssetId)
    expect(drafts.map((e) => e.knowledgeAssetVersionId)).toEqual([different.find((s) => s.versionNumber === 4)!.id])
  })

  it("two versions ingested at the same time leave only the newest searchable", async () => {
    const rounds = 12
    const assets: Array<{ v1: string; v2: string; asset: string; tag: string }> = []
    for (let round = 0; round < rounds; round++) {
      const name = `manual-${round}.md`
      // v2 follows v1 at once, so both ingestion jobs run side by side on two workers.
      const [v1, v2] = await Promise.all([
        uploaded(admin, { spaceId: space, name, bytes: document("zebraone", `handbook${round}x`), type: "text/markdown" }),
        new Promise((resolve) => setTimeout(resolve, round % 4)).then(() => uploaded(admin, { spaceId: space, name, bytes: document("zebratwo", `handbook${round}x`), type: "text/markdown" }))
      ])
      expect(v2.knowledgeAssetId).toBe(v1.knowledgeAssetId)
      await settled(admin, v1.id)
      await settled(admin, v2.id)
      const [older, newer] = v1.versionNumber < v2.versionNumber ? [v1, v2] : [v2, v1]
      assets.push({ v1: older.id, v2: newer.id, asset: v1.knowledgeAssetId, tag: `handbook${round}x` })
    }
    const served = await server.sql((sql) =>
      sql<{ asset: string; sources: number }>`
        SELECT knowledge_asset_id AS asset, count(DISTINCT source_id)::int AS sources FROM chunks WHERE searchable GROUP BY 1`
    )
    for (const { asset, v2, tag } of assets) {
      expect(served.find((row) => row.asset === asset)?.sources, asset).toBe(1)
      const evidence = (await search(admin, `zebraone zebratwo ${tag}`, { limit: 50 })).filter((e) => e.knowledgeAssetId === asset)
      expect(evidence.length).toBeGreaterThan(0)
      expect(new Set(evidence.map((e) => e.knowledgeAssetVersionId))).toEqual(new Set([v2]))
    }
    const { actual, stored } = await indexStatistics(server)
    expect(stored.corpus).toEqual(actual.corpus)
    expect(stored.terms).toEqual(actual.terms)
    expect(stored.partitions).toEqual(actual.partitions)
    expect(stored.postings).toEqual(actual.postings)
  })
})
