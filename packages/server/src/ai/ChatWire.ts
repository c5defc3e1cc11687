import { Data } from "effect"
import { authHeaders } from "./GatewayProbe"
import type { GatewayProtocol, ReasoningEffort } from "./Model"

/** One turn of a conversation, in the shape both wire protocols can carry. */
export interface ChatMessage {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly content: string
  /** On a `tool` message: the call it answers. */
  readonly toolCallId?: string
  /** On an `assistant` message: the tools it asked for. */
  readonly toolCalls?: ReadonlyArray<ToolCall>
}

export interface ChatTool {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments. */
  readonly parameters: Record<string, unknown>
}

export interface ToolCall {
  readonly id: string
  readonly name: string
  /** The arguments as the model wrote them (JSON text, assembled from the streamed deltas). */
  readonly arguments: string
}

export interface ChatRequest {
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools?: ReadonlyArray<ChatTool>
  /** Structured output: the answer is JSON matching this schema. */
  readonly responseSchema?: { readonly name: string; readonly schema: Record<string, unknown> }
  readonly maxTokens?: number
}

export interface ChatUsage {
  readonly inputTokens: number
  readonly outputTokens: number
}

export type ChatChunk =
  | { readonly _tag: "text"; readonly text: string }
  | { readonly _tag: "toolCall"; readonly call: ToolCall }
  | { readonly _tag: "finish"; readonly finishReason: string; readonly usage: ChatUsage }

export interface ChatCompletion {
  readonly text: string
  readonly toolCalls: ReadonlyArray<ToolCall>
  readonly finishReason: string
  readonly usage: ChatUsage
}

/** Why a model call failed; the codes are the gateway test's. */
export class ChatError extends Data.TaggedError("ChatError")<{
  readonly code: "UNAUTHORIZED" | "RATE_LIMITED" | "UNREACHABLE" | "TIMEOUT" | "BAD_RESPONSE" | "CREDENTIAL_UNREADABLE"
  readonly message: string
}> {}

/** Where and how to call: a resolved route. */
export interface WireTarget {
  readonly protocol: Exclude<GatewayProtocol, "LOCAL">
  readonly baseUrl: string
  readonly modelId: string
  readonly apiKey: string | undefined
  readonly requestTimeoutSeconds: number
  readonly reasoningEffort?: ReasoningEffort | undefined
  /** Attempts for a request (or a stream before its first chunk) answered 429, 5xx or not at all. */
  readonly attempts?: number
}

const MAX_RETRY_WAIT_MS = 30_000
const NO_USAGE: ChatUsage = { inputTokens: 0, outputTokens: 0 }

/** The request headers with every credential-bearing one shown as `[redacted]`, for logs. */
export const redactHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) =>
    ["authorization", "api-key", "x-api-key"].includes(name.toLowerCase()) ? [name, "[redacted]"] : [name, value]))

const endpoint = (baseUrl: string, path: string) => {
  const url = new URL(baseUrl)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path}`
  return url.toString()
}

/** The wait Retry-After asks for (seconds or an HTTP date), else exponential backoff from 250 ms. */
export const retryDelayMs = (retryAfter: string | null, attempt: number) => {
  if (retryAfter !== null) {
    const seconds = Number(retryAfter)
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now()
    if (Number.isFinite(ms)) return Math.min(MAX_RETRY_WAIT_MS, Math.max(0, ms))
  }
  return Math.min(MAX_RETRY_WAIT_MS, 250 * 2 ** attempt)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const shortened = (text: string, apiKey: string | undefined) => {
  const cut = apiKey ? text.split(apiKey).join("[redacted]") : text
  return cut.length > 200 ? `${cut.slice(0, 200)}…` : cut
}

/** Races `promise` against requestTimeoutSeconds: no answer (first byte, next chunk) within it is TIMEOUT. */
const within = <A>(promise: Promise<A>, target: WireTarget, abort: AbortController, what: string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Rejects before aborting, so the race settles on TIMEOUT rather than on the aborted read.
      reject(new ChatError({ code: "TIMEOUT", message: `No ${what} within ${target.requestTimeoutSeconds}s` }))
      abort.abort()
    }, target.requestTimeoutSeconds * 1000)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

export interface WireRequest {
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: Record<string, unknown>
}

const openAiMessages = (messages: ReadonlyArray<ChatMessage>) =>
  messages.map((message) =>
    message.role === "tool"
      ? { role: "tool", tool_call_id: message.toolCallId, content: message.content }
      : message.toolCalls?.length
        ? {
            role: message.role, content: message.content || null,
            tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }))
          }
        : { role: message.role, content: message.content })

const anthropicMessages = (messages: ReadonlyArray<ChatMessage>) =>
  messages.filter((message) => message.role !== "system").map((message) =>
    message.role === "tool"
      ? { role: "user", content: [{ type: "tool_result", tool_use_id: message.toolCallId, content: message.content }] }
      : message.toolCalls?.length
        ? {
            role: "assistant",
            content: [
              ...(message.content ? [{ type: "text", text: message.content }] : []),
              ...message.toolCalls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: JSON.parse(call.arguments || "{}") }))
            ]
          }
        : { role: message.role, content: message.content })

/**
 * Anthropic takes reasoning effort as a thinking budget in tokens (at least 1024), added to max_tokens so the
 * answer keeps its own room. Thinking cannot be combined with a forced tool, so structured output goes without.
 */
const THINKING_BUDGET = { MINIMAL: 1024, LOW: 2048, MEDIUM: 8192, HIGH: 24576 } as const
const thinkingBudget = (target: WireTarget, request: ChatRequest) =>
  target.reasoningEffort && target.reasoningEffort !== "NONE" && !request.responseSchema ? THINKING_BUDGET[target.reasoningEffort] : 0

/** Structured output on Anthropic is a tool the model must call; its input is the answer. */
const STRUCTURED_TOOL = "structured_answer"

/** The HTTP request for a chat call: OpenAI chat completions (also Azure, Gemini, self-hosted) or Anthropic messages. */
export const wireRequest = (target: WireTarget, request: ChatRequest, stream: boolean): WireRequest => {
  const headers = { "content-type": "application/json", ...authHeaders(target.protocol, target.apiKey) }
  if (target.protocol === "ANTHROPIC_COMPATIBLE") {
    const system = request.messages.filter((message) => message.role === "system").map((message) => message.content).join("\n\n")
    const tools = [
      ...(request.tools ?? []).map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })),
      ...(request.responseSchema ? [{ name: STRUCTURED_TOOL, description: `Answer as ${request.responseSchema.name}`, input_schema: request.responseSchema.schema }] : [])
    ]
    return {
      url: endpoint(target.baseUrl, "messages"),
      headers,
      body: {
        model: target.modelId,
        max_tokens: (request.maxTokens ?? 4096) + thinkingBudget(target, request),
        ...(thinkingBudget(target, request) ? { thinking: { type: "enabled", budget_tokens: thinkingBudget(target, request) } } : {}),
        ...(system ? { system } : {}),
        messages: anthropicMessages(request.messages),
        ...(tools.length ? { tools } : {}),
        ...(request.responseSchema ? { tool_choice: { type: "tool", name: STRUCTURED_TOOL } } : {}),
        ...(stream ? { stream: true } : {})
      }
    }
  }
  return {
    url: endpoint(target.baseUrl, "chat/completions"),
    headers,
    body: {
      model: target.modelId,
      messages: openAiMessages(request.messages),
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      ...(request.tools?.length
        ? { tools: request.tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } })) }
        : {}),
      ...(request.responseSchema
        ? { response_format: { type: "json_schema", json_schema: { name: request.responseSchema.name, schema: request.responseSchema.schema, strict: true } } }
        : {}),
      ...(target.reasoningEffort && target.reasoningEffort !== "NONE" ? { reasoning_effort: target.reasoningEffort.toLowerCase() } : {}),
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {})
    }
  }
}

/**
 * Sends the request, retrying 429, 5xx and failed connections with backoff (Retry-After when the provider
 * sends one); answers the first response that is neither. TIMEOUT when no response starts within
 * requestTimeoutSeconds.
 */
const send = async (target: WireTarget, wire: WireRequest, abort: AbortController): Promise<Response> => {
  const attempts = target.attempts ?? 3
  for (let attempt = 0; ; attempt++) {
    let response: Response
    try {
      response = await within(
        fetch(wire.url, { method: "POST", headers: wire.headers, body: JSON.stringify(wire.body), redirect: "manual", signal: abort.signal }),
        target, abort, "response"
      )
    } catch (error) {
      if (error instanceof ChatError) throw error
      if (attempt + 1 < attempts) {
        await sleep(retryDelayMs(null, attempt))
        continue
      }
      throw new ChatError({ code: "UNREACHABLE", message: `Cannot reach ${new URL(wire.url).host}` })
    }
    if (response.ok) return response
    const text = await response.text().catch(() => "")
    const retryable = response.status === 429 || response.status >= 500
    if (retryable && attempt + 1 < attempts) {
      await sleep(retryDelayMs(response.headers.get("retry-after"), attempt))
      continue
    }
    throw new ChatError({
      code: response.status === 401 || response.status === 403 ? "UNAUTHORIZED" : response.status === 429 ? "RATE_LIMITED" : "BAD_RESPONSE",
      message: `${response.status}: ${shortened(text, target.apiKey)}`
    })
  }
}

const badResponse = (message: string) => new ChatError({ code: "BAD_RESPONSE", message })

/** One call, answered whole. */
export const complete = async (target: WireTarget, request: ChatRequest, interrupted?: AbortSignal): Promise<ChatCompletion> => {
  const abort = new AbortController()
  interrupted?.addEventListener("abort", () => abort.abort(), { once: true })
  const response = await send(target, wireRequest(target, request, false), abort)
  const body = await within(response.json() as Promise<any>, target, abort, "answer").catch((error) => {
    throw error instanceof ChatError ? error : badResponse("The answer is not JSON")
  })
  if (target.protocol === "ANTHROPIC_COMPATIBLE") {
    const blocks: Array<any> = Array.isArray(body?.content) ? body.content : []
    const structured = blocks.find((block) => block.type === "tool_use" && block.name === STRUCTURED_TOOL && request.responseSchema)
    return {
      text: structured ? JSON.stringify(structured.input) : blocks.filter((block) => block.type === "text").map((block) => block.text).join(""),
      toolCalls: blocks.filter((block) => block.type === "tool_use" && block !== structured)
        .map((block) => ({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) })),
      finishReason: body?.stop_reason ?? "unknown",
      usage: { inputTokens: body?.usage?.input_tokens ?? 0, outputTokens: body?.usage?.output_tokens ?? 0 }
    }
  }
  const choice = body?.choices?.[0]
  if (!choice) throw badResponse("The answer has no choices")
  return {
    text: choice.message?.content ?? "",
    toolCalls: (choice.message?.tool_calls ?? []).map((call: any) => ({ id: call.id, name: call.function?.name, arguments: call.function?.arguments ?? "" })),
    finishReason: choice.finish_reason ?? "unknown",
    usage: { inputTokens: body?.usage?.prompt_tokens ?? 0, outputTokens: body?.usage?.completion_tokens ?? 0 }
  }
}

/** The `data:` payloads of a server-sent event stream, each within requestTimeoutSeconds of the previous. */
async function* events(response: Response, target: WireTarget, abort: AbortController): AsyncGenerator<string> {
  if (!response.body) throw badResponse("The answer has no body")
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  try {
    for (;;) {
      const { done, value } = await within(reader.read(), target, abort, "chunk")
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      let end: number
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "")
        const data = event.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()).join("\n")
        if (data) yield data
      }
    }
  } finally {
    abort.abort()
  }
}

const parse = (data: string) => {
  try {
    return JSON.parse(data)
  } catch {
    throw badResponse("A stream event is not JSON")
  }
}

/**
 * One call, streamed: text as it arrives, each tool call once its streamed arguments are complete (OpenAI
 * sends them as deltas keyed by index), then the finish with the usage (OpenAI's last chunk, Anthropic's
 * message_start and message_delta). Retried only until the response starts.
 */
export async function* streamChat(target: WireTarget, request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
  const abort = new AbortController()
  // The caller's abort (a client gone) ends the call at once, whatever it is waiting for.
  signal?.addEventListener("abort", () => abort.abort(), { once: true })
  const response = await send(target, wireRequest(target, request, true), abort)
  const calls = new Map<number, { id: string; name: string; arguments: string }>()
  let usage = NO_USAGE
  let finishReason = "unknown"
  if (target.protocol === "ANTHROPIC_COMPATIBLE") {
    for await (const data of events(response, target, abort)) {
      const event = parse(data)
      if (event.type === "message_start") usage = { ...usage, inputTokens: event.message?.usage?.input_tokens ?? 0 }
      else if (event.type === "content_block_start" && event.content_block?.type === "tool_use") {
        calls.set(event.index, { id: event.content_block.id, name: event.content_block.name, arguments: "" })
      } else if (event.type === "content_block_delta" && event.delta?.type === "text_delta") yield { _tag: "text", text: event.delta.text }
      else if (event.type === "content_block_delta" && event.delta?.type === "input_json_delta") {
        const call = calls.get(event.index)
        if (call) call.arguments += event.delta.partial_json ?? ""
      } else if (event.type === "content_block_stop" && calls.has(event.index)) {
        const call = calls.get(event.index)!
        calls.delete(event.index)
        if (call.name === STRUCTURED_TOOL && request.responseSchema) yield { _tag: "text", text: call.arguments }
        else yield { _tag: "toolCall", call }
      } else if (event.type === "message_delta") {
        usage = { ...usage, outputTokens: event.usage?.output_tokens ?? usage.outputTokens }
        finishReason = event.delta?.stop_reason ?? finishReason
      } else if (event.type === "error") throw badResponse(shortened(JSON.stringify(event.error ?? event), target.apiKey))
    }
  } else {
    for await (const data of events(response, target, abort)) {
      if (data === "[DONE]") break
      const chunk = parse(data)
      if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 }
      const choice = chunk.choices?.[0]
      if (!choice) continue
      if (typeof choice.delta?.content === "string" && choice.delta.content) yield { _tag: "text", text: choice.delta.content }
      for (const delta of choice.delta?.tool_calls ?? []) {
        const call = calls.get(delta.index) ?? { id: "", name: "", arguments: "" }
        if (delta.id) call.id = delta.id
        if (delta.function?.name) call.name += delta.function.name
        if (delta.function?.arguments) call.arguments += delta.function.arguments
        calls.set(delta.index, call)
      }
      if (choice.finish_reason) finishReason = choice.finish_reason
    }
    for (const index of [...calls.keys()].sort((a, b) => a - b)) yield { _tag: "toolCall", call: calls.get(index)! }
  }
  yield { _tag: "finish", finishReason, usage }
}
