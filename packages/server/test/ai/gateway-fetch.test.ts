import { describe, expect, it } from "vitest"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { GatewayCallError, gatewayFetch, redactHeaders, retryDelayMs } from "../../src/ai/GatewayFetch"
import { extractiveAnswer, salientTerms } from "../../src/ai/LocalModel"

describe("Lore's fetch for the provider libraries", () => {
  it("waits what Retry-After asks (seconds or a date, at most 30 s), else backs off from 250 ms", () => {
    expect(retryDelayMs("2", 0)).toBe(2_000)
    expect(retryDelayMs("3600", 0)).toBe(30_000)
    const inFive = new Date(Date.now() + 5_000).toUTCString()
    expect(retryDelayMs(inFive, 0)).toBeGreaterThan(3_000)
    expect(retryDelayMs(inFive, 0)).toBeLessThanOrEqual(5_000)
    expect([0, 1, 2].map((attempt) => retryDelayMs(null, attempt))).toEqual([250, 500, 1_000])
    expect(retryDelayMs("soon", 1)).toBe(500)
  })

  it("redacts every header that carries a key", () => {
    expect(redactHeaders({ Authorization: "Bearer sk-1", "api-key": "az", "x-api-key": "an", "content-type": "application/json" }))
      .toEqual({ Authorization: "[redacted]", "api-key": "[redacted]", "x-api-key": "[redacted]", "content-type": "application/json" })
  })

  it("never follows a redirect (the key would travel with it) and drops an empty key header", async () => {
    const seen: Array<{ url: string; headers: Record<string, unknown> }> = []
    const server = createServer((request, response) => {
      seen.push({ url: request.url ?? "", headers: request.headers })
      if (request.url === "/moved") {
        response.writeHead(307, { location: "/elsewhere" })
        return response.end()
      }
      response.writeHead(200, { "content-type": "application/json" })
      response.end("{}")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const logged: Array<Record<string, string>> = []
      const fetch = gatewayFetch({ attempts: 1, timeoutMs: 2_000, onRequest: (_, headers) => void logged.push(headers) })
      const moved = await fetch(`${base}/moved`, { method: "POST", headers: { "x-api-key": "sk-secret" }, body: "{}" })
      expect(moved.status).toBe(307)
      expect(seen.map((request) => request.url)).toEqual(["/moved"])
      expect(logged[0]).toEqual({ "x-api-key": "[redacted]" })
      await fetch(`${base}/ok`, { method: "POST", headers: { "x-api-key": "", "content-type": "application/json" }, body: "{}" })
      expect(seen[1]!.headers["x-api-key"]).toBeUndefined()
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it("answers UNREACHABLE after its attempts when nothing listens, naming the cause", async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const error = await gatewayFetch({ attempts: 2 })(`http://127.0.0.1:${port}/v1/chat/completions`, { method: "POST", body: "{}" }).catch((error) => error)
    expect(error).toBeInstanceOf(GatewayCallError)
    expect(error).toMatchObject({ reason: "UNREACHABLE" })
    expect(error.message).toMatch(/ECONNREFUSED/)
  })
})

describe("LOCAL", () => {
  it("cites passages by their position and lists each source once", () => {
    const answer = extractiveAnswer("How long is the notice period for leaving?", [
      { id: "a", title: "Pay", text: "Salaries are paid monthly." },
      { id: "b", title: "Leaving", text: "The notice period is one month. Leaving staff return their laptops." }
    ])
    expect(answer.citations).toEqual([{ index: 2, passageId: "b", title: "Leaving" }])
    expect(answer.text).toContain("\"The notice period is one month.\" [2]")
    expect(answer.text.match(/\[2\] Leaving/g)).toHaveLength(1)
  })

  it("says nothing relevant was found when there are no passages", () => {
    expect(extractiveAnswer("anything at all?", []).text).toMatch(/nothing relevant/)
    expect(salientTerms("The THE the, and of")).toEqual([])
  })
})
