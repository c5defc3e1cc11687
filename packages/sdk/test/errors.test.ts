import { createServer } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { createLoreClient, LoreApiError } from "../src/index"
import { json, problem, startStub, text } from "./support/stubServer"

const stubs: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()))
})
const stub = async (...replies: Parameters<typeof startStub>) => {
  const started = await startStub(...replies)
  stubs.push(started)
  return started
}

/** A port on which nothing listens: bound, read, then released. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

describe("LoreApiError", () => {
  it("carries the problem+json fields of the server's answer", async () => {
    const errors = [{ path: "name", message: "is missing" }]
    const server = await stub(problem(400, "VALIDATION_FAILED", { errors }))
    const lore = createLoreClient({ baseUrl: server.url, token: "t" })
    const error = await lore.tokens.create({ name: "" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LoreApiError)
    expect(error).toBeInstanceOf(Error)
    const e = error as LoreApiError
    expect(e.name).toBe("LoreApiError")
    expect(e.status).toBe(400)
    expect(e.code).toBe("VALIDATION_FAILED")
    expect(e.detail).toBe("detail of VALIDATION_FAILED")
    expect(e.requestId).toBe("req-from-body")
    expect(e.errors).toEqual(errors)
    expect(e.problem).toMatchObject({ status: 400, code: "VALIDATION_FAILED", type: "https://lore.dev/problems/validation_failed" })
    expect(e.message).toContain("VALIDATION_FAILED")
  })

  it("turns a non-problem body (a proxy's HTML 502) into code HTTP_<status>, request id from the header", async () => {
    const server = await stub(text(502, "<html><body>Bad Gateway</body></html>", { "x-request-id": "edge-1" }))
    const lore = createLoreClient({ baseUrl: server.url, retry: false })
    const error = (await lore.me.get().catch((e: unknown) => e)) as LoreApiError
    expect(LoreApiError.is(error)).toBe(true)
    expect(error.status).toBe(502)
    expect(error.code).toBe("HTTP_502")
    expect(error.requestId).toBe("edge-1")
    expect(error.detail).not.toContain("<html>")
    expect(error.problem.status).toBe(502)
  })

  it("turns an empty error body into code HTTP_<status>", async () => {
    const server = await stub((_r, response) => response.writeHead(401).end())
    const lore = createLoreClient({ baseUrl: server.url })
    await expect(lore.me.get()).rejects.toMatchObject({ status: 401, code: "HTTP_401", requestId: undefined })
  })

  it("reports a refused connection as status 0, NETWORK_ERROR, keeping the cause", async () => {
    const port = await closedPort()
    const lore = createLoreClient({ baseUrl: `http://127.0.0.1:${port}`, retry: { retries: 1, baseDelayMs: 1 } })
    const error = (await lore.platform.health().catch((e: unknown) => e)) as LoreApiError
    expect(error).toBeInstanceOf(LoreApiError)
    expect(error.status).toBe(0)
    expect(error.code).toBe("NETWORK_ERROR")
    expect(error.cause).toBeInstanceOf(Error)
    expect(error.detail).toContain(`127.0.0.1:${port}/api/health`)
  })

  it("retries a network failure of a GET before giving up, but not of a POST", async () => {
    let calls = 0
    const failing = async () => {
      calls++
      throw new TypeError("fetch failed")
    }
    const lore = createLoreClient({ baseUrl: "http://lore.invalid", fetch: failing, retry: { retries: 2, baseDelayMs: 1 } })
    await expect(lore.me.get()).rejects.toMatchObject({ status: 0, code: "NETWORK_ERROR" })
    expect(calls).toBe(3)
    calls = 0
    await expect(lore.tokens.create({ name: "x" })).rejects.toMatchObject({ status: 0, code: "NETWORK_ERROR" })
    expect(calls).toBe(1)
  })

  it("lets an abort through unchanged instead of retrying it", async () => {
    const server = await stub((_r, response) => setTimeout(() => response.writeHead(200).end("{}"), 2000))
    const lore = createLoreClient({ baseUrl: server.url })
    const controller = new AbortController()
    const pending = lore.raw.GET("/api/health", { signal: controller.signal })
    setTimeout(() => controller.abort(), 20)
    await expect(pending).rejects.toMatchObject({ name: "AbortError" })
    expect(server.seen).toHaveLength(1)
  })
})

describe("credentials", () => {
  it("sends a bearer token and the default user agent", async () => {
    const server = await stub(json(200, { authenticated: true }))
    const lore = createLoreClient({ baseUrl: `${server.url}/`, token: "lore_pat_abc", headers: { "x-extra": "1" } })
    await lore.me.get()
    expect(server.seen[0]!.headers.authorization).toBe("Bearer lore_pat_abc")
    expect(server.seen[0]!.headers["user-agent"]).toMatch(/^lore-sdk\//)
    expect(server.seen[0]!.headers["x-extra"]).toBe("1")
    expect(server.seen[0]!.url).toBe("/api/me")
  })

  it("in cookie mode keeps the session cookie, fetches the CSRF token once and refetches it after a rejection", async () => {
    let csrfCalls = 0
    const server = await stub((request, response) => {
      if (request.url === "/api/session" && request.method === "POST") {
        response.writeHead(201, { "content-type": "application/json", "set-cookie": "lore_session=s1; Path=/; HttpOnly; Max-Age=3600" })
        return response.end(JSON.stringify({ authenticated: true }))
      }
      if (request.url === "/api/session/csrf") {
        csrfCalls++
        return json(200, { headerName: "X-CSRF-Token", parameterName: "_csrf", token: `c${csrfCalls}` })(request, response, 0)
      }
      // The first token issued after sign-in is "stale": the server wants the next one.
      const ok = request.headers.cookie === "lore_session=s1" && request.headers["x-csrf-token"] === `c${csrfCalls}` && csrfCalls >= 3
      if (!ok) return problem(403, "CSRF_TOKEN_INVALID")(request, response, 0)
      json(201, { id: "1", token: "lore_pat_new" })(request, response, 0)
    })
    const lore = createLoreClient({ baseUrl: server.url, auth: "cookie" })
    await lore.session.signIn("lore_pat_abc")
    const issued = await lore.tokens.create({ name: "from cookie" })
    expect(issued.token).toBe("lore_pat_new")
    // csrf before sign-in (c1), after sign-in (c2, rejected), once more (c3, accepted)
    expect(csrfCalls).toBe(3)
    const posts = server.seen.filter((r) => r.url === "/api/me/tokens")
    expect(posts.map((r) => r.body)).toEqual(['{"name":"from cookie"}', '{"name":"from cookie"}'])
    expect(server.seen.every((r) => r.headers.authorization === undefined)).toBe(true)
  })
})
