import type { JSONSchema7, SharedV3ProviderOptions } from "@ai-sdk/provider"
import { APICallError, generateText, jsonSchema, type ModelMessage, Output, streamText, tool, type ToolSet } from "ai"
import type { CallTarget, ChatChunk, ChatCompletion, ChatMessage, ChatRequest, ChatUsage } from "./ChatTypes"
import { ChatError } from "./ChatTypes"
import { GatewayCallError } from "./GatewayFetch"
import { chatModel, OPENAI_COMPATIBLE_OPTIONS, type ProviderConnection } from "./Providers"

// The AI SDK prints its warnings (an unknown model's default token limit, say) to the console; Lore logs its own.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

/**
 * Anthropic takes reasoning effort as a thinking budget in tokens (at least 1024), which its provider adds to
 * max_tokens so the answer keeps its own room. Thinking cannot be combined with a forced tool, so structured
 * output (a forced tool on models without native structured output) goes without.
 */
const THINKING_BUDGET = { MINIMAL: 1024, LOW: 2048, MEDIUM: 8192, HIGH: 24576 } as const
const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096

/** A call's arguments as JSON text; an input the model wrote that is not JSON (an invalid call) stays as written. */
const argumentsText = (input: unknown) => (typeof input === "string" ? input : JSON.stringify(input ?? {}))

const parsedArguments = (raw: string): unknown => {
  try {
    return JSON.parse(raw || "{}")
  } catch {
    return raw
  }
}

/** Lore's messages as the AI SDK's: system text apart, tool results named after the call they answer. */
const modelMessages = (messages: ReadonlyArray<ChatMessage>) => {
  const toolNames = new Map<string, string>()
  const system = messages.filter((message) => message.role === "system").map((message) => message.content).join("\n\n")
  const rest = messages.filter((message) => message.role !== "system").map((message): ModelMessage => {
    switch (message.role) {
      case "assistant": {
        if (!message.toolCalls?.length) return { role: "assistant", content: message.content }
        for (const call of message.toolCalls) toolNames.set(call.id, call.name)
        return {
          role: "assistant",
          content: [
            ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
            ...message.toolCalls.map((call) => ({ type: "tool-call" as const, toolCallId: call.id, toolName: call.name, input: parsedArguments(call.arguments) }))
          ]
        }
      }
      case "tool": {
        const toolCallId = message.toolCallId ?? ""
        return {
          role: "tool",
          content: [{
            type: "tool-result", toolCallId, toolName: message.toolName ?? toolNames.get(toolCallId) ?? "tool",
            output: message.isError ? { type: "error-text", value: message.content } : { type: "text", value: message.content }
          }]
        }
      }
      default:
        return { role: "user", content: message.content }
    }
  })
  return { system, messages: rest }
}

const toolSet = (request: ChatRequest): ToolSet | undefined =>
  request.tools?.length
    ? Object.fromEntries(request.tools.map((candidate) => [candidate.name, tool({
        description: candidate.description,
        inputSchema: jsonSchema(candidate.parameters as JSONSchema7)
      })]))
    : undefined

/** The call's settings: Lore's fetch retries, so the SDK does not; reasoning effort in each protocol's terms. */
const callSettings = (target: CallTarget, request: ChatRequest, abortSignal: AbortSignal | undefined) => {
  const { system, messages } = modelMessages(request.messages)
  const tools = toolSet(request)
  const effort = target.reasoningEffort && target.reasoningEffort !== "NONE" ? target.reasoningEffort : undefined
  const anthropic = target.protocol === "ANTHROPIC_COMPATIBLE"
  const thinking = anthropic && effort && !request.responseSchema ? THINKING_BUDGET[effort] : undefined
  const providerOptions: SharedV3ProviderOptions | undefined = thinking !== undefined
    ? { anthropic: { thinking: { type: "enabled", budgetTokens: thinking } } }
    : !anthropic && effort ? { [OPENAI_COMPATIBLE_OPTIONS]: { reasoningEffort: effort.toLowerCase() } } : undefined
  return {
    ...(system ? { system } : {}),
    messages,
    ...(tools ? { tools, toolChoice: request.toolChoice ?? "auto" } : {}),
    ...(request.responseSchema
      ? { output: Output.object({ schema: jsonSchema(request.responseSchema.schema as JSONSchema7), name: request.responseSchema.name }) }
      : {}),
    ...(request.maxTokens !== undefined || anthropic ? { maxOutputTokens: request.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS } : {}),
    ...(providerOptions ? { providerOptions } : {}),
    maxRetries: 0,
    ...(abortSignal ? { abortSignal } : {})
  }
}

const usageOf = (usage: { readonly inputTokens?: number | undefined; readonly outputTokens?: number | undefined } | undefined): ChatUsage => ({
  inputTokens: usage?.inputTokens ?? 0,
  outputTokens: usage?.outputTokens ?? 0
})

/** A provider's words, shortened, with the key taken out wherever it might be quoted back. */
const shortened = (text: string, apiKey: string | undefined) => {
  const cut = apiKey ? text.split(apiKey).join("[redacted]") : text
  return cut.length > 200 ? `${cut.slice(0, 200)}…` : cut
}

/** What went wrong, in the gateway test's codes: Lore's fetch's own failures, the provider's status, or an unreadable answer. */
export const chatErrorOf = (error: unknown, apiKey: string | undefined): ChatError => {
  if (error instanceof ChatError) return error
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 6; current = current.cause, depth++) {
    if (current instanceof GatewayCallError) {
      return new ChatError({ code: current.reason === "TOO_LARGE" ? "BAD_RESPONSE" : current.reason, message: shortened(current.message, apiKey) })
    }
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode
    if (status === undefined) return new ChatError({ code: "UNREACHABLE", message: shortened(error.message, apiKey) })
    const said = shortened(error.responseBody ?? error.message, apiKey)
    if (status >= 300 && status < 400) {
      return new ChatError({ code: "BAD_RESPONSE", message: `${status}: a redirect, which Lore does not follow with a key; set the gateway's base URL to where it points` })
    }
    return new ChatError({
      code: status === 401 || status === 403 ? "UNAUTHORIZED" : status === 429 ? "RATE_LIMITED" : "BAD_RESPONSE",
      message: `${status}: ${said}`
    })
  }
  return new ChatError({ code: "BAD_RESPONSE", message: shortened(error instanceof Error ? error.message : String(error), apiKey) })
}

/** One call, answered whole. */
export const complete = async (target: CallTarget, connection: ProviderConnection, request: ChatRequest, signal?: AbortSignal): Promise<ChatCompletion> => {
  try {
    const result = await generateText({ model: chatModel(connection, target.modelId), ...callSettings(target, request, signal) })
    if (request.responseSchema) await Promise.resolve(result.output)
    return {
      text: result.text,
      toolCalls: result.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: argumentsText(call.input) })),
      finishReason: result.rawFinishReason ?? result.finishReason,
      usage: usageOf(result.usage)
    }
  } catch (error) {
    throw chatErrorOf(error, target.apiKey)
  }
}

/**
 * One call, streamed: text as it arrives, each tool call's start and argument deltas and then the whole
 * call, and the finish with the usage. Retried (by Lore's fetch) only until the response starts.
 */
export async function* streamChat(target: CallTarget, connection: ProviderConnection, request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
  const result = streamText({
    model: chatModel(connection, target.modelId),
    ...callSettings(target, request, signal),
    // Errors come as `error` parts below; the SDK would otherwise also print them.
    onError: () => undefined
  })
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "text-delta":
          if (part.text) yield { _tag: "text", text: part.text }
          break
        case "tool-input-start":
          yield { _tag: "toolInputStart", id: part.id, name: part.toolName }
          break
        case "tool-input-delta":
          yield { _tag: "toolInputDelta", id: part.id, delta: part.delta }
          break
        case "tool-call":
          yield { _tag: "toolCall", call: { id: part.toolCallId, name: part.toolName, arguments: argumentsText(part.input) } }
          break
        case "finish":
          yield { _tag: "finish", finishReason: part.rawFinishReason ?? part.finishReason, usage: usageOf(part.totalUsage) }
          break
        case "error":
          throw part.error
        case "abort":
          throw new ChatError({ code: "BAD_RESPONSE", message: "The call was cancelled" })
      }
    }
  } catch (error) {
    throw chatErrorOf(error, target.apiKey)
  }
}
