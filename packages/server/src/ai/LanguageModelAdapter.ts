import { AiError, LanguageModel, type Prompt, type Response, Tool } from "@effect/ai"
import { Chunk, Effect, JSONSchema, Stream } from "effect"
import type { ChatChunk, ChatError, ChatMessage, ChatRequest } from "./ChatWire"

/** What the adapter calls: the model layer's generate and stream for one workload and caller. */
export interface ChatBackend {
  readonly generate: (request: ChatRequest) => Effect.Effect<{ readonly text: string; readonly toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }>; readonly finishReason: string; readonly usage: { readonly inputTokens: number; readonly outputTokens: number } }, ChatError>
  readonly stream: (request: ChatRequest) => Effect.Effect<Stream.Stream<ChatChunk, ChatError>, ChatError>
}

const text = (parts: ReadonlyArray<{ readonly type: string }>) =>
  parts.filter((part): part is Prompt.TextPart => part.type === "text").map((part) => part.text).join("")

/** @effect/ai's prompt as the wire's messages (files and reasoning are not sent: no workload uses them yet). */
const messages = (prompt: Prompt.Prompt): ReadonlyArray<ChatMessage> =>
  prompt.content.flatMap((message): ReadonlyArray<ChatMessage> => {
    switch (message.role) {
      case "system":
        return [{ role: "system", content: message.content }]
      case "user":
        return [{ role: "user", content: text(message.content) }]
      case "assistant": {
        const calls = message.content.filter((part): part is Prompt.ToolCallPart => part.type === "tool-call")
          .map((part) => ({ id: part.id, name: part.name, arguments: JSON.stringify(part.params) }))
        return [{ role: "assistant", content: text(message.content), ...(calls.length ? { toolCalls: calls } : {}) }]
      }
      case "tool":
        return message.content.map((part) => ({ role: "tool" as const, toolCallId: part.id, content: JSON.stringify(part.result) }))
    }
  })

const request = (options: LanguageModel.ProviderOptions): ChatRequest => ({
  messages: messages(options.prompt),
  ...(options.tools.length && options.toolChoice !== "none"
    ? { tools: options.tools.map((tool) => ({ name: tool.name, description: Tool.getDescription(tool as any) ?? tool.name, parameters: Tool.getJsonSchema(tool as any) as unknown as Record<string, unknown> })) }
    : {}),
  ...(options.responseFormat.type === "json"
    ? { responseSchema: { name: options.responseFormat.objectName, schema: JSONSchema.make(options.responseFormat.schema) as unknown as Record<string, unknown> } }
    : {})
})

const reason = (finish: string): Response.FinishPartEncoded["reason"] =>
  finish === "stop" || finish === "end_turn" ? "stop"
    : finish === "length" || finish === "max_tokens" ? "length"
    : finish === "tool_calls" || finish === "tool_use" ? "tool-calls"
    : finish === "content_filter" ? "content-filter"
    : "unknown"

const usage = (tokens: { readonly inputTokens: number; readonly outputTokens: number }) => ({
  inputTokens: tokens.inputTokens, outputTokens: tokens.outputTokens, totalTokens: tokens.inputTokens + tokens.outputTokens
})

const params = (raw: string) => {
  try {
    return JSON.parse(raw || "{}") as unknown
  } catch {
    return raw
  }
}

const aiError = (method: string) => (error: ChatError) =>
  new AiError.UnknownError({ module: "Models", method, description: `${error.code}: ${error.message}`, cause: error })

/**
 * The model layer as an @effect/ai LanguageModel, so callers use `LanguageModel.generateText`,
 * `generateObject` and `streamText` whatever the route (LOCAL included). @effect/ai runs tools once and does
 * not loop: a workload that needs a loop writes it.
 */
export const languageModel = (backend: ChatBackend) =>
  LanguageModel.make({
    generateText: (options) =>
      backend.generate(request(options)).pipe(
        Effect.map((answer): Array<Response.PartEncoded> => [
          ...(answer.text ? [{ type: "text" as const, text: answer.text }] : []),
          ...answer.toolCalls.map((call) => ({ type: "tool-call" as const, id: call.id, name: call.name, params: params(call.arguments) })),
          { type: "finish", reason: reason(answer.finishReason), usage: usage(answer.usage) }
        ]),
        Effect.mapError(aiError("generateText"))
      ),
    streamText: (options) =>
      Stream.unwrap(backend.stream(request(options))).pipe(
        Stream.mapConcat((chunk): Array<Response.StreamPartEncoded> => {
          switch (chunk._tag) {
            case "text":
              return [{ type: "text-delta", id: "text", delta: chunk.text }]
            case "toolCall":
              return [{ type: "tool-call", id: chunk.call.id, name: chunk.call.name, params: params(chunk.call.arguments) }]
            case "finish":
              return [{ type: "text-end", id: "text" }, { type: "finish", reason: reason(chunk.finishReason), usage: usage(chunk.usage) }]
          }
        }),
        Stream.prepend(Chunk.of<Response.StreamPartEncoded>({ type: "text-start", id: "text" })),
        Stream.mapError(aiError("streamText"))
      )
  })
