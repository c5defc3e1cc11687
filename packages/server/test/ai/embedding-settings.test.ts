import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { EmbeddingModel } from "../../src/ai/EmbeddingModel"
import { EmbeddingSettings, normalizeEmbeddingUrl } from "../../src/ai/EmbeddingSettings"
import { checkEmbeddings, providerMessageOf, retryAfterMsOf } from "../../src/ai/EmbeddingAnswers"

const fromEnv = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.either(EmbeddingSettings.pipe(Effect.provide(EmbeddingSettings.fromEnv), Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
  )

describe("EmbeddingSettings.fromEnv", () => {
  it("is not configured without LORE_EMBEDDING_URL (or with an empty one)", async () => {
    expect(Either.getOrThrow(await fromEnv({}))).toEqual(EmbeddingSettings.disabled)
    expect(Option.isNone(Either.getOrThrow(await fromEnv({ LORE_EMBEDDING_URL: "", LORE_EMBEDDING_MODEL: "m" })).endpoint)).toBe(true)
  })

  it("reads the four variables, defaults filled in", async () => {
    const settings = Either.getOrThrow(
      await fromEnv({
        LORE_EMBEDDING_URL: "https://api.openai.com/v1/",
        LORE_EMBEDDING_MODEL: "text-embedding-3-small",
        LORE_EMBEDDING_DIMENSIONS: "512",
        LORE_EMBEDDING_API_KEY: "sk-secret"
      })
    )
    const endpoint = Option.getOrThrow(settings.endpoint)
    expect(endpoint).toMatchObject({
      url: "https://api.openai.com/v1",
      model: "text-embedding-3-small",
      dimensions: 512,
      provider: "openai",
      batchSize: 64
    })
    expect(Redacted.value(Option.getOrThrow(endpoint.apiKey))).toBe("sk-secret")
    expect(String(endpoint.apiKey)).not.toContain("sk-secret")
  })

  it("takes a bare origin and no key", async () => {
    const settings = Either.getOrThrow(
      await fromEnv({ LORE_EMBEDDING_URL: "http://127.0.0.1:11434", LORE_EMBEDDING_MODEL: "nomic-embed-text", LORE_EMBEDDING_DIMENSIONS: "768" })
    )
    expect(Option.getOrThrow(settings.endpoint)).toMatchObject({ url: "http://127.0.0.1:11434/v1", provider: "openai-compatible", apiKey: Option.none() })
  })

  it("names the missing or wrong variable", async () => {
    const noModel = await fromEnv({ LORE_EMBEDDING_URL: "http://127.0.0.1:11434/v1", LORE_EMBEDDING_DIMENSIONS: "768" })
    expect(String(Either.getLeft(noModel).pipe(Option.getOrThrow))).toContain("LORE_EMBEDDING_MODEL is required when LORE_EMBEDDING_URL is set")
    const noSize = await fromEnv({ LORE_EMBEDDING_URL: "http://127.0.0.1:11434/v1", LORE_EMBEDDING_MODEL: "m" })
    expect(String(Either.getLeft(noSize).pipe(Option.getOrThrow))).toContain("LORE_EMBEDDING_DIMENSIONS is required")
    const badSize = await fromEnv({ LORE_EMBEDDING_URL: "http://127.0.0.1:11434/v1", LORE_EMBEDDING_MODEL: "m", LORE_EMBEDDING_DIMENSIONS: "0" })
    expect(String(Either.getLeft(badSize).pipe(Option.getOrThrow))).toContain("positive integer")
    const badUrl = await fromEnv({ LORE_EMBEDDING_URL: "ftp://host/v1", LORE_EMBEDDING_MODEL: "m", LORE_EMBEDDING_DIMENSIONS: "8" })
    expect(String(Either.getLeft(badUrl).pipe(Option.getOrThrow))).toContain("LORE_EMBEDDING_URL")
  })

  it("EmbeddingModel.fromEnv with nothing set has no info", async () => {
    const info = await Effect.runPromise(
      Effect.map(EmbeddingModel, (model) => model.info).pipe(Effect.provide(EmbeddingModel.fromEnv), Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
    )
    expect(Option.isNone(info)).toBe(true)
  })
})

describe("normalizeEmbeddingUrl", () => {
  it.each([
    ["http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"],
    ["http://127.0.0.1:11434/v1/", "http://127.0.0.1:11434/v1"],
    ["http://127.0.0.1:11434", "http://127.0.0.1:11434/v1"],
    ["http://127.0.0.1:11434/", "http://127.0.0.1:11434/v1"],
    ["https://api.openai.com/v1/embeddings", "https://api.openai.com/v1"],
    ["https://proxy.example/openai/v1", "https://proxy.example/openai/v1"],
    ["https://x.openai.azure.com/openai/deployments/emb?api-version=2024-02-01", "https://x.openai.azure.com/openai/deployments/emb?api-version=2024-02-01"]
  ])("%s -> %s", (raw, normalized) => {
    expect(normalizeEmbeddingUrl(raw)).toEqual(Either.right(normalized))
  })

  it("refuses what is not an http(s) URL", () => {
    expect(Either.isLeft(normalizeEmbeddingUrl("localhost:11434"))).toBe(true)
    expect(Either.isLeft(normalizeEmbeddingUrl("not a url"))).toBe(true)
  })
})

describe("Lore's checks of an embeddings answer", () => {
  const body = (count: number, indices: ReadonlyArray<unknown> = Array.from({ length: count }, (_, i) => i)) => ({
    object: "list",
    data: indices.map((index) => ({ object: "embedding", index }))
  })

  it("orders by index and normalizes", () => {
    const vectors = Either.getOrThrow(checkEmbeddings([[0, 2], [3, 4]], body(2, [1, 0]), { count: 2, dimensions: 2 }))
    expect(Array.from(vectors[0]!)).toEqual([Math.fround(0.6), Math.fround(0.8)])
    expect(Array.from(vectors[1]!)).toEqual([0, 1])
  })

  it("takes answer order when no item has an index", () => {
    const vectors = Either.getOrThrow(checkEmbeddings([[1, 0], [0, 1]], { data: [{}, {}] }, { count: 2, dimensions: 2 }))
    expect(vectors.map((v) => Array.from(v))).toEqual([[1, 0], [0, 1]])
  })

  it.each([
    ["too few", [[1, 0]], body(1), /1 embeddings came back for 2 inputs/],
    ["a repeated index", [[1, 0], [0, 1]], body(2, [0, 0]), /index 0 appears twice/],
    ["an index out of range", [[1, 0], [0, 1]], body(2, [0, 2]), /data\[1\]\.index is 2/],
    ["an index that is not a number", [[1, 0], [0, 1]], body(2, [0, "1"]), /data\[1\]\.index is "1"/],
    ["the wrong size", [[1, 0, 0], [0, 1, 0]], body(2), /3 dimensions, expected 2/],
    ["NaN", [[NaN, 1], [0, 1]], body(2), /not a finite number/],
    ["infinity", [[Infinity, 1], [0, 1]], body(2), /not a finite number/]
  ])("refuses %s", (_, embeddings, raw, reason) => {
    const checked = checkEmbeddings(embeddings as Array<Array<number>>, raw, { count: 2, dimensions: 2 })
    expect(Either.getLeft(checked).pipe(Option.getOrThrow)).toMatch(reason)
  })

  it("reads the provider's message and Retry-After", () => {
    expect(providerMessageOf(JSON.stringify({ error: { message: "Incorrect API key provided." } }))).toBe("Incorrect API key provided.")
    expect(providerMessageOf(JSON.stringify({ error: "model not found" }))).toBe("model not found")
    expect(providerMessageOf(JSON.stringify({ error: { code: 1 } }))).toBe('{"code":1}')
    expect(providerMessageOf("Bad Gateway")).toBe("Bad Gateway")
    expect(providerMessageOf("")).toBeUndefined()
    expect(retryAfterMsOf({ "retry-after": "2" })).toBe(2000)
    expect(retryAfterMsOf({ "retry-after-ms": "150", "retry-after": "9" })).toBe(150)
    expect(retryAfterMsOf({ "retry-after": new Date(10_000).toUTCString() }, 4_000)).toBe(6_000)
    expect(retryAfterMsOf({ "retry-after": "soon" })).toBeUndefined()
    expect(retryAfterMsOf({})).toBeUndefined()
  })
})
