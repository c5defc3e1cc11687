import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A real HTTP server on loopback speaking OpenAI chat completions, streamed (`POST .../chat/completions` with
 * `stream: true`), that follows a fixed plan: for each request the plan reads the conversation so far (the
 * messages, with the tool results Lore sent back) and answers either tool calls (streamed the way OpenAI streams
 * them: the name first, the arguments in pieces, keyed by index) or text deltas. Every request is recorded.
 */

export interface ScriptedMessage {
  readonly role: string
  readonly content: string | null
  readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }>
  readonly tool_call_id?: string
}

export interface ScriptedRequest {
  readonly model: string
  readonly messages: ReadonlyArray<ScriptedMessage>
  readonly tools?: ReadonlyArray<{ readonly type: "function"; readonly function: { readonly name: string; readonly description: string; readonly parameters: any } }>
  readonly tool_choice?: unknown
}

/** Whether the request lets the model call a tool (tools declared, and tool_choice not "none"). */
export const toolsOffered = (request: ScriptedRequest) => (request.tools?.length ?? 0) > 0 && request.tool_choice !== "none"

export type ScriptedReply =
  | { readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: string; readonly id?: string }>; readonly text?: ReadonlyArray<string> }
  | { readonly text: ReadonlyArray<string> }

export interface ScriptedModel {
  readonly url: string
  readonly requests: Array<ScriptedRequest>
  /** Streams the client closed before their end. */
  readonly cut: Array<number>
  readonly close: () => Promise<void>
}

/** The tool results Lore sent back, parsed (an error result stays text), in order. */
export const toolResults = (request: ScriptedRequest): ReadonlyArray<{ readonly toolCallId: string; readonly output: any }> =>
  request.messages.filter((message) => message.role === "tool").map((message) => {
    try {
      return { toolCallId: message.tool_call_id ?? "", output: JSON.parse(message.content ?? "") }
    } catch {
      return { toolCallId: message.tool_call_id ?? "", output: message.content }
    }
  })

/** The calls the model itself made so far (Lore's planner calls are not the model's). */
export const modelCalls = (request: ScriptedRequest) =>
  request.messages.flatMap((message) => message.tool_calls ?? []).filter((call) => !call.id.startsWith("lore_"))

/** Every passage number the tool results carried, in order, once each. */
export const passageNumbers = (request: ScriptedRequest): ReadonlyArray<number> => {
  const found: Array<number> = []
  for (const { output } of toolResults(request)) {
    for (const hit of Array.isArray(output?.hits) ? output.hits : []) if (typeof hit.passage === "number" && !found.includes(hit.passage)) found.push(hit.passage)
  }
  return found
}

export const lastUserText = (request: ScriptedRequest) => [...request.messages].reverse().find((message) => message.role === "user")?.content ?? ""

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const startScriptedModel = async (options: {
  readonly apiKey: string
  readonly plan: (request: ScriptedRequest) => ScriptedReply
  readonly gapMs?: number
  /** Usage reported with each answer. */
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number }
}): Promise<ScriptedModel> => {
  const requests: Array<ScriptedRequest> = []
  const cut: Array<number> = []
  const gap = options.gapMs ?? 2
  const chunk = (delta: unknown, finish: string | null = null) => ({ id: "s1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })

  const answer = async (request: ScriptedRequest, response: ServerResponse, index: number) => {
    const reply = options.plan(request)
    const events: Array<unknown> = []
    if ("toolCalls" in reply) {
      for (const text of reply.text ?? []) events.push(chunk({ role: "assistant", content: text }))
      reply.toolCalls.forEach((call, position) => {
        const id = call.id ?? `call_${index}_${position}`
        const half = Math.ceil(call.arguments.length / 2)
        events.push(chunk({ tool_calls: [{ index: position, id, type: "function", function: { name: call.name, arguments: "" } }] }))
        events.push(chunk({ tool_calls: [{ index: position, function: { arguments: call.arguments.slice(0, half) } }] }))
        events.push(chunk({ tool_calls: [{ index: position, function: { arguments: call.arguments.slice(half) } }] }))
      })
      events.push(chunk({}, "tool_calls"))
    } else {
      reply.text.forEach((text, position) => events.push(chunk(position === 0 ? { role: "assistant", content: text } : { content: text })))
      events.push(chunk({}, "stop"))
    }
    events.push({ id: "s1", object: "chat.completion.chunk", choices: [], usage: options.usage ?? { prompt_tokens: 100, completion_tokens: 20 } }, "[DONE]")
    response.writeHead(200, { "content-type": "text/event-stream" })
    response.on("close", () => {
      if (!response.writableEnded) cut.push(index)
    })
    for (const [position, event] of events.entries()) {
      if (response.destroyed) return
      const data = `data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`
      // The last event ends the response at once: the client stops reading at [DONE].
      if (position === events.length - 1) return void response.end(data)
      response.write(data)
      await sleep(gap)
    }
  }

  const server = createServer((request, response) => {
    let raw = ""
    request.on("data", (part) => (raw += part))
    request.on("end", () => {
      const path = (request.url ?? "/").split("?")[0]!
      const authorization = request.headers.authorization
      if (!path.endsWith("/chat/completions") || request.method !== "POST") {
        response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }))
        return
      }
      if (authorization !== `Bearer ${options.apiKey}`) {
        response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "bad key" } }))
        return
      }
      const body = JSON.parse(raw) as ScriptedRequest & { stream?: boolean }
      requests.push(body)
      answer(body, response, requests.length - 1).catch(() => response.destroy())
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
