import { afterEach, describe, expect, it } from "vitest"
import { createLoreClient, isLoreError, LoreApiError } from "../src/index"
import { json, startStub } from "./support/stubServer"

/** Arguments the SDK refuses itself, before any request, with a LoreApiError and a code instead of a RangeError or NETWORK_ERROR. */

const stubs: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()))
})

const thrownBy = (run: () => unknown): unknown => {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}

describe("the base URL", () => {
  it.each([
    ["no scheme", "localhost:8787"],
    ["no scheme, bare host", "lore.example.com"],
    ["a relative path", "/api"],
    ["an empty string", ""],
    ["spaces", "   "],
    ["another scheme", "ftp://lore.example.com"],
    ["a file URL", "file:///srv/lore"],
    ["unparsable", "http://[::1"],
    ["a query", "http://127.0.0.1:8787/?team=a"],
    ["a fragment", "http://127.0.0.1:8787/#top"]
  ])("is refused at construction with code INVALID_BASE_URL: %s", (_case, baseUrl) => {
    const error = thrownBy(() => createLoreClient({ baseUrl, token: "t" }))
    expect(error).toBeInstanceOf(LoreApiError)
    expect(isLoreError(error, "INVALID_BASE_URL")).toBe(true)
    const e = error as LoreApiError
    expect(e.status).toBe(0)
    expect(e.detail).toMatch(/baseUrl/)
    expect(e.detail).toContain("http://127.0.0.1:8787")
  })

  it("says which scheme it got, without echoing the whole URL (it may carry credentials)", () => {
    const e = thrownBy(() => createLoreClient({ baseUrl: "localhost:8787" })) as LoreApiError
    expect(e.detail).toContain("'localhost:'")
    const secret = thrownBy(() => createLoreClient({ baseUrl: "ftp://user:hunter2@lore.example.com" })) as LoreApiError
    expect(secret.message).not.toContain("hunter2")
  })

  it("refuses a value that is not a string (from untyped JavaScript or a missing setting)", () => {
    const error = thrownBy(() => createLoreClient({ baseUrl: undefined as unknown as string }))
    expect(isLoreError(error, "INVALID_BASE_URL")).toBe(true)
  })

  it("accepts http and https roots, with a path and trailing slashes, and sends requests below them", async () => {
    const server = await startStub(json(200, { status: "ok" }))
    stubs.push(server)
    expect(createLoreClient({ baseUrl: "https://lore.example.com" }).baseUrl).toBe("https://lore.example.com")
    expect(createLoreClient({ baseUrl: " HTTP://127.0.0.1:8787/lore// " }).baseUrl).toBe("HTTP://127.0.0.1:8787/lore")
    const lore = createLoreClient({ baseUrl: `${server.url}/` })
    await lore.platform.health()
    expect(server.seen[0]!.url).toBe("/api/health")
  })
})

describe("Date arguments", () => {
  it("an invalid Date is INVALID_ARGUMENT naming the parameter, not a RangeError, and nothing is sent", async () => {
    const server = await startStub(json(200, { items: [], nextCursor: null }))
    stubs.push(server)
    const lore = createLoreClient({ baseUrl: server.url, token: "t" })
    const error = await lore.admin.audit.list({ since: new Date("not a date") }).catch((e: unknown) => e)
    expect(error).not.toBeInstanceOf(RangeError)
    expect(isLoreError(error, "INVALID_ARGUMENT")).toBe(true)
    expect((error as LoreApiError).detail).toContain("since")
    expect((error as LoreApiError).status).toBe(0)
    expect(server.seen).toHaveLength(0)
  })

  it("rejects rather than throwing synchronously, so `.catch` and `await` see it", () => {
    const lore = createLoreClient({ baseUrl: "http://127.0.0.1:9", token: "t" })
    const pending = lore.admin.audit.list({ until: new Date(Number.NaN) })
    expect(pending).toBeInstanceOf(Promise)
    return expect(pending).rejects.toMatchObject({ code: "INVALID_ARGUMENT" })
  })

  it("a valid Date is sent as ISO 8601", async () => {
    const server = await startStub(json(200, { items: [], nextCursor: null }))
    stubs.push(server)
    const lore = createLoreClient({ baseUrl: server.url, token: "t" })
    await lore.admin.audit.list({ since: new Date("2025-01-02T03:04:05Z"), until: "2025-02-01T00:00:00Z" })
    const url = new URL(server.seen[0]!.url, server.url)
    expect(url.searchParams.get("since")).toBe("2025-01-02T03:04:05.000Z")
    expect(url.searchParams.get("until")).toBe("2025-02-01T00:00:00Z")
  })

  it("a number that is not finite is INVALID_ARGUMENT too", async () => {
    const lore = createLoreClient({ baseUrl: "http://127.0.0.1:9", token: "t" })
    await expect(lore.sources.list({ pageSize: Number.NaN })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" })
    await expect(lore.knowledge.search({ q: "x", limit: Number.POSITIVE_INFINITY })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" })
  })
})

describe("uploads", () => {
  it("a stream without a file name is INVALID_ARGUMENT", async () => {
    const lore = createLoreClient({ baseUrl: "http://127.0.0.1:9", token: "t" })
    const file = new Blob(["hello"])
    await expect(lore.sources.upload({ knowledgeSpaceId: "s", file })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", name: "LoreApiError" })
  })
})
