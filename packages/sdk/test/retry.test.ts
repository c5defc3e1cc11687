import { afterEach, describe, expect, it } from "vitest"
import { createLoreClient, LoreApiError, retryAfterMs } from "../src/index"
import { json, problem, startStub, text } from "./support/stubServer"

const stubs: Array<{ close: () => Promise<void> }> = []
const stub = async (...replies: Parameters<typeof startStub>) => {
  const started = await startStub(...replies)
  stubs.push(started)
  return started
}
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()))
})

const fast = { retries: 3, baseDelayMs: 5 }

describe("retry of idempotent requests", () => {
  it("retries a GET through 503, 503 and succeeds on the third call", async () => {
    const server = await stub(text(503, "busy"), text(503, "busy"), json(200, { status: "ok" }))
    const lore = createLoreClient({ baseUrl: server.url, retry: fast })
    await expect(lore.platform.health()).resolves.toEqual({ status: "ok" })
    expect(server.seen.map((r) => r.method)).toEqual(["GET", "GET", "GET"])
  })

  it("retries 429, 502 and 504 as well, and gives up after the configured retries with the last error", async () => {
    const server = await stub(text(429, ""), text(502, "<html>bad gateway</html>"), problem(504, "GATEWAY_TIMEOUT"))
    const lore = createLoreClient({ baseUrl: server.url, retry: { retries: 2, baseDelayMs: 5 } })
    const error = await lore.me.get().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LoreApiError)
    expect((error as LoreApiError).status).toBe(504)
    expect(server.seen).toHaveLength(3)
  })

  it("retries a DELETE (idempotent) and re-sends a PUT body on every attempt", async () => {
    const server = await stub(text(503, ""), (_r, response) => response.writeHead(204).end())
    const lore = createLoreClient({ baseUrl: server.url, token: "t", retry: fast })
    await lore.tokens.revoke("7f0c9a52-3b0e-4d8e-9d7a-2a4f3c1b0e11")
    expect(server.seen.map((r) => r.method)).toEqual(["DELETE", "DELETE"])

    const put = await stub(text(503, ""), json(200, { ok: true }))
    const raw = createLoreClient({ baseUrl: put.url, retry: fast })
    const { response } = await (raw.raw as any).PUT("/api/anything", { body: { a: 1 } })
    expect(response.status).toBe(200)
    expect(put.seen.map((r) => r.body)).toEqual(['{"a":1}', '{"a":1}'])
  })

  it("never retries a POST", async () => {
    const server = await stub(problem(503, "SERVICE_UNAVAILABLE"), json(201, {}))
    const lore = createLoreClient({ baseUrl: server.url, token: "t", retry: fast })
    const error = await lore.tokens.create({ name: "ci" }).catch((e: unknown) => e)
    expect(LoreApiError.is(error) && error.code).toBe("SERVICE_UNAVAILABLE")
    expect(server.seen).toHaveLength(1)
  })

  it("does not retry other errors such as 500 or 404", async () => {
    const server = await stub(problem(500, "INTERNAL_ERROR"), json(200, {}))
    const lore = createLoreClient({ baseUrl: server.url, retry: fast })
    await expect(lore.platform.health()).rejects.toMatchObject({ status: 500, code: "INTERNAL_ERROR" })
    expect(server.seen).toHaveLength(1)
  })

  it("honors Retry-After in seconds over its own (much shorter) backoff", async () => {
    const server = await stub(text(503, "", { "retry-after": "1" }), json(200, { status: "ok" }))
    const lore = createLoreClient({ baseUrl: server.url, retry: { retries: 1, baseDelayMs: 1 } })
    await lore.platform.health()
    const waited = server.seen[1]!.at - server.seen[0]!.at
    expect(waited).toBeGreaterThanOrEqual(950)
    expect(waited).toBeLessThan(3000)
  })

  it("caps a long Retry-After at maxDelayMs", async () => {
    const server = await stub(text(429, "", { "retry-after": "3600" }), json(200, { status: "ok" }))
    const lore = createLoreClient({ baseUrl: server.url, retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 50 } })
    const started = Date.now()
    await lore.platform.health()
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z")
    expect(retryAfterMs("2", now)).toBe(2000)
    expect(retryAfterMs("Wed, 01 Jan 2025 00:00:05 GMT", now)).toBe(5000)
    expect(retryAfterMs("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0)
    expect(retryAfterMs("soon", now)).toBeUndefined()
    expect(retryAfterMs(null, now)).toBeUndefined()
  })

  it("does not retry at all with retry: false", async () => {
    const server = await stub(text(503, ""), json(200, {}))
    const lore = createLoreClient({ baseUrl: server.url, retry: false })
    await expect(lore.platform.health()).rejects.toMatchObject({ status: 503, code: "HTTP_503" })
    expect(server.seen).toHaveLength(1)
  })
})
