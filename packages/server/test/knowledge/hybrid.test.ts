import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EmbeddingProvider, startEmbeddingProvider } from "../support/embeddingProvider"
import { startTestServer, type TestServer } from "../support/server"
import { client, type Client, ingested, search, searchReply, settled, uploaded } from "./support"

/**
 * Hybrid search against a real OpenAI-compatible embedding server on loopback: a question that shares
 * no word with a passage, only synonyms from the provider's table, finds it by vector; a provider that
 * refuses the key during ingestion leaves the source in ATTENTION; a provider that is down at query
 * time leaves search answering lexically.
 */
const API_KEY = "sk-test-hybrid"

const corpus = [
  { name: "pay-reviews.md", text: "# Pay reviews\n\nEmployee pay is reviewed every spring by the wage committee." },
  { name: "garage.md", text: "# Garage\n\nEvery automobile parked overnight needs a permit from facilities." },
  { name: "clinic.md", text: "# Clinic\n\nA doctor visits the office on Tuesdays for flu shots." },
  { name: "kitchen.md", text: "# Kitchen\n\nThe dishwasher runs at noon; stack plates on the left rack." },
  { name: "printing.md", text: "# Printing\n\nColour printing needs a code from the front desk." },
  { name: "travel.md", text: "# Travel\n\nTrain tickets are booked through the travel portal two weeks ahead." }
]

describe("hybrid search with an embedding model", { timeout: 120_000 }, () => {
  let provider: EmbeddingProvider
  let server: TestServer
  let admin: Client
  let space: string
  const ids: Record<string, string> = {}
  let refused: string | undefined

  beforeAll(async () => {
    provider = await startEmbeddingProvider({ apiKey: API_KEY, dimensions: 300 })
    server = await startTestServer({
      embedding: { url: provider.url, model: "loopback-embed", dimensions: 300, apiKey: API_KEY, maxRetries: 1, retryBaseDelayMs: 10, requestTimeoutMs: 5_000 }
    })
    admin = client(server.url, server.adminToken)
    space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "office", name: "Office" })).body.id
    for (const doc of corpus) ids[doc.name] = (await ingested(admin, { spaceId: space, name: doc.name, bytes: doc.text, type: "text/markdown" })).id
  })
  afterAll(async () => {
    await server?.dispose()
    await provider?.close()
  })

  it("records the embedding model on each source and sends the key and model", async () => {
    const source = (await admin.call("GET", `/api/sources/${ids["garage.md"]}`)).body
    expect(source).toMatchObject({
      status: "READY",
      embeddingModel: "loopback-embed",
      embeddingDimensions: 300,
      embeddingProvider: "openai-compatible",
      embeddingProfileKey: "loopback-embed@300"
    })
    const documentRequest = provider.requests.find((r) => r.status === 200 && JSON.stringify(r.body.input).includes("automobile"))
    expect(documentRequest?.headers.authorization).toBe(`Bearer ${API_KEY}`)
    expect(documentRequest?.body).toMatchObject({ model: "loopback-embed", dimensions: 300 })
  })

  it("finds a passage by a synonym it does not contain (vector only)", async () => {
    const questions = [
      { q: "How is staff compensation decided?", expected: "pay-reviews.md", phrase: "Employee pay is reviewed" },
      { q: "Where do vehicles stay at night?", expected: "garage.md", phrase: "automobile parked overnight" },
      { q: "When is the physician around?", expected: "clinic.md", phrase: "doctor visits the office" }
    ]
    for (const { q, expected, phrase } of questions) {
      const reply = await searchReply(admin, q, { knowledgeSpaceId: space })
      expect(reply.mode).toBe("hybrid")
      const [top] = reply.evidence
      expect(top?.knowledgeAssetVersionId, `${q}: ${JSON.stringify(reply.evidence.map((e) => [e.title, e.lexicalRank, e.vectorRank]))}`).toBe(ids[expected])
      expect(top!.content).toContain(phrase)
      // No word in common: the lexical side cannot have found it.
      expect(top!.lexicalRank).toBeNull()
      expect(top!.vectorRank).toBe(1)
      expect(top!.relevanceScore).toBeGreaterThan(0)
    }
    const queryRequest = provider.requests.find((r) => r.body?.input?.[0] === "When is the physician around?")
    expect(queryRequest?.headers.authorization).toBe(`Bearer ${API_KEY}`)
  })

  it("fuses lexical and vector ranks: a passage found both ways carries both", async () => {
    const reply = await searchReply(admin, "automobile permit", { knowledgeSpaceId: space })
    const [top] = reply.evidence
    expect(top?.knowledgeAssetVersionId).toBe(ids["garage.md"])
    expect(top!.lexicalRank).toBe(1)
    expect(top!.vectorRank).toBe(1)
    expect(top!.relevanceScore).toBeCloseTo(2 / 61, 6)
  })

  it("recovers from a transient provider failure during ingestion", async () => {
    provider.failNext(1, { status: 503 })
    const source = await ingested(admin, { spaceId: space, name: "lockers.md", bytes: "# Lockers\n\nLockers are emptied on the last Friday of the month.", type: "text/markdown" })
    expect(source.embeddingModel).toBe("loopback-embed")
    expect(provider.requests.some((r) => r.status === 503)).toBe(true)
  })

  it("ends in ATTENTION with an embedding failure code when the provider refuses the key", async () => {
    provider.configure({ apiKey: "sk-rotated" })
    try {
      const source = await uploaded(admin, { spaceId: space, name: "parking.md", bytes: "# Parking\n\nVisitors register their number plate at reception.", type: "text/markdown" })
      const done = await settled(admin, source.id)
      refused = source.id
      expect(done).toMatchObject({ status: "ATTENTION", failureCode: "EMBEDDING_UNAUTHORIZED", publicationComplete: false })
      expect(done.failureMessage).toMatch(/401/)
      expect(done.failureMessage).toMatch(/LORE_EMBEDDING_API_KEY/)
      expect(done.failureMessage).not.toContain(API_KEY)
      // Nothing of it became searchable.
      expect((await search(admin, "visitors register number plate")).some((e) => e.knowledgeAssetVersionId === source.id)).toBe(false)
      const list = (await admin.call("GET", `/api/sources?knowledgeSpaceId=${space}&status=ATTENTION`)).body
      expect(list.items.map((s: any) => s.id)).toEqual([source.id])
    } finally {
      provider.configure({ apiKey: API_KEY })
    }
  })

  it("once the provider is fixed, uploading the same file again makes it READY", async () => {
    const bytes = "# Parking\n\nVisitors register their number plate at reception."
    const again = await uploaded(admin, { spaceId: space, name: "parking.md", bytes, type: "text/markdown" })
    // The same bytes are the same version: ingested again, not duplicated.
    expect(again.id).toBe(refused)
    expect(again.versionNumber).toBe(1)
    const done = await settled(admin, again.id)
    expect(done, `${done.failureCode}: ${done.failureMessage}`).toMatchObject({ status: "READY", failureCode: null, failureMessage: null })
    expect((await search(admin, "visitors register number plate")).map((e) => e.knowledgeAssetVersionId)).toContain(again.id)
    const list = (await admin.call("GET", `/api/sources?knowledgeSpaceId=${space}`)).body
    expect(list.statusCounts.attention).toBe(0)
  })

  it("answers lexically when the provider fails at query time", async () => {
    provider.failNext(1_000, { status: 503 })
    try {
      const evidence = await search(admin, "dishwasher plates rack", { knowledgeSpaceId: space })
      expect(evidence[0]?.knowledgeAssetVersionId).toBe(ids["kitchen.md"])
      for (const item of evidence) {
        expect(item.vectorRank).toBeNull()
        expect(item.lexicalRank).not.toBeNull()
      }
    } finally {
      provider.failNext(0)
    }
  })

  it("answers lexically when the provider is gone altogether", async () => {
    await provider.close()
    const reply = await searchReply(admin, "train tickets travel portal", { knowledgeSpaceId: space })
    expect(reply.evidence[0]?.knowledgeAssetVersionId).toBe(ids["travel.md"])
    expect(reply.evidence.every((e) => e.vectorRank === null)).toBe(true)
  })
})
