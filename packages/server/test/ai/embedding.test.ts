import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { EmbeddingError } from "../../src/ai/EmbeddingError"
import { EmbeddingModel, type EmbeddingPurpose } from "../../src/ai/EmbeddingModel"
import type { EmbeddingEndpointOptions } from "../../src/ai/EmbeddingSettings"
import { dot, normalizeL2 } from "../../src/ai/EmbeddingAnswers"
import { startEmbeddingProvider, type EmbeddingProvider } from "../support/embeddingProvider"

const dimensions = 128
let provider: EmbeddingProvider
beforeAll(async () => {
  provider = await startEmbeddingProvider({ dimensions: 256 })
})
afterAll(() => provider?.close())
afterEach(() => {
  provider.requests.length = 0
  provider.failNext(0)
  provider.configure({ apiKey: undefined, answerDimensions: undefined, shuffle: false, delayMs: 0, rejectDimensionsParameter: false })
})

const layerFor = (options: Partial<EmbeddingEndpointOptions> = {}) =>
  EmbeddingModel.fromSettings({ url: provider.url, model: "test-embed", dimensions, retryBaseDelayMs: 5, ...options })

const withModel = <A, E>(layer: Layer.Layer<EmbeddingModel>, use: (model: EmbeddingModel) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(EmbeddingModel, use).pipe(Effect.provide(layer), Logger.withMinimumLogLevel(LogLevel.Error)))

const embed = (texts: ReadonlyArray<string>, options: Partial<EmbeddingEndpointOptions> = {}, purpose: EmbeddingPurpose = "document") =>
  withModel(layerFor(options), (model) => model.embed(texts, purpose))

const embedError = (texts: ReadonlyArray<string>, options: Partial<EmbeddingEndpointOptions> = {}) =>
  withModel(layerFor(options), (model) => Effect.flip(model.embed(texts, "document")))

const expected = (text: string) => normalizeL2(provider.embed(text, dimensions))
const norm = (vector: Float32Array) => Math.sqrt(dot(vector, vector))

describe("EmbeddingModel over a real /v1/embeddings server", () => {
  it("reports what it is configured with", async () => {
    const info = await withModel(layerFor(), (model) => Effect.succeed(model.info))
    expect(Option.getOrThrow(info)).toEqual({ provider: "openai-compatible", model: "test-embed", dimensions, profileKey: "test-embed@128" })
  })

  it("asks for float vectors at the configured size and answers them as unit vectors", async () => {
    const texts = ["The quarterly report is due on Friday.", "Expense claims need a receipt."]
    const vectors = await embed(texts)
    expect(provider.lastRequest!.body).toMatchObject({ model: "test-embed", input: texts, encoding_format: "float", dimensions })
    expect(vectors).toHaveLength(2)
    vectors.forEach((vector, i) => {
      expect(vector).toBeInstanceOf(Float32Array)
      expect(vector).toHaveLength(dimensions)
      expect(Array.from(vector)).toEqual(Array.from(expected(texts[i]!)))
      expect(norm(vector)).toBeCloseTo(1, 5)
    })
    // The provider answers unnormalized vectors: normalizing is the client's job.
    expect(norm(provider.embed(texts[0]!, dimensions))).toBeGreaterThan(2)
  })

  it("splits 150 inputs into 3 requests of at most 64 and keeps their order, even when answers come unordered", async () => {
    provider.configure({ shuffle: true })
    const texts = Array.from({ length: 150 }, (_, i) => `passage ${i} about topic${i} and subject${i * 7}`)
    const vectors = await embed(texts)
    expect(provider.requests.map((request) => request.body.input.length)).toEqual([64, 64, 22])
    expect(provider.requests.flatMap((request) => request.body.input)).toEqual(texts)
    expect(vectors).toHaveLength(150)
    vectors.forEach((vector, i) => expect(Array.from(vector)).toEqual(Array.from(expected(texts[i]!))))
  })

  it("keeps input order with several requests in flight", async () => {
    provider.configure({ delayMs: 20 })
    const texts = Array.from({ length: 40 }, (_, i) => `note ${i} on item${i}`)
    const vectors = await embed(texts, { batchSize: 7, concurrency: 3 })
    expect(provider.requests).toHaveLength(6)
    vectors.forEach((vector, i) => expect(Array.from(vector)).toEqual(Array.from(expected(texts[i]!))))
  })

  it("gives blank texts a zero vector without sending them, and sends nothing for no texts", async () => {
    const vectors = await embed(["", "Parking permits renew in March.", "   "])
    expect(provider.requests).toHaveLength(1)
    expect(provider.lastRequest!.body.input).toEqual(["Parking permits renew in March."])
    expect(norm(vectors[0]!)).toBe(0)
    expect(norm(vectors[1]!)).toBeCloseTo(1, 5)
    expect(norm(vectors[2]!)).toBe(0)
    expect(await embed([])).toEqual([])
    expect(provider.requests).toHaveLength(1)
  })

  it("prefixes inputs by purpose", async () => {
    await embed(["how many vacation days"], { queryPrefix: "search_query: ", documentPrefix: "search_document: " }, "query")
    expect(provider.lastRequest!.body.input).toEqual(["search_query: how many vacation days"])
    const info = await withModel(layerFor({ documentPrefix: "search_document: " }), (model) => Effect.succeed(model.info))
    expect(Option.getOrThrow(info).profileKey).toMatch(/^test-embed@128\+[0-9a-f]{8}$/)
  })

  it("retries a 503 twice and then succeeds", async () => {
    provider.failNext(2, { status: 503 })
    const [vector] = await embed(["Badges are issued at reception."])
    expect(provider.requests.map((request) => request.status)).toEqual([503, 503, 200])
    expect(Array.from(vector!)).toEqual(Array.from(expected("Badges are issued at reception.")))
  })

  it("gives up after maxRetries with a retryable EMBEDDING_UNAVAILABLE", async () => {
    provider.failNext(10, { status: 500 })
    const error = await embedError(["anything"], { maxRetries: 2 })
    expect(error).toBeInstanceOf(EmbeddingError)
    expect(error).toMatchObject({ code: "EMBEDDING_UNAVAILABLE", retryable: true, status: 500 })
    expect(error.message).toContain("gave up after 3 attempts")
    expect(provider.requests).toHaveLength(3)
  })

  it("waits as long as a 429's Retry-After asks", async () => {
    provider.failNext(1, { status: 429, retryAfter: "1" })
    const started = Date.now()
    await embed(["Lunch is served at noon."])
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    expect(provider.requests.map((request) => request.status)).toEqual([429, 200])
  })

  it("leaves a Retry-After above the bound to the caller: EMBEDDING_RATE_LIMITED with retryAfterMs", async () => {
    provider.failNext(1, { status: 429, retryAfter: "120" })
    const error = await embedError(["anything"], { maxRetryDelayMs: 5_000 })
    expect(error).toMatchObject({ code: "EMBEDDING_RATE_LIMITED", retryable: true, retryAfterMs: 120_000, status: 429 })
    expect(error.message).toContain(provider.url)
    expect(provider.requests).toHaveLength(1)
  })

  it("sends the API key as a bearer token", async () => {
    provider.configure({ apiKey: "sk-test-123" })
    await embed(["Security training is yearly."], { apiKey: "sk-test-123" })
    expect(provider.lastRequest!.headers.authorization).toBe("Bearer sk-test-123")
  })

  it("answers a wrong key with EMBEDDING_UNAUTHORIZED, not retried, naming the URL and model but not the key", async () => {
    provider.configure({ apiKey: "sk-right" })
    const error = await embedError(["anything"], { apiKey: "sk-wrong" })
    expect(error).toMatchObject({ code: "EMBEDDING_UNAUTHORIZED", retryable: false, status: 401, providerMessage: "Incorrect API key provided." })
    expect(error.message).toContain(provider.url)
    expect(error.message).toContain("test-embed")
    expect(error.message).toContain("LORE_EMBEDDING_API_KEY")
    expect(error.message).not.toContain("sk-wrong")
    expect(provider.requests).toHaveLength(1)

    const missing = await embedError(["anything"])
    expect(missing.message).toContain("No API key is set")
  })

  it("answers an unknown model with EMBEDDING_REJECTED, not retried", async () => {
    provider.configure({ models: ["text-embedding-3-small"] })
    try {
      const error = await embedError(["anything"], { model: "no-such-model" })
      expect(error).toMatchObject({ code: "EMBEDDING_REJECTED", retryable: false, status: 404 })
      expect(error.message).toContain("no-such-model")
      expect(provider.requests).toHaveLength(1)
    } finally {
      provider.configure({ models: undefined })
    }
  })

  it("answers vectors of the wrong size with EMBEDDING_INVALID_RESPONSE", async () => {
    provider.configure({ answerDimensions: 32 })
    const error = await embedError(["anything"])
    expect(error).toMatchObject({ code: "EMBEDDING_INVALID_RESPONSE", retryable: false })
    expect(error.message).toContain("32 dimensions, expected 128")
    expect(provider.requests).toHaveLength(1)
  })

  it("asks again without `dimensions` when the provider says it does not take it", async () => {
    provider.configure({ rejectDimensionsParameter: true, dimensions })
    await withModel(layerFor(), (model) =>
      Effect.gen(function* () {
        const [vector] = yield* model.embed(["Desks are booked weekly."], "document")
        expect(Array.from(vector!)).toEqual(Array.from(expected("Desks are booked weekly.")))
        yield* model.embed(["Second call goes straight through."], "document")
      })
    )
    expect(provider.requests.map((request) => request.status)).toEqual([400, 200, 200])
    expect(provider.lastRequest!.body).not.toHaveProperty("dimensions")
    provider.configure({ dimensions: 256 })
  })

  it("answers an unreachable URL with a retryable EMBEDDING_UNAVAILABLE", async () => {
    const closed = await startEmbeddingProvider()
    await closed.close()
    const error = await withModel(
      EmbeddingModel.fromSettings({ url: closed.url, model: "test-embed", dimensions, maxRetries: 1, retryBaseDelayMs: 5 }),
      (model) => Effect.flip(model.embed(["anything"], "query"))
    )
    expect(error).toMatchObject({ code: "EMBEDDING_UNAVAILABLE", retryable: true })
    expect(error.status).toBeUndefined()
    expect(error.message).toContain(closed.url)
    expect(error.message).toMatch(/ECONNREFUSED/)
  })

  it("answers a server slower than the timeout with a retryable EMBEDDING_TIMEOUT", async () => {
    provider.configure({ delayMs: 1_000 })
    const started = Date.now()
    const error = await embedError(["anything"], { requestTimeoutMs: 150, maxRetries: 0 })
    expect(error).toMatchObject({ code: "EMBEDDING_TIMEOUT", retryable: true })
    expect(Date.now() - started).toBeLessThan(900)
  })

  it("puts synonyms clearly closer than unrelated text", async () => {
    const [query, synonym, unrelated, sameWords] = await embed(
      ["How do I book an automobile?", "Company vehicles are reserved through the fleet desk.", "Quarterly tax filings are due in April.", "Book the automobile early."]
    )
    const similar = dot(query!, synonym!)
    const different = dot(query!, unrelated!)
    expect(similar).toBeGreaterThan(0.3)
    expect(Math.abs(different)).toBeLessThan(0.1)
    expect(similar - different).toBeGreaterThan(0.3)
    expect(dot(query!, sameWords!)).toBeGreaterThan(similar)

    const [money, cash, holiday, vacation] = await embed(["money", "cash", "holiday", "vacation"])
    expect(dot(money!, cash!)).toBeCloseTo(1, 5)
    expect(dot(holiday!, vacation!)).toBeCloseTo(1, 5)
    expect(Math.abs(dot(money!, holiday!))).toBeLessThan(0.1)
  })
})

describe("EmbeddingModel without configuration", () => {
  it("has no info and fails embedding with EMBEDDING_NOT_CONFIGURED", async () => {
    const [info, none, error] = await withModel(EmbeddingModel.fromSettings(), (model) =>
      Effect.all([Effect.succeed(model.info), model.embed([], "query"), Effect.flip(model.embed(["text"], "query"))])
    )
    expect(Option.isNone(info)).toBe(true)
    expect(none).toEqual([])
    expect(error).toMatchObject({ code: "EMBEDDING_NOT_CONFIGURED", retryable: false })
  })
})
