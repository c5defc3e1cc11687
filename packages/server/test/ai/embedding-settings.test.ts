import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { EmbeddingModel } from "../../src/ai/EmbeddingModel"
import { EmbeddingSettings, normalizeEmbeddingUrl } from "../../src/ai/EmbeddingSettings"
import { decodeBase64Float32, decodeEmbeddingResponse, encodeBase64Float32, providerMessageOf, retryAfterMsOf } from "../../src/ai/EmbeddingWire"

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
      encoding: "base64",
      batchSize: 64
    })
    expect(Redacted.value(Option.getOrThrow(endpoint.apiKey))).toBe("sk-secret")
    expect(String(endpoint.apiKey)).not.toContain("sk-secret")
  })

  it("takes LORE_EMBEDDING_ENCODING=float and no key", async () => {
    const settings = Either.getOrThrow(
      await fromEnv({ LORE_EMBEDDING_URL: "http://127.0.0.1:11434", LORE_EMBEDDING_MODEL: "nomic-embed-text", LORE_EMBEDDING_DIMENSIONS: "768", LORE_EMBEDDING_ENCODING: "float" })
    )
    expect(Option.getOrThrow(settings.endpoint)).toMatchObject({ url: "http://127.0.0.1:11434/v1", provider: "openai-compatible", encoding: "float", apiKey: Option.none() })
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

describe("the wire format", () => {
  const answer = (embeddings: Array<unknown>, indices = embeddings.map((_, i) => i)) => ({
    object: "list",
    data: embeddings.map((embedding, i) => ({ object: "embedding", index: indices[i], embedding }))
  })

  it("decodes little-endian float32 base64 exactly", () => {
    const values = [0.5, -1.25, 3.4028234663852886e38, 1e-45, 0]
    const decoded = Either.getOrThrow(decodeBase64Float32(encodeBase64Float32(values)))
    expect(Array.from(decoded)).toEqual(values.map((v) => Math.fround(v)))
    // 1.0f little-endian is 00 00 80 3f
    expect(Array.from(Either.getOrThrow(decodeBase64Float32(Buffer.from([0, 0, 0x80, 0x3f]).toString("base64"))))).toEqual([1])
    expect(Either.isLeft(decodeBase64Float32("AAA*"))).toBe(true)
    expect(Either.isLeft(decodeBase64Float32(Buffer.from([1, 2, 3, 4, 5, 6]).toString("base64")))).toBe(true)
  })

  it("orders by index and normalizes", () => {
    const vectors = Either.getOrThrow(decodeEmbeddingResponse(answer([[0, 2], [3, 4]], [1, 0]), { count: 2, dimensions: 2 }))
    expect(Array.from(vectors[0]!)).toEqual([Math.fround(0.6), Math.fround(0.8)])
    expect(Array.from(vectors[1]!)).toEqual([0, 1])
  })

  it("takes answer order when no item has an index", () => {
    const vectors = Either.getOrThrow(decodeEmbeddingResponse({ data: [{ embedding: [1, 0] }, { embedding: [0, 1] }] }, { count: 2, dimensions: 2 }))
    expect(vectors.map((v) => Array.from(v))).toEqual([[1, 0], [0, 1]])
  })

  it.each([
    ["no data", { object: "list" }, /no "data" array/],
    ["too few", answer([[1, 0]]), /1 embeddings came back for 2 inputs/],
    ["a repeated index", answer([[1, 0], [0, 1]], [0, 0]), /index 0 appears twice/],
    ["an index out of range", answer([[1, 0], [0, 1]], [0, 2]), /data\[1\]\.index is 2/],
    ["the wrong size", answer([[1, 0, 0], [0, 1, 0]]), /3 dimensions, expected 2/],
    ["a string in the array", answer([[1, "0"], [0, 1]]), /is not a number/],
    ["NaN in base64", answer([encodeBase64Float32([NaN, 1]), [0, 1]]), /not a finite number/],
    ["infinity in base64", answer([encodeBase64Float32([Infinity, 1]), [0, 1]]), /not a finite number/],
    ["neither array nor string", answer([{}, [0, 1]]), /neither a number array nor a base64 string/]
  ])("refuses %s", (_, body, reason) => {
    const decoded = decodeEmbeddingResponse(body, { count: 2, dimensions: 2 })
    expect(Either.getLeft(decoded).pipe(Option.getOrThrow)).toMatch(reason)
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
