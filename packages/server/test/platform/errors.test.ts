import { createLoreClient, LoreApiError } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"
import { expectProblem } from "./expectProblem"

const MAX_JSON_BYTES = 4096

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ maxJsonBytes: MAX_JSON_BYTES })
})
afterAll(() => server?.dispose())

const postTokens = (body: BodyInit, extra: RequestInit = {}) =>
  fetch(`${server.url}/api/me/tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
    body,
    ...extra
  })

describe("request bodies", () => {
  it("malformed JSON is 400 MALFORMED_BODY", async () => {
    await expectProblem(await postTokens("{not json"), 400, "MALFORMED_BODY")
  })

  it("a field of the wrong type is 400 VALIDATION_FAILED naming the field", async () => {
    const problem = await expectProblem(await postTokens(JSON.stringify({ name: 5 })), 400, "VALIDATION_FAILED")
    expect(problem.errors).toEqual([expect.objectContaining({ path: "name", message: expect.any(String) })])
  })

  it("a missing field is 400 VALIDATION_FAILED naming the field", async () => {
    const problem = await expectProblem(await postTokens(JSON.stringify({ expiresInDays: 3 })), 400, "VALIDATION_FAILED")
    expect(problem.errors?.map((e) => e.path)).toContain("name")
  })

  it("an unknown field is 400 VALIDATION_FAILED naming the field, not silently dropped", async () => {
    const problem = await expectProblem(await postTokens(JSON.stringify({ name: "ok", admin: true })), 400, "VALIDATION_FAILED")
    expect(problem.errors?.map((e) => e.path)).toContain("admin")
  })

  it("the SDK surfaces the same as a LoreApiError with errors[]", async () => {
    const lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const error = await lore.tokens.create({ name: "x", expiresInDays: 0 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LoreApiError)
    expect(error).toMatchObject({ status: 400, code: "VALIDATION_FAILED" })
    expect((error as LoreApiError).errors?.[0]?.path).toBe("expiresInDays")
  })

  it("a JSON body over the limit is 413 problem+json", async () => {
    const body = JSON.stringify({ name: "x".repeat(MAX_JSON_BYTES * 2) })
    const problem = await expectProblem(await postTokens(body), 413, "PAYLOAD_TOO_LARGE")
    expect(problem.detail).toContain("at most 4 KiB (4096 bytes) of JSON (LORE_MAX_JSON_BYTES)")
  })

  // Known server bug: without Content-Length the limit trips while reading, and the platform's
  // "maxBytes exceeded" decode error comes out as 400 MALFORMED_BODY. Flip to `it` once fixed.
  it("a chunked JSON body over the limit (no Content-Length) is 413 problem+json too", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ name: "x".repeat(MAX_JSON_BYTES * 2) }))
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes)
        controller.close()
      }
    })
    await expectProblem(await postTokens(stream, { duplex: "half" } as RequestInit), 413, "PAYLOAD_TOO_LARGE")
  })
})

describe("validation messages", () => {
  it("say in words what a field must be, without the schema's internals or the optional field's undefined", async () => {
    const problem = await expectProblem(await postTokens(JSON.stringify({ name: "ok", expiresInDays: "500" })), 400, "VALIDATION_FAILED")
    expect(problem.errors).toEqual([{ path: "expiresInDays", message: "must be a number or null" }])
    expect(problem.detail).toBe("The request is invalid: expiresInDays must be a number or null")
    expect(JSON.stringify(problem)).not.toMatch(/undefined|readonly|Expected|actual/)
  })

  it("name the range and the accepted values of query parameters", async () => {
    const response = await fetch(`${server.url}/api/knowledge/search?q=%20&limit=500&classification=SECRET`, {
      headers: { authorization: `Bearer ${server.adminToken}` }
    })
    const problem = await expectProblem(response, 400, "VALIDATION_FAILED")
    expect(problem.errors).toEqual(expect.arrayContaining([
      { path: "q", message: "must contain a word" },
      { path: "limit", message: "must be a number from 1 to 100" },
      { path: "classification", message: "must be one of PUBLIC, INTERNAL, CONFIDENTIAL, RESTRICTED" }
    ]))
  })

  it("never echo a submitted value: not a long field, not a secret in a wrong-shaped body", async () => {
    const long = "y".repeat(3000)
    const secret = "lore_pat_" + "S3cr3t".repeat(10)
    const tooLong = await expectProblem(await postTokens(JSON.stringify({ name: long })), 400, "VALIDATION_FAILED")
    expect(tooLong.errors).toEqual([{ path: "name", message: "must be at most 100 characters" }])
    expect(JSON.stringify(tooLong)).not.toContain("yyyyyyyy")
    const wrongShape = await expectProblem(await postTokens(JSON.stringify({ name: 7, apiKey: secret })), 400, "VALIDATION_FAILED")
    expect(JSON.stringify(wrongShape)).not.toContain("S3cr3t")
    expect(wrongShape.errors).toEqual(expect.arrayContaining([
      { path: "name", message: "must be text" },
      { path: "apiKey", message: "is not accepted here; the accepted fields are name, expiresInDays" }
    ]))
  })
})

describe("the NUL character, which PostgreSQL cannot store", () => {
  it("in a JSON body is 400 VALIDATION_FAILED, not a 500 from the database", async () => {
    const problem = await expectProblem(await postTokens(JSON.stringify({ name: "a\u0000b" })), 400, "VALIDATION_FAILED")
    expect(problem.errors?.[0]?.message).toContain("NUL")
  })
})

describe("routing", () => {
  it("an unknown route is 404 ROUTE_NOT_FOUND", async () => {
    await expectProblem(await fetch(`${server.url}/api/no-such-thing`), 404, "ROUTE_NOT_FOUND")
  })

  it("an unknown route is 404 even with credentials", async () => {
    const response = await fetch(`${server.url}/api/no-such-thing`, { headers: { authorization: `Bearer ${server.adminToken}` } })
    await expectProblem(response, 404, "ROUTE_NOT_FOUND")
  })

  it("a known route with the wrong method is 405 METHOD_NOT_ALLOWED with Allow", async () => {
    const response = await fetch(`${server.url}/api/health`, { method: "POST" })
    expect(response.headers.get("allow")).toBe("GET")
    await expectProblem(response, 405, "METHOD_NOT_ALLOWED")
  })

  it("a route that needs credentials is 401 UNAUTHENTICATED problem+json without them", async () => {
    await expectProblem(await fetch(`${server.url}/api/me/tokens`), 401, "UNAUTHENTICATED")
  })
})

describe("X-Request-Id", () => {
  it("keeps the caller's id, on success and in the problem body", async () => {
    const ok = await fetch(`${server.url}/api/health`, { headers: { "x-request-id": "trace-abc.123" } })
    expect(ok.headers.get("x-request-id")).toBe("trace-abc.123")
    const failed = await fetch(`${server.url}/api/nope`, { headers: { "x-request-id": "trace-def:456" } })
    const problem = await expectProblem(failed, 404, "ROUTE_NOT_FOUND")
    expect(problem.requestId).toBe("trace-def:456")
  })

  it("generates one when absent (or unusable), different per request", async () => {
    const a = await fetch(`${server.url}/api/health`)
    const b = await fetch(`${server.url}/api/health`, { headers: { "x-request-id": "has spaces and\ttabs" } })
    const idA = a.headers.get("x-request-id")
    const idB = b.headers.get("x-request-id")
    expect(idA).toMatch(/^[0-9a-f-]{36}$/)
    expect(idB).toMatch(/^[0-9a-f-]{36}$/)
    expect(idA).not.toBe(idB)
  })

  it("the SDK's LoreApiError carries the request id of the problem", async () => {
    const lore = createLoreClient({ baseUrl: server.url, headers: { "x-request-id": "sdk-trace-1" } })
    await expect(lore.me.get()).rejects.toMatchObject({ status: 401, requestId: "sdk-trace-1" })
  })
})
