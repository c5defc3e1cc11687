import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A real HTTP server on loopback that answers the model lists of the providers Lore supports, for tests:
 *
 * - OpenAI-compatible `GET /v1/models` with `Authorization: Bearer <key>` (also Gemini's and self-hosted servers')
 * - Azure OpenAI `GET /azure/openai/v1/models` with `api-key: <key>`
 * - Anthropic `GET /anthropic/v1/models` with `x-api-key: <key>` and `anthropic-version`
 * - `/slow/...` waits `slowMs` before answering; `/html/v1/models` answers a web page (not an API);
 *   `/redirect/...` redirects to `/collect/...`, which records what arrives
 *
 * A wrong key is answered 401 with the key quoted back, as OpenAI does, so tests can check Lore never
 * passes it on. Every request is recorded.
 */
export interface FakeProviders {
  readonly url: string
  readonly requests: Array<{ readonly method: string; readonly path: string; readonly headers: IncomingMessage["headers"] }>
  readonly close: () => Promise<void>
}

export const startFakeProviders = async (options: { readonly apiKey: string; readonly slowMs?: number }): Promise<FakeProviders> => {
  const requests: FakeProviders["requests"] = []
  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { "content-type": "application/json" })
    response.end(JSON.stringify(body))
  }
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]!
    requests.push({ method: request.method ?? "GET", path, headers: request.headers })
    const answer = () => {
      if (path.startsWith("/redirect/")) {
        response.writeHead(302, { location: path.replace("/redirect/", "/collect/") })
        return response.end()
      }
      if (path.startsWith("/collect/")) return send(response, 200, { data: [{ id: "collected" }] })
      if (path.endsWith("/html/v1/models")) {
        response.writeHead(200, { "content-type": "text/html" })
        return response.end("<html><body>Welcome</body></html>")
      }
      if (path.endsWith("/anthropic/v1/models")) {
        const key = request.headers["x-api-key"]
        if (key !== options.apiKey || request.headers["anthropic-version"] === undefined) {
          return send(response, 401, { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${String(key)}` } })
        }
        return send(response, 200, { data: [{ type: "model", id: "claude-test-1", display_name: "Claude Test 1" }], has_more: false, first_id: "claude-test-1", last_id: "claude-test-1" })
      }
      if (path.endsWith("/azure/openai/v1/models")) {
        const key = request.headers["api-key"]
        if (key !== options.apiKey) return send(response, 401, { error: { code: "401", message: `Access denied due to invalid subscription key ${String(key)}` } })
        return send(response, 200, { object: "list", data: [{ id: "gpt-azure-test", object: "model" }] })
      }
      if (path.endsWith("/v1/models")) {
        const authorization = request.headers.authorization
        if (authorization !== `Bearer ${options.apiKey}`) {
          return send(response, 401, { error: { message: `Incorrect API key provided: ${String(authorization).replace("Bearer ", "")}`, type: "invalid_request_error", code: "invalid_api_key" } })
        }
        return send(response, 200, { object: "list", data: [{ id: "gpt-test", object: "model" }, { id: "embed-test", object: "model" }] })
      }
      send(response, 404, { error: { message: "not found" } })
    }
    if (path.startsWith("/slow/")) setTimeout(answer, options.slowMs ?? 5_000)
    else answer()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/**
 * A real loopback server speaking OpenAI's streamed chat completions (`POST .../chat/completions` with
 * `stream: true`), for benchmarks: it waits `firstTokenMs` before the first chunk (a provider's time to first
 * token), then sends `text`'s pieces `gapMs` apart, the usage and `[DONE]`. Counts the calls it served.
 */
export interface StreamingChatProvider {
  readonly url: string
  readonly calls: () => number
  readonly close: () => Promise<void>
}

export const startStreamingChat = async (options: {
  readonly firstTokenMs: number
  readonly gapMs?: number
  readonly text?: ReadonlyArray<string>
}): Promise<StreamingChatProvider> => {
  const pieces = options.text ?? ["The answer ", "is in ", "the passage ", "[1]."]
  let calls = 0
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  const server = createServer((request, response) => {
    request.resume()
    request.on("end", async () => {
      if (!(request.url ?? "").endsWith("/chat/completions")) {
        response.writeHead(404, { "content-type": "application/json" })
        return response.end(JSON.stringify({ error: { message: "not found" } }))
      }
      calls++
      response.writeHead(200, { "content-type": "text/event-stream" })
      await sleep(options.firstTokenMs)
      const chunk = (delta: unknown, finish: string | null = null) => ({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })
      for (const [index, content] of pieces.entries()) {
        if (response.destroyed) return
        response.write(`data: ${JSON.stringify(chunk(index === 0 ? { role: "assistant", content } : { content }))}\n\n`)
        if (options.gapMs) await sleep(options.gapMs)
      }
      response.write(`data: ${JSON.stringify(chunk({}, "stop"))}\n\n`)
      response.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 100, completion_tokens: pieces.length } })}\n\n`)
      response.end("data: [DONE]\n\n")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}
