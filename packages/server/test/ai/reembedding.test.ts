import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EmbeddingProvider, startEmbeddingProvider } from "../support/embeddingProvider"
import { startTestServer, type TestServer } from "../support/server"
import { startInspectableServer, type InspectableServer } from "../knowledge/inspect"
import { client, type Client, eventually, filler, ingested, searchReply, settled, uploaded } from "../knowledge/support"

/**
 * The embedding workloads on routes, against two real OpenAI-compatible embedding servers on loopback:
 * "A" is the server's LORE_EMBEDDING_* (generation 1), "B" an admin gateway. Which server received the
 * question tells which model embedded it; the stored generations tell which vectors search ranked with.
 */

const QUESTION = "When is employee pay reviewed"

/** A document of `sections` headed sections (one chunk each). */
const handbook = (topic: string, sections: number) =>
  Array.from({ length: sections }, (_, i) => `## ${topic} rule ${i + 1}\n\n${filler(`${topic} ${i + 1}`, 3)}`).join("\n\n")

/** Requests that embedded the question (the query, not a document). */
const questionCalls = (provider: EmbeddingProvider) =>
  provider.requests.filter((request) => request.status === 200 && JSON.stringify(request.body.input).includes(QUESTION))

const documentInputs = (provider: EmbeddingProvider) =>
  provider.requests
    .filter((request) => request.status === 200 && !JSON.stringify(request.body.input).includes(QUESTION))
    .reduce((sum, request) => sum + request.body.input.length, 0)

const indexSettings = async (admin: Client) => (await admin.call("GET", "/api/admin/ai/index-settings")).body

const createGateway = async (admin: Client, key: string, provider: EmbeddingProvider) => {
  const created = await admin.call("POST", "/api/admin/ai/gateways", { gatewayKey: key, displayName: key, preset: "OPENAI_COMPATIBLE", baseUrl: provider.url })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return created.body as { id: string }
}

const health = async (admin: Client) => (await fetch(`${admin.url}/api/health`).then((response) => response.json())) as Record<string, string>

/** What a source says it is embedded with. */
const sourceEmbedding = async (admin: Client, id: string) => {
  const source = (await admin.call("GET", `/api/sources/${id}`)).body
  return { model: source.embeddingModel, dimensions: source.embeddingDimensions }
}

const routeOf = async (admin: Client, workload: string) =>
  ((await admin.call("GET", "/api/admin/ai/routes")).body as Array<any>).find((route) => route.workload === workload)

describe("embedding routes and re-embedding", { timeout: 180_000 }, () => {
  let a: EmbeddingProvider
  let b: EmbeddingProvider
  let server: InspectableServer
  let admin: Client
  let space: string
  let gatewayB: string
  let pay: string

  const generations = () =>
    server.sql((sql) => sql<{ number: number; status: string; modelId: string; vectors: number }>`
      SELECT g.number, g.status, g.model_id, (SELECT count(*)::int FROM chunk_embeddings e WHERE e.generation_id = g.id) AS vectors
      FROM embedding_generations g ORDER BY g.number`)

  const chunkCount = async () => (await server.sql((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM chunks`))[0]!.n

  beforeAll(async () => {
    a = await startEmbeddingProvider({ dimensions: 32 })
    b = await startEmbeddingProvider({ dimensions: 48 })
    server = await startInspectableServer({ embedding: { url: a.url, model: "model-a", dimensions: 32, maxRetries: 1, retryBaseDelayMs: 10 } })
    admin = client(server.url, server.adminToken)
    space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "office", name: "Office" })).body.id
    pay = (await ingested(admin, { spaceId: space, name: "pay.md", bytes: "# Pay reviews\n\nEmployee pay is reviewed every spring by the wage committee.", type: "text/markdown" })).id
    for (const topic of ["garage", "clinic", "kitchen"]) {
      await ingested(admin, { spaceId: space, name: `${topic}.md`, bytes: handbook(topic, 45), type: "text/markdown" })
    }
    gatewayB = (await createGateway(admin, "gateway-b", b)).id
  })
  afterAll(async () => {
    await server?.dispose()
    await a?.close()
    await b?.close()
  })

  it("starts with generation 1 made by LORE_EMBEDDING_* and embeds questions with it", async () => {
    expect(await indexSettings(admin)).toMatchObject({
      embeddingModel: "model-a", dimensions: 32, distanceMetric: "COSINE", managementMode: "ENVIRONMENT", generation: 1, reembedding: null, editable: true
    })
    const reply = await searchReply(admin, QUESTION)
    expect(reply.mode).toBe("hybrid")
    expect(reply.evidence[0]?.title).toBe("pay")
    expect(questionCalls(a).at(-1)?.body.model).toBe("model-a")
    expect(await generations()).toEqual([{ number: 1, status: "ACTIVE", modelId: "model-a", vectors: await chunkCount() }])
    expect(await health(admin)).toMatchObject({ embeddingModel: "model-a (32 dimensions)", embeddingSource: "ENVIRONMENT" })
    expect(await sourceEmbedding(admin, pay)).toEqual({ model: "model-a", dimensions: 32 })
    expect(await routeOf(admin, "QUERY_EMBEDDING")).toMatchObject({ source: "ENVIRONMENT", gatewayKey: "environment", modelId: "model-a", dimensions: 32 })
  })

  it("applies a QUERY_EMBEDDING route change on the next call, and LOCAL turns query vectors off", async () => {
    const dimensionless = await admin.call("PUT", "/api/admin/ai/routes/QUERY_EMBEDDING", { gatewayProfileId: gatewayB, modelId: "model-a", version: 0 })
    expect(dimensionless.body.code).toBe("INVALID_ROUTE")

    const set = await admin.call("PUT", "/api/admin/ai/routes/QUERY_EMBEDDING", { gatewayProfileId: gatewayB, modelId: "model-a", dimensions: 32, version: 0 })
    expect(set.body).toMatchObject({ source: "ADMIN", gatewayKey: "gateway-b", dimensions: 32 })
    const before = questionCalls(a).length
    expect((await searchReply(admin, QUESTION)).mode).toBe("hybrid")
    expect(questionCalls(b)).toHaveLength(1)
    expect(questionCalls(b)[0]!.body).toMatchObject({ model: "model-a", dimensions: 32 })
    expect(questionCalls(a)).toHaveLength(before)

    const local = await admin.call("PUT", "/api/admin/ai/routes/QUERY_EMBEDDING", {
      gatewayProfileId: "00000000-0000-4000-a000-00000000000a", modelId: "lore-lexical", version: 1
    })
    expect(local.status, JSON.stringify(local.body)).toBe(200)
    expect((await searchReply(admin, QUESTION)).mode).toBe("lexical")
    expect(questionCalls(a)).toHaveLength(before)
    expect(questionCalls(b)).toHaveLength(1)

    expect((await admin.call("DELETE", "/api/admin/ai/routes/QUERY_EMBEDDING")).status).toBe(204)
    expect((await searchReply(admin, QUESTION)).mode).toBe("hybrid")
    expect(questionCalls(a)).toHaveLength(before + 1)
  })

  it("re-embeds into a new generation on a DOCUMENT_EMBEDDING route change and switches atomically", async () => {
    b.configure({ delayMs: 2_500 })
    const set = await admin.call("PUT", "/api/admin/ai/routes/DOCUMENT_EMBEDDING", { gatewayProfileId: gatewayB, modelId: "model-b", dimensions: 48, version: 0 })
    expect(set.status, JSON.stringify(set.body)).toBe(200)
    expect(set.body.lifecycleNote).toMatch(/re-embedding into generation 2 with model-b was queued/)

    const during = await indexSettings(admin)
    expect(during).toMatchObject({ generation: 1, embeddingModel: "model-a", reembedding: { generation: 2, embeddingModel: "model-b", gatewayKey: "gateway-b", dimensions: 48 } })
    expect(during.reembedding.chunksTotal).toBe(await chunkCount())
    expect(["QUEUED", "RUNNING"]).toContain(during.reembedding.jobStatus)
    expect(during.lifecycleNote).toMatch(/Re-embedding into generation 2/)

    // A document uploaded meanwhile gets vectors for both generations.
    const added = await uploaded(admin, { spaceId: space, name: "travel.md", bytes: "# Travel\n\nTrain tickets are booked through the travel portal.", type: "text/markdown" })
    expect((await settled(admin, added.id)).status).toBe("READY")
    const perGeneration = await server.sql((sql) => sql<{ number: number; status: string; n: number }>`
      SELECT g.number, g.status, count(*)::int AS n FROM chunk_embeddings e
      JOIN embedding_generations g ON g.id = e.generation_id JOIN chunks c ON c.id = e.chunk_id
      WHERE c.source_id = ${added.id} GROUP BY g.number, g.status ORDER BY g.number`)
    const addedChunks = (await server.sql((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM chunks WHERE source_id = ${added.id}`))[0]!.n
    expect(perGeneration).toEqual([{ number: 1, status: "ACTIVE", n: addedChunks }, { number: 2, status: "BUILDING", n: addedChunks }])

    // While generation 2 is incomplete, questions are embedded by model-a (A) and ranked against generation 1 only.
    const queriesOnA = questionCalls(a).length
    const midway = await searchReply(admin, QUESTION)
    expect(midway.mode).toBe("hybrid")
    expect(questionCalls(a)).toHaveLength(queriesOnA + 1)
    expect(questionCalls(b)).toHaveLength(1)
    const progress = await eventually(() => indexSettings(admin), (settings) => settings.reembedding?.chunksEmbedded > 0, "re-embedding progress")
    expect(progress.reembedding.chunksEmbedded).toBeLessThanOrEqual(progress.reembedding.chunksTotal)

    b.configure({ delayMs: 0 })
    const after = await eventually(() => indexSettings(admin), (settings) => settings.generation === 2, "generation 2 active", 90_000)
    expect(after).toMatchObject({ embeddingModel: "model-b", dimensions: 48, managementMode: "ADMIN", reembedding: null })

    // The old vectors are gone; every chunk has exactly one vector, of generation 2.
    await eventually(generations, (rows) => rows[0]!.vectors === 0, "old vectors dropped")
    expect(await generations()).toEqual([
      { number: 1, status: "RETIRED", modelId: "model-a", vectors: 0 },
      { number: 2, status: "ACTIVE", modelId: "model-b", vectors: await chunkCount() }
    ])

    // Questions now go to model-b on B, and A hears nothing more.
    const onA = questionCalls(a).length
    const reply = await searchReply(admin, QUESTION)
    expect(reply.mode).toBe("hybrid")
    expect(reply.evidence[0]?.title).toBe("pay")
    expect(questionCalls(b).at(-1)?.body).toMatchObject({ model: "model-b", dimensions: 48 })
    expect(questionCalls(a)).toHaveLength(onA)
 
    // Everything reports the generation search now uses: health, a source ingested before the switch, and the
    // QUERY_EMBEDDING route (which follows the index, not LORE_EMBEDDING_*).
    expect(await health(admin)).toMatchObject({ embeddingModel: "model-b (48 dimensions)", embeddingSource: "ADMIN", vectorSearch: expect.not.stringMatching(/^off$/) })
    expect(await sourceEmbedding(admin, pay)).toEqual({ model: "model-b", dimensions: 48 })
    expect(await routeOf(admin, "QUERY_EMBEDDING")).toMatchObject({
      source: "DEFAULT", gatewayKey: "gateway-b", gatewayProfileId: gatewayB, modelId: "model-b", dimensions: 48, lifecycleNote: expect.stringContaining("Follows the search index")
    })
    // A QUERY_EMBEDDING route to the model the index no longer holds cannot be used: refused, naming the index's model.
    const stale = await admin.call("PUT", "/api/admin/ai/routes/QUERY_EMBEDDING", { gatewayProfileId: gatewayB, modelId: "model-a", dimensions: 32, version: 0 })
    expect(stale.status).toBe(400)
    expect(stale.body).toMatchObject({ code: "INVALID_ROUTE", detail: expect.stringContaining("model-b at 48 dimensions (generation 2, on gateway-b)") })
    expect((await routeOf(admin, "QUERY_EMBEDDING")).source).toBe("DEFAULT")
  })

  it("records usage for both embedding workloads", async () => {
    const usage = (await admin.call("GET", "/api/admin/ai/usage")).body
    const byWorkload = Object.fromEntries(usage.byWorkload.map((row: any) => [row.workload, row]))
    expect(byWorkload.QUERY_EMBEDDING.calls).toBeGreaterThanOrEqual(5)
    expect(byWorkload.DOCUMENT_EMBEDDING.calls).toBeGreaterThan(4)
    expect(byWorkload.DOCUMENT_EMBEDDING.inputTokens).toBeGreaterThan(0)
    const models = usage.byModel.map((row: any) => `${row.gatewayKey}/${row.modelId}`)
    expect(models).toEqual(expect.arrayContaining(["environment/model-a", "gateway-b/model-a", "gateway-b/model-b"]))
  })

  it("routing DOCUMENT_EMBEDDING to LOCAL turns vectors off; resetting it re-embeds with LORE_EMBEDDING_*", async () => {
    const route = await routeOf(admin, "DOCUMENT_EMBEDDING")
    const local = await admin.call("PUT", "/api/admin/ai/routes/DOCUMENT_EMBEDDING", {
      gatewayProfileId: "00000000-0000-4000-a000-00000000000a", modelId: "lore-lexical", version: route.version
    })
    expect(local.status, JSON.stringify(local.body)).toBe(200)
    expect(await indexSettings(admin)).toMatchObject({ embeddingProvider: "LOCAL", generation: null, reembedding: null, managementMode: "DEFAULT" })
    expect((await searchReply(admin, QUESTION)).mode).toBe("lexical")
    expect((await generations()).every((generation) => generation.vectors === 0)).toBe(true)
    expect(await health(admin)).toMatchObject({ embeddingModel: "none", embeddingSource: "none", vectorSearch: "off" })
    expect(await sourceEmbedding(admin, pay)).toEqual({ model: null, dimensions: null })
    expect(await routeOf(admin, "QUERY_EMBEDDING")).toMatchObject({ gatewayKey: "local", modelId: "lore-lexical", source: "DEFAULT" })

    expect((await admin.call("DELETE", "/api/admin/ai/routes/DOCUMENT_EMBEDDING")).status).toBe(204)
    const back = await eventually(() => indexSettings(admin), (settings) => settings.generation === 3, "generation 3 active", 90_000)
    expect(back).toMatchObject({ embeddingModel: "model-a", managementMode: "ENVIRONMENT" })
    await eventually(() => sourceEmbedding(admin, pay), (embedding) => embedding.model === "model-a", "the source reports generation 3")
    expect(await health(admin)).toMatchObject({ embeddingModel: "model-a (32 dimensions)", embeddingSource: "ENVIRONMENT" })
    expect((await searchReply(admin, QUESTION)).mode).toBe("hybrid")
  })
})

describe("a re-embedding survives a restart", { timeout: 180_000 }, () => {
  let a: EmbeddingProvider
  let b: EmbeddingProvider
  let server: TestServer
  let admin: Client

  beforeAll(async () => {
    a = await startEmbeddingProvider({ dimensions: 16 })
    b = await startEmbeddingProvider({ dimensions: 16 })
    server = await startTestServer({ embedding: { url: a.url, model: "model-a", dimensions: 16 } })
    admin = client(server.url, server.adminToken)
    const space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "ops", name: "Ops" })).body.id
    for (const topic of ["boarding", "luggage", "cabins"]) {
      await ingested(admin, { spaceId: space, name: `${topic}.md`, bytes: handbook(topic, 60), type: "text/markdown" })
    }
  })
  afterAll(async () => {
    await server?.dispose()
    await a?.close()
    await b?.close()
  })

  it("resumes where it stopped and then switches", async () => {
    const gateway = await createGateway(admin, "gateway-b", b)
    b.configure({ delayMs: 6_000 })
    const set = await admin.call("PUT", "/api/admin/ai/routes/DOCUMENT_EMBEDDING", { gatewayProfileId: gateway.id, modelId: "model-b", dimensions: 16, version: 0 })
    expect(set.status, JSON.stringify(set.body)).toBe(200)
    const partway = await eventually(() => indexSettings(admin), (settings) => settings.reembedding?.chunksEmbedded > 0, "first batch stored")
    const total = partway.reembedding.chunksTotal
    expect(partway.reembedding.chunksEmbedded).toBeLessThan(total)

    server = await server.restart()
    admin = client(server.url, server.adminToken)
    const resumed = await indexSettings(admin)
    // Nothing stored before the restart is lost: the job continues from what generation 2 already has.
    expect(resumed.generation === 2 || resumed.reembedding.chunksEmbedded >= partway.reembedding.chunksEmbedded).toBe(true)
    b.configure({ delayMs: 0 })
    const done = await eventually(() => indexSettings(admin), (settings) => settings.generation === 2, "generation 2 active", 90_000)
    expect(done).toMatchObject({ embeddingModel: "model-b", reembedding: null })
    // Each chunk was embedded once, give or take the batch that was in flight when the server stopped.
    expect(documentInputs(b)).toBeGreaterThanOrEqual(total)
    expect(documentInputs(b)).toBeLessThanOrEqual(total + 64)
  })
})
