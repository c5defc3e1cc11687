import { describe, expect, it } from "vitest"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { complete, streamChat } from "../../src/ai/ChatCalls"
import type { CallTarget } from "../../src/ai/ChatTypes"
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

describe("hostile providers", () => {
  const KEY = "sk-hostile-0123456789"
  /** A loopback server that answers every request with `answer`. */
  const hostile = async (answer: (response: import("node:http").ServerResponse) => void) => {
    const server = createServer((request, response) => {
      request.resume()
      request.on("end", () => answer(response))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
    return {
      url,
      close: () => new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
    }
  }
  const target = (baseUrl: string): CallTarget => ({ protocol: "OPENAI_COMPATIBLE", baseUrl, modelId: "m", apiKey: KEY, requestTimeoutSeconds: 5, attempts: 1 })
  const connection = (baseUrl: string, maxBytes?: number) => ({
    protocol: "OPENAI_COMPATIBLE" as const, baseUrl, apiKey: KEY, fetch: gatewayFetch({ attempts: 1, timeoutMs: 5_000, ...(maxBytes ? { maxBytes } : {}) })
  })
  const question = { messages: [{ role: "user" as const, content: "hello" }] }
  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error) => error as { code: string; message: string })

  it("stops reading an answer larger than the limit", async () => {
    const server = await hostile((response) => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(`{"choices":[{"message":{"content":"${"x".repeat(2_000_000)}"}}]}`)
    })
    try {
      const error = await failure(complete(target(server.url), connection(server.url, 1_000_000), question))
      expect(error).toMatchObject({ code: "BAD_RESPONSE", message: expect.stringContaining("larger than 1000000 bytes") })
    } finally {
      await server.close()
    }
  })

  it("answers BAD_RESPONSE for an answer that is not JSON, deeply nested, or a stream of garbage; never a crash", async () => {
    for (const body of ["<html>not an API</html>", "[".repeat(200_000) + "]".repeat(200_000), JSON.stringify({ choices: "nope" })]) {
      const server = await hostile((response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(body)
      })
      try {
        expect(await failure(complete(target(server.url), connection(server.url), question))).toMatchObject({ code: "BAD_RESPONSE" })
      } finally {
        await server.close()
      }
    }
    const garbage = await hostile((response) => {
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.end("data: {not json\n\ndata: [DONE]\n\n")
    })
    try {
      const received: Array<string> = []
      const error = await failure((async () => {
        for await (const chunk of streamChat(target(garbage.url), connection(garbage.url), question)) received.push(chunk._tag)
      })())
      expect(error).toMatchObject({ code: "BAD_RESPONSE" })
    } finally {
      await garbage.close()
    }
  })

  it("passes a tool call whose arguments are not JSON on as written, for the caller to refuse", async () => {
    const server = await hostile((response) => {
      response.writeHead(200, { "content-type": "text/event-stream" })
      const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      response.end(
        chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_x", type: "function", function: { name: "weather", arguments: "{\"city\": " } }] }) +
        chunk({}, "tool_calls") + "data: [DONE]\n\n"
      )
    })
    try {
      const chunks: Array<any> = []
      const tools = [{ name: "weather", description: "The weather", parameters: { type: "object", properties: { city: { type: "string" } } } }]
      for await (const chunk of streamChat(target(server.url), connection(server.url), { ...question, tools })) chunks.push(chunk)
      expect(chunks.find((chunk) => chunk._tag === "toolCall")).toEqual({ _tag: "toolCall", call: { id: "call_x", name: "weather", arguments: "{\"city\": " } })
      expect(chunks.at(-1)).toMatchObject({ _tag: "finish" })
    } finally {
      await server.close()
    }
  })

  it("does not pass on a provider's quote of the key", async () => {
    const server = await hostile((response) => {
      response.writeHead(401, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }))
    })
    try {
      const error = await failure(complete(target(server.url), connection(server.url), question))
      expect(error).toMatchObject({ code: "UNAUTHORIZED" })
      expect(error!.message).not.toContain(KEY)
      expect(error!.message).toContain("[redacted]")
    } finally {
      await server.close()
    }
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
