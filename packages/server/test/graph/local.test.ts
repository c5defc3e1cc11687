import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, client, type Client, eventually, ingested, userClient } from "../knowledge/support"
import { entityNamed, explore, graphIndex, indexed, jobSettled, names } from "./support"

/**
 * The graph with the LOCAL extractor (compromise), end to end over HTTP: extraction and projection, the
 * permission-safe explorer (two users with different grants and clearances see different subgraphs,
 * descriptions and citations), entityLimit/maxDepth/truncated, exports, curations that survive re-extraction
 * of a changed document, stale authorizationGeneration.
 */

const DOC_A = "Alice Johnson works at Acme Corporation in Paris. Alice Johnson met Bob Smith in Berlin."
const DOC_A2 = "Alice Johnson moved to Madrid and joined Globex Corporation with Bob Smith."
const DOC_B = "Carol Danvers leads Zenith Labs in Tokyo. Carol Danvers met Alice Johnson in Tokyo."
const DOC_C = "Dmitri Volkov runs Borealis Shipping in Oslo. Dmitri Volkov visited Acme Corporation."

describe.each(backends)("knowledge graph (LOCAL) on $name", { timeout: 240_000 }, (backend: Backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let admin: Client
  let low: Client & { id: string }
  let high: Client & { id: string }
  let curator: Client & { id: string }
  const spaces: Record<string, string> = {}
  const assets: Record<string, any> = {}

  beforeAll(async () => {
    server = await backend.start()
    admin = client(server.url, server.adminToken)
    const departments: Record<string, string> = {}
    for (const name of ["Red", "Blue"]) departments[name] = (await admin.call("POST", "/api/admin/departments", { name })).body.id
    for (const key of ["open", "red"]) spaces[key] = (await admin.call("POST", "/api/admin/knowledge-spaces", { key, name: key })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.open}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.red}/grants`, { relation: "viewer", kind: "DEPARTMENT", subjectId: departments.Red })).status).toBe(204)
    low = await userClient(admin.call, server.url, { email: "low@example.com", departmentId: departments.Blue!, clearance: "STANDARD" })
    high = await userClient(admin.call, server.url, { email: "high@example.com", departmentId: departments.Red!, clearance: "CONFIDENTIAL" })
    curator = await userClient(admin.call, server.url, { email: "curator@example.com", departmentId: departments.Blue!, clearance: "STANDARD" })
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.open}/grants`, { relation: "curator", kind: "USER", subjectId: curator.id })).status).toBe(204)

    assets.a = await ingested(admin, { spaceId: spaces.open!, name: "people.txt", title: "People", bytes: DOC_A, classification: "PUBLIC", type: "text/plain" })
    assets.b = await ingested(admin, { spaceId: spaces.open!, name: "secret.txt", title: "Secret", bytes: DOC_B, classification: "CONFIDENTIAL", type: "text/plain" })
    assets.c = await ingested(admin, { spaceId: spaces.red!, name: "red.txt", title: "Red", bytes: DOC_C, classification: "PUBLIC", type: "text/plain" })
    for (const key of ["a", "b", "c"]) await indexed(admin, assets[key]!.knowledgeAssetId)
  })
  afterAll(async () => server?.dispose())

  it("extracts people, places and organizations with LOCAL and records the hashed processing profile", async () => {
    const job = await graphIndex(admin, assets.a!.knowledgeAssetId)
    const done = await jobSettled(admin, job.id)
    expect(done).toMatchObject({ status: "SUCCEEDED", extractor: "LOCAL", knowledgeAssetId: assets.a!.knowledgeAssetId, knowledgeAssetVersionId: assets.a!.id, sourceRevisionId: assets.a!.id, attempt: 1, cancellationRequested: false })
    expect(done.graphProcessingProfileSha256).toMatch(/^[0-9a-f]{64}$/)
    expect(done.projectionGeneration).toBeGreaterThanOrEqual(2)
    expect(done.completedAt).toBeTruthy()

    const graph = await explore(admin, spaces.open!, { q: "Alice Johnson", maxDepth: 1 })
    const alice = entityNamed(graph, "Alice Johnson")!
    expect(alice).toMatchObject({ type: "PERSON", depth: 0 })
    expect(names(graph)).toEqual(expect.arrayContaining(["Acme Corporation", "Paris", "Bob Smith", "Berlin"]))
    expect(entityNamed(graph, "Acme Corporation")!.type).toBe("ORGANIZATION")
    expect(entityNamed(graph, "Paris")!.type).toBe("LOCATION")
    const relation = graph.relations.find((r) => [r.sourceEntityId, r.targetEntityId].includes(alice.id))!
    expect(relation.type).toBe("CO_OCCURS_WITH")
    expect(relation.citationChunkIds.length).toBeGreaterThan(0)
    expect(alice.governingEvidence).toMatchObject({ chunk: true, knowledgeAssetId: expect.any(String), chunkId: expect.any(String) })
    expect(graph.canCurate).toBe(true)
    expect(typeof graph.authorizationGeneration).toBe("number")
  })

  it("lets only contributors index, and shows a job only to who may see its version", async () => {
    const denied = await low.call("POST", `/api/knowledge-assets/${assets.a!.knowledgeAssetId}/graph-index`)
    expect(denied.status).toBe(403)
    expect(denied.body.code).toBe("NOT_A_GRAPH_INDEXER")
    expect((await low.call("POST", `/api/knowledge-assets/${assets.b!.knowledgeAssetId}/graph-index`)).body.code).toBe("KNOWLEDGE_ASSET_NOT_FOUND")
    const job = await graphIndex(admin, assets.b!.knowledgeAssetId)
    await jobSettled(admin, job.id)
    expect((await high.call("GET", `/api/knowledge-assets/graph-jobs/${job.id}`)).status).toBe(200)
    expect((await low.call("GET", `/api/knowledge-assets/graph-jobs/${job.id}`)).body.code).toBe("GRAPH_JOB_NOT_FOUND")
    expect((await low.call("GET", "/api/knowledge-assets/graph-jobs/not-a-uuid")).status).toBe(400)
  })

  it("shows each user only the entities, descriptions and citations of chunks they may read", async () => {
    const everything = await explore(high, spaces.open!, { q: "Alice Johnson", maxDepth: 2, entityLimit: 100 })
    const partial = await explore(low, spaces.open!, { q: "Alice Johnson", maxDepth: 2, entityLimit: 100 })
    expect(names(everything)).toEqual(expect.arrayContaining(["Carol Danvers", "Zenith Labs", "Tokyo", "Acme Corporation"]))
    for (const hidden of ["Carol Danvers", "Zenith Labs", "Tokyo"]) expect(names(partial)).not.toContain(hidden)
    const aliceHigh = entityNamed(everything, "Alice Johnson")!
    const aliceLow = entityNamed(partial, "Alice Johnson")!
    expect(aliceHigh.citationChunkIds.length).toBeGreaterThan(aliceLow.citationChunkIds.length)
    expect(JSON.stringify(partial)).not.toMatch(/Carol|Zenith|Tokyo/)
    expect(partial.canCurate).toBe(false)
    // Nothing of the red space for a user without a grant on it; the red department's user sees it.
    expect((await low.call("GET", `/api/knowledge-spaces/${spaces.red}/graph/explorer?q=Dmitri`)).status).toBe(404)
    expect(names(await explore(high, spaces.red!, { q: "Dmitri" }))).toContain("Dmitri Volkov")
    // A query matching only invisible evidence finds nothing.
    expect((await explore(low, spaces.open!, { q: "Zenith" })).entities).toEqual([])
  })

  it("bounds the result by entityLimit and maxDepth and says when it was cut", async () => {
    const seedsOnly = await explore(high, spaces.open!, { q: "Alice Johnson", maxDepth: 0 })
    // Matches by name first, then by description (the sentences naming Alice); no neighbours at depth 0.
    expect(seedsOnly.entities[0]!.name).toBe("Alice Johnson")
    expect(seedsOnly.entities.every((e) => e.depth === 0)).toBe(true)
    expect(seedsOnly.relations.every((r) => seedsOnly.entities.some((e) => e.id === r.sourceEntityId))).toBe(true)
    expect(seedsOnly.truncated).toBe(false)
    const twoHops = await explore(high, spaces.open!, { q: "Bob Smith", maxDepth: 2, entityLimit: 100 })
    const oneHop = await explore(high, spaces.open!, { q: "Bob Smith", maxDepth: 1, entityLimit: 100 })
    expect(names(twoHops)).toContain("Carol Danvers") // Bob -> Alice -> Carol
    expect(names(oneHop)).not.toContain("Carol Danvers")
    expect(Math.max(...twoHops.entities.map((e) => e.depth))).toBe(2)
    const cut = await explore(high, spaces.open!, { q: "Alice Johnson", maxDepth: 2, entityLimit: 3 })
    expect(cut.entities).toHaveLength(3)
    expect(cut.truncated).toBe(true)
    expect(cut.entities[0]!.name).toBe("Alice Johnson")
    for (const r of cut.relations) {
      expect(cut.entities.map((e) => e.id)).toEqual(expect.arrayContaining([r.sourceEntityId, r.targetEntityId]))
    }
    expect((await high.call("GET", `/api/knowledge-spaces/${spaces.open}/graph/explorer?entityLimit=0`)).status).toBe(400)
    expect((await high.call("GET", `/api/knowledge-spaces/${spaces.open}/graph/explorer?maxDepth=9`)).status).toBe(400)
  })

  it("exports in all four formats only what the caller may see", async () => {
    for (const format of ["JSON", "CSV", "MARKDOWN", "TEXT"]) {
      const response = await fetch(`${server.url}/api/knowledge-spaces/${spaces.open}/graph/export?format=${format}&maxDepth=2`, {
        headers: { authorization: `Bearer ${low.token}`, "x-request-id": `export-${format}` }
      })
      expect(response.status).toBe(200)
      expect(response.headers.get("x-request-id")).toBe(`export-${format}`)
      const body = await response.text()
      expect(body).toContain("Alice Johnson")
      expect(body).not.toMatch(/Carol|Zenith|Tokyo|Dmitri/)
      if (format === "MARKDOWN") expect(body).toContain("```mermaid")
      if (format === "CSV") expect(body).toMatch(/^# entities\r\nid,name,type/)
      if (format === "JSON") expect(JSON.parse(body).entities.length).toBeGreaterThan(0)
    }
    const full = await (await fetch(`${server.url}/api/knowledge-spaces/${spaces.open}/graph/export?format=TEXT&maxDepth=2`, { headers: { authorization: `Bearer ${high.token}` } })).text()
    expect(full).toContain("Carol Danvers")
    expect((await low.call("GET", `/api/knowledge-spaces/${spaces.open}/graph/export?format=PDF`)).status).toBe(400)
  })

  it("keeps every kind of curation across re-extraction of a changed document, and audits them", async () => {
    const before = await explore(curator, spaces.open!, { q: "", maxDepth: 0, entityLimit: 100 })
    const alice = entityNamed(before, "Alice Johnson")!
    const bob = entityNamed(before, "Bob Smith")!
    const berlin = entityNamed(before, "Berlin")!
    const paris = entityNamed(before, "Paris")!
    // Non-curators may not curate.
    expect((await low.call("POST", `/api/knowledge-spaces/${spaces.open}/graph/curations/suppressions`, { kind: "ENTITY", id: berlin.id })).body.code).toBe("NOT_A_GRAPH_CURATOR")

    const post = async (kind: string, body: unknown) => {
      const reply = await curator.call("POST", `/api/knowledge-spaces/${spaces.open}/graph/curations/${kind}`, body)
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
      return reply.body
    }
    const corrected = await post("entities", { entityId: alice.id, name: "Dr. Alice Johnson", type: "PERSON", description: "Chief scientist", reason: "title" })
    expect(corrected.provenance).toMatchObject({ actorUserId: curator.id, authorizationModelId: "lore-access-1", reason: "title" })
    expect(corrected.entity).toEqual({ kind: "ENTITY", id: alice.id })
    const added = await post("entities", { name: "Project Nightingale", type: "TOPIC", description: "An internal project" })
    const relation = await post("relations", { sourceEntityId: alice.id, targetEntityId: added.entity.id, type: "LEADS", description: "Alice leads it" })
    const alias = await post("aliases", { entityId: paris.id, intoEntityId: berlin.id, reason: "test merge" })
    const suppressed = await post("suppressions", { kind: "ENTITY", id: bob.id, reason: "not relevant" })

    const check = async () => {
      const graph = await explore(low, spaces.open!, { q: "", maxDepth: 0, entityLimit: 100 })
      const all = names(graph)
      expect(all).toContain("Dr. Alice Johnson")
      expect(all).toContain("Project Nightingale")
      expect(all).not.toContain("Paris")
      expect(all).not.toContain("Bob Smith")
      expect(all.filter((n) => n === "Dr. Alice Johnson")).toHaveLength(1)
      expect(entityNamed(graph, "Dr. Alice Johnson")!.description).toBe("Chief scientist")
      const wide = await explore(low, spaces.open!, { q: "Dr. Alice Johnson", maxDepth: 1, entityLimit: 100 })
      expect(wide.relations.some((r) => r.type === "LEADS")).toBe(true)
      // The merged entity answers for its alias's name.
      const paris = await explore(low, spaces.open!, { q: "Paris", maxDepth: 0 })
      expect(paris.entities[0]!.name).toBe("Berlin")
      expect(names(paris)).not.toContain("Paris")
      return graph
    }
    await check()

    // A changed document: a new version of the same asset (the same title), then re-extraction.
    const v2 = await ingested(admin, { spaceId: spaces.open!, name: "people-v2.txt", title: "People", bytes: `${DOC_A2} ${DOC_A}`, classification: "PUBLIC", type: "text/plain" })
    expect(v2.knowledgeAssetId).toBe(assets.a!.knowledgeAssetId)
    await indexed(admin, assets.a!.knowledgeAssetId)
    const after = await check()
    expect(names(after)).toContain("Madrid")
    // Re-extraction again (same document) neither loses nor duplicates them.
    await indexed(admin, assets.a!.knowledgeAssetId)
    await check()
    const listed = (await curator.call("GET", `/api/knowledge-spaces/${spaces.open}/graph/curations`)).body as Array<any>
    expect(listed.map((c) => c.id).sort()).toEqual([corrected.id, added.id, relation.id, alias.id, suppressed.id].sort())
    expect(listed.every((c) => c.dangling === false)).toBe(true)

    // A third version without Berlin and Paris: the alias is kept and reported dangling.
    await ingested(admin, { spaceId: spaces.open!, name: "people-v3.txt", title: "People", bytes: DOC_A2, classification: "PUBLIC", type: "text/plain" })
    await indexed(admin, assets.a!.knowledgeAssetId)
    const later = (await curator.call("GET", `/api/knowledge-spaces/${spaces.open}/graph/curations`)).body as Array<any>
    expect(later.find((c) => c.id === alias.id)?.dangling).toBe(true)
    expect(later.find((c) => c.id === corrected.id)?.dangling).toBe(false)

    const audit = (await admin.call("GET", "/api/admin/audit?action=graph.curation.create")).body
    expect(JSON.stringify(audit)).toContain(alias.id)
  })

  it("refuses to delete a curation with a stale authorizationGeneration (409), then deletes it", async () => {
    const graph = await explore(curator, spaces.open!, { q: "Madrid", maxDepth: 0 })
    const madrid = entityNamed(graph, "Madrid")!
    const curation = (await curator.call("POST", `/api/knowledge-spaces/${spaces.open}/graph/curations/suppressions`, { kind: "ENTITY", id: madrid.id })).body
    expect(names(await explore(low, spaces.open!, { q: "Madrid", maxDepth: 0 }))).not.toContain("Madrid")
    const generation = graph.authorizationGeneration
    // Any grant change raises the generation.
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.red}/grants`, { relation: "viewer", kind: "USER", subjectId: curator.id })).status).toBe(204)
    const stale = await curator.call("DELETE", `/api/knowledge-spaces/${spaces.open}/graph/curations/${curation.id}?authorizationGeneration=${generation}&reason=undo`)
    expect(stale.status).toBe(409)
    expect(stale.body.code).toBe("STALE_AUTHORIZATION_GENERATION")
    const fresh = (await explore(curator, spaces.open!, { q: "Madrid" })).authorizationGeneration
    expect(fresh).toBeGreaterThan(generation)
    expect((await curator.call("DELETE", `/api/knowledge-spaces/${spaces.open}/graph/curations/${curation.id}?authorizationGeneration=${fresh}&reason=undo`)).status).toBe(204)
    expect((await explore(low, spaces.open!, { q: "Madrid", maxDepth: 0 })).entities[0]!.name).toBe("Madrid")
    expect((await curator.call("DELETE", `/api/knowledge-spaces/${spaces.open}/graph/curations/${curation.id}?authorizationGeneration=${fresh}&reason=undo`)).status).toBe(404)
  })

  it("re-extracts a new READY version by itself when the space has graph indexing on", async () => {
    expect((await low.call("PUT", `/api/knowledge-spaces/${spaces.red}/graph/settings`, { indexingEnabled: true })).status).toBe(404)
    expect((await curator.call("PUT", `/api/knowledge-spaces/${spaces.open}/graph/settings`, { indexingEnabled: true })).body.code).toBe("NOT_A_SPACE_MANAGER")
    const set = await admin.call("PUT", `/api/knowledge-spaces/${spaces.red}/graph/settings`, { indexingEnabled: true })
    expect(set.status, JSON.stringify(set.body)).toBe(200)
    await ingested(admin, { spaceId: spaces.red!, name: "red-v2.txt", title: "Red", bytes: "Dmitri Volkov flew to Reykjavik with Ingrid Berg.", classification: "PUBLIC", type: "text/plain" })
    await eventually(async () => names(await explore(high, spaces.red!, { q: "", maxDepth: 0, entityLimit: 100 })), (all) => all.includes("Ingrid Berg"), "automatic re-extraction")
  })

  it("adds graph evidence to the assistant's retrieval when the space's graph retrieval is on, access-filtered", async () => {
    const tool = async (who: Client) => {
      const reply = await who.call("POST", "/api/assistant/tools/knowledge-search", { query: "Alice Johnson", knowledgeSpaceIds: [spaces.open], limit: 1 })
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      return reply.body.citations as Array<{ chunkId: string; knowledgeAssetId: string }>
    }
    expect(await tool(high)).toHaveLength(1)
    const on = await admin.call("PUT", `/api/knowledge-spaces/${spaces.open}/graph/settings`, { retrievalEnabled: true })
    expect(on.body).toMatchObject({ retrievalEnabled: true })
    const withGraph = await tool(high)
    expect(withGraph.length).toBeGreaterThan(1)
    expect(withGraph.map((c) => c.knowledgeAssetId)).toContain(assets.b!.knowledgeAssetId)
    // The low-clearance user gets nothing from the CONFIDENTIAL document through the graph either.
    const low1 = await tool(low)
    expect(low1.map((c) => c.knowledgeAssetId)).not.toContain(assets.b!.knowledgeAssetId)
    await admin.call("PUT", `/api/knowledge-spaces/${spaces.open}/graph/settings`, { retrievalEnabled: false })
    expect(await tool(high)).toHaveLength(1)
  })
})
