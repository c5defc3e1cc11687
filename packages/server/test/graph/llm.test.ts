import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, client, type Client, eventually, filler, ingested } from "../knowledge/support"
import { entityNamed, explore, graphIndex, jobSettled, names } from "./support"

/**
 * Extraction through the GRAPH_EXTRACTION route to a real OpenAI-compatible server on loopback that answers with
 * structured output: schema validation, the gleaning pass, names merged across chunks; cancel mid-job leaves no
 * partial projection; resume after a provider failure continues from the staged chunks and completes once.
 */

const KNOWN = ["Ada Lovelace", "Charles Babbage", "Analytical Engine", "London", "Quentin Marsh", "Orion Foundry"]

interface Fake {
  url: string
  server: Server
  requests: Array<{ pass: "first" | "gleaning"; text: string; body: any }>
  delayMs: number
  failAfter: number | null
  invalid: boolean
}

/** Answers what the passage names among KNOWN: the first pass all but "Charles Babbage", the gleaning pass that one. */
const startFake = async (): Promise<Fake> => {
  const fake: Fake = { url: "", server: undefined as unknown as Server, requests: [], delayMs: 0, failAfter: null, invalid: false }
  fake.server = createServer((request, response) => {
    let raw = ""
    request.on("data", (chunk) => (raw += chunk))
    request.on("end", async () => {
      const body = JSON.parse(raw)
      const pass = body.messages.length > 2 ? "gleaning" : "first"
      const text: string = body.messages[1].content
      fake.requests.push({ pass, text, body })
      if (fake.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.delayMs))
      if (fake.failAfter !== null && fake.requests.length > fake.failAfter) {
        response.writeHead(400, { "content-type": "application/json" })
        return response.end(JSON.stringify({ error: { message: "model overloaded", type: "invalid_request_error" } }))
      }
      const present = KNOWN.filter((name) => text.includes(name))
      const wanted = pass === "first" ? present.filter((name) => name !== "Charles Babbage") : present.filter((name) => name === "Charles Babbage")
      const entities = wanted.map((name) => ({
        // Names differ in case and spacing between chunks: the projection merges them.
        name: pass === "first" && name === "Ada Lovelace" ? "ada  LOVELACE" : name,
        type: name === "London" ? "location" : name.includes("Engine") || name.includes("Foundry") ? "Organization" : "person",
        description: `${name} as the passage describes`
      }))
      const relations = pass === "first" && wanted.length >= 2
        ? [{ source: wanted[0], target: wanted[1], type: "worked on", description: "they appear together", keywords: ["engine"], weight: 7 }]
        : pass === "gleaning" && wanted.length === 1 && present.includes("Ada Lovelace")
          ? [{ source: "Charles Babbage", target: "Ada Lovelace", type: "collaborated with", description: "correspondence", keywords: ["letters"], weight: 9 }]
          : []
      const content = fake.invalid ? JSON.stringify({ entities: [{ name: "x" }] }) : JSON.stringify({ entities, relations })
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({
        id: "c1", object: "chat.completion", model: body.model,
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 }
      }))
    })
  })
  await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve))
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`
  return fake
}

const longDocument = (sections: number, names: string) =>
  Array.from({ length: sections }, (_, i) => `# Part ${i + 1}\n\n${names} appear in part ${i + 1}. ${filler(`part ${i + 1}`, 20)}`).join("\n\n")

describe.each(backends)("knowledge graph through an LLM route on $name", { timeout: 240_000 }, (backend: Backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let admin: Client
  let fake: Fake
  let spaceId: string

  beforeAll(async () => {
    fake = await startFake()
    server = await backend.start()
    admin = client(server.url, server.adminToken)
    spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "llm", name: "llm" })).body.id
    const gateway = await admin.call("POST", "/api/admin/ai/gateways", { gatewayKey: "fake", displayName: "Fake", preset: "OPENAI_COMPATIBLE", baseUrl: fake.url })
    expect(gateway.status, JSON.stringify(gateway.body)).toBe(201)
    expect((await admin.call("PUT", `/api/admin/ai/gateways/${gateway.body.id}/credential`, { apiKey: "sk-test" })).status).toBe(204)
    // This fake speaks chat completions only (no models list to test against): the route is forced.
    const route = await admin.call("PUT", "/api/admin/ai/routes/GRAPH_EXTRACTION", { gatewayProfileId: gateway.body.id, modelId: "graph-model", version: 0, force: true })
    expect(route.status, JSON.stringify(route.body)).toBe(200)
  })
  afterAll(async () => {
    await server?.dispose()
    await new Promise((resolve) => fake?.server.close(resolve))
  })

  it("extracts with structured output, gleans once per chunk and merges names across chunks", async () => {
    const source = await ingested(admin, { spaceId, name: "engine.md", title: "Engine", type: "text/markdown", bytes: longDocument(2, "Ada Lovelace, Charles Babbage, the Analytical Engine and London") })
    const before = fake.requests.length
    const job = await graphIndex(admin, source.knowledgeAssetId)
    const done = await jobSettled(admin, job.id)
    expect(done, JSON.stringify(done)).toMatchObject({ status: "SUCCEEDED", extractor: "LLM" })
    expect(done.chunksTotal).toBeGreaterThanOrEqual(2)
    const calls = fake.requests.slice(before)
    expect(calls.filter((c) => c.pass === "first")).toHaveLength(done.chunksTotal)
    expect(calls.filter((c) => c.pass === "gleaning")).toHaveLength(done.chunksTotal)
    expect(calls[0]!.body.response_format?.type).toBe("json_schema")

    const graph = await explore(admin, spaceId, { q: "Lovelace", maxDepth: 1 })
    const ada = graph.entities.filter((e) => e.name.toLowerCase().replace(/\s+/g, " ") === "ada lovelace")
    expect(ada).toHaveLength(1)
    expect(ada[0]!.type).toBe("PERSON")
    const naming = calls.filter((c) => c.pass === "first" && c.text.includes("Ada Lovelace")).length
    expect(naming).toBeGreaterThanOrEqual(2)
    expect(ada[0]!.citationChunkIds.length).toBe(naming)
    expect(names(graph)).toEqual(expect.arrayContaining(["Charles Babbage"]))
    const gleaned = graph.relations.find((r) => r.type === "COLLABORATED_WITH")!
    expect(gleaned).toMatchObject({ weight: 9 * naming, keywords: ["letters"] })
    expect(entityNamed(graph, "Analytical Engine")?.type ?? "ORGANIZATION").toBe("ORGANIZATION")
  })

  it("fails a job whose answers do not match the schema, with the provider's code", async () => {
    fake.invalid = true
    try {
      const source = await ingested(admin, { spaceId, name: "bad.md", title: "Bad", type: "text/markdown", bytes: "# Bad\n\nLondon is a city." })
      const done = await jobSettled(admin, (await graphIndex(admin, source.knowledgeAssetId)).id)
      expect(done).toMatchObject({ status: "FAILED", lastErrorCode: "PROVIDER_BAD_RESPONSE" })
      expect(done.lastErrorMessage).toMatch(/schema/)
    } finally {
      fake.invalid = false
    }
  })

  it("cancels a running job at a chunk boundary and projects nothing of it", async () => {
    const source = await ingested(admin, { spaceId, name: "long.md", title: "Long", type: "text/markdown", bytes: longDocument(8, "Quentin Marsh and the Orion Foundry") })
    fake.delayMs = 300
    try {
      const before = fake.requests.length
      const job = await graphIndex(admin, source.knowledgeAssetId)
      expect((await admin.call("POST", `/api/knowledge-assets/${job.id}/graph-index`)).status).toBe(404)
      // A second call while it runs answers the same job.
      expect((await graphIndex(admin, source.knowledgeAssetId)).id).toBe(job.id)
      await eventually(async () => fake.requests.length - before, (n) => n >= 1, "the first model call")
      const cancelled = await admin.call("POST", `/api/knowledge-assets/graph-jobs/${job.id}/cancel`)
      expect(cancelled.status).toBe(200)
      expect(cancelled.body.cancellationRequested).toBe(true)
      expect(cancelled.body.cancellationRequestedAt).toBeTruthy()
      const done = await jobSettled(admin, job.id)
      expect(done.status).toBe("CANCELLED")
      expect(done.chunksDone).toBeLessThan(done.chunksTotal)
      const graph = await explore(admin, spaceId, { q: "", maxDepth: 0, entityLimit: 500 })
      expect(names(graph)).not.toContain("Quentin Marsh")
      expect(names(graph)).not.toContain("Orion Foundry")
      expect((await admin.call("POST", `/api/knowledge-assets/graph-jobs/${job.id}/cancel`)).status).toBe(200)
    } finally {
      fake.delayMs = 0
    }
  })

  it("resumes a job failed by its provider from where it stopped, and completes once", async () => {
    const source = await ingested(admin, { spaceId, name: "resume.md", title: "Resume", type: "text/markdown", bytes: longDocument(3, "Quentin Marsh and London") })
    const before = fake.requests.length
    fake.failAfter = before + 2 // the first chunk (both passes) succeeds, then the provider fails
    let job: any
    try {
      job = await graphIndex(admin, source.knowledgeAssetId)
      const failed = await jobSettled(admin, job.id)
      expect(failed).toMatchObject({ status: "FAILED", lastErrorCode: "PROVIDER_BAD_RESPONSE", attempt: 1, chunksDone: 1 })
      expect(names(await explore(admin, spaceId, { q: "Quentin", maxDepth: 0 }))).not.toContain("Quentin Marsh")
    } finally {
      fake.failAfter = null
    }
    expect((await admin.call("POST", `/api/knowledge-assets/graph-jobs/${job.id}/cancel`)).body.code).toBe("GRAPH_JOB_STATE_CONFLICT")
    const resumed = await admin.call("POST", `/api/knowledge-assets/graph-jobs/${job.id}/resume`)
    expect(resumed.status).toBe(200)
    expect(resumed.body).toMatchObject({ status: "QUEUED", attempt: 2 })
    const done = await jobSettled(admin, job.id)
    expect(done).toMatchObject({ status: "SUCCEEDED", attempt: 2, chunksDone: done.chunksTotal })
    // The first chunk was not asked again: each chunk's first pass succeeded exactly once.
    const firstChunk = fake.requests[before]!.text
    expect(fake.requests.slice(before).filter((r) => r.pass === "first" && r.text === firstChunk)).toHaveLength(1)
    const graph = await explore(admin, spaceId, { q: "Quentin Marsh", maxDepth: 0 })
    const quentin = graph.entities.filter((e) => e.name === "Quentin Marsh")
    expect(quentin).toHaveLength(1)
    const naming = new Set(fake.requests.slice(before).filter((r) => r.pass === "first" && r.text.includes("Quentin Marsh")).map((r) => r.text)).size
    expect(quentin[0]!.citationChunkIds).toHaveLength(naming)
    expect((await admin.call("POST", `/api/knowledge-assets/graph-jobs/${job.id}/resume`)).body.code).toBe("GRAPH_JOB_STATE_CONFLICT")
  })
})
