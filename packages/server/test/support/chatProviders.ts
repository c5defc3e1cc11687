import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A real HTTP server on loopback speaking OpenAI chat completions (`POST .../chat/completions`, streamed
 * and not, tool calls, `response_format` json_schema) and Anthropic messages (`POST .../anthropic/v1/messages`).
 * Path prefixes change its behaviour:
 *
 * - `/slow/...` waits `slowMs` before answering; `/stall/...` sends one chunk of a stream, then nothing
 * - `/limited/...` answers the first request 429 with `Retry-After: 1`, then normally
 *
 * Streams send their chunks `gapMs` apart, so a test can see them arrive one by one. A wrong key is 401
 * with the key quoted back, as OpenAI does. Every request is recorded with its body.
 */
export interface FakeChat {
  readonly url: string
  readonly requests: Array<{ readonly path: string; readonly at: number; readonly headers: IncomingMessage["headers"]; readonly body: any }>
  /** Streams the client closed before their end (an interrupted call), by request path. */
  readonly cut: Array<string>
  readonly close: () => Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const startFakeChat = async (options: {
  readonly apiKey: string
  readonly slowMs?: number
  readonly gapMs?: number
  /** The streamed answer's text deltas (default "Hel", "lo ", "there"); may depend on the request body. */
  readonly text?: ReadonlyArray<string> | ((body: any) => ReadonlyArray<string>)
}): Promise<FakeChat> => {
  const requests: FakeChat["requests"] = []
  const cut: Array<string> = []
  const gap = options.gapMs ?? 200
  let limitedSeen = false
  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "content-type": "application/json", ...headers })
    response.end(JSON.stringify(body))
  }
  const sse = async (response: ServerResponse, events: ReadonlyArray<unknown>, stall = false, path = "") => {
    response.writeHead(200, { "content-type": "text/event-stream" })
    response.on("close", () => {
      if (!response.writableEnded) cut.push(path)
    })
    for (const [index, event] of events.entries()) {
      if (response.destroyed) return
      response.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`)
      if (stall && index === 0) return // keeps the connection open, sending nothing more
      await sleep(gap)
    }
    response.end()
  }

  const openAi = async (path: string, body: any, response: ServerResponse) => {
    const wantsTools = Array.isArray(body.tools) && body.tools.length > 0
    const structured = body.response_format?.type === "json_schema"
    const text = structured ? JSON.stringify({ keywords: ["alpha", "beta"] }) : "Hello from the fake model"
    if (!body.stream) {
      return send(response, 200, {
        id: "c1", object: "chat.completion", model: body.model,
        choices: [{
          index: 0, finish_reason: wantsTools ? "tool_calls" : "stop",
          message: wantsTools
            ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: body.tools[0].function.name, arguments: "{\"city\":\"Paris\"}" } }] }
            : { role: "assistant", content: text }
        }],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }
      })
    }
    const chunk = (delta: unknown, finish: string | null = null) => ({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })
    const events: Array<unknown> = wantsTools
      ? [
          chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "weather", arguments: "" } }] }),
          chunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "time", arguments: "{\"zone\":" } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: "{\"city\":" } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: "\"Paris\"}" } }] }),
          chunk({ tool_calls: [{ index: 1, function: { arguments: "\"UTC\"}" } }] }),
          chunk({}, "tool_calls")
        ]
      : [
          ...(typeof options.text === "function" ? options.text(body) : options.text ?? ["Hel", "lo ", "there"])
            .map((content, index) => chunk(index === 0 ? { role: "assistant", content } : { content })),
          chunk({}, "stop")
        ]
    events.push({ id: "c1", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } }, "[DONE]")
    await sse(response, events, path.startsWith("/stall/"), path)
  }

  const anthropic = async (body: any, response: ServerResponse) => {
    if (!body.stream) {
      return send(response, 200, {
        id: "m1", type: "message", role: "assistant", model: body.model, stop_reason: "end_turn",
        content: [{ type: "text", text: "Hello from Claude" }], usage: { input_tokens: 13, output_tokens: 4 }
      })
    }
    await sse(response, [
      { type: "message_start", message: { id: "m1", usage: { input_tokens: 9, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi " } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Claude" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 6 } },
      { type: "message_stop" }
    ])
  }

  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]!
    let raw = ""
    request.on("data", (chunk) => (raw += chunk))
    request.on("end", async () => {
      const body = raw ? JSON.parse(raw) : {}
      // The models list a gateway test reads (setting a route tests its gateway): answered at once and not
      // recorded, whatever the path prefix, so that tests see and count model calls only.
      if (request.method === "GET" && path.endsWith("/models")) {
        const key = path.includes("/anthropic/") ? request.headers["x-api-key"] : request.headers.authorization ?? request.headers["api-key"]
        if (key !== `Bearer ${options.apiKey}` && key !== options.apiKey) return send(response, 401, { error: { message: `Incorrect API key provided: ${String(key)}` } })
        return send(response, 200, { object: "list", data: [{ id: "gpt-test", object: "model" }, { id: "claude-test", object: "model", display_name: "Claude test" }] })
      }
      requests.push({ path, at: Date.now(), headers: request.headers, body })
      if (path.startsWith("/slow/")) await sleep(options.slowMs ?? 3_000)
      if (response.destroyed) return
      if (path.startsWith("/limited/") && !limitedSeen) {
        limitedSeen = true
        return send(response, 429, { error: { message: "slow down" } }, { "retry-after": "1" })
      }
      if (path.endsWith("/anthropic/v1/messages")) {
        if (request.headers["x-api-key"] !== options.apiKey) return send(response, 401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } })
        return anthropic(body, response)
      }
      if (path.endsWith("/chat/completions")) {
        const authorization = request.headers.authorization ?? request.headers["api-key"]
        if (authorization !== `Bearer ${options.apiKey}` && authorization !== options.apiKey) {
          return send(response, 401, { error: { message: `Incorrect API key provided: ${String(authorization)}` } })
        }
        return openAi(path, body, response)
      }
      send(response, 404, { error: { message: "not found" } })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cut,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}
