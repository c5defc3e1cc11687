import { Data } from "effect"
import type { GatewayProtocol, ReasoningEffort } from "./Model"

/** One turn of a conversation, as the model layer takes it (the providers' libraries translate it for each protocol). */
export interface ChatMessage {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly content: string
  /** On a `tool` message: the call it answers. */
  readonly toolCallId?: string
  /** On a `tool` message: the tool that was called (found from the assistant message's call when absent). */
  readonly toolName?: string
  /** On a `tool` message: the tool failed, and `content` says why (sent to the model as an error result). */
  readonly isError?: boolean
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
  /** Tools the model may call; their calls come back as `toolCall` chunks (or `toolCalls`), never run here. */
  readonly tools?: ReadonlyArray<ChatTool>
  /** `auto` (default): the model chooses; `none`: no tool this step (the last step of a loop); `required`: one at least. */
  readonly toolChoice?: "auto" | "none" | "required"
  /** Structured output: the answer is JSON matching this schema. */
  readonly responseSchema?: { readonly name: string; readonly schema: Record<string, unknown> }
  readonly maxTokens?: number
}

export interface ChatUsage {
  readonly inputTokens: number
  readonly outputTokens: number
}

/**
 * What a streamed call yields, in order: text as it arrives; for each tool call its start, its argument
 * deltas and then the whole call once its arguments are complete; and one finish with the usage.
 */
export type ChatChunk =
  | { readonly _tag: "text"; readonly text: string }
  | { readonly _tag: "toolInputStart"; readonly id: string; readonly name: string }
  | { readonly _tag: "toolInputDelta"; readonly id: string; readonly delta: string }
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
export interface CallTarget {
  readonly protocol: Exclude<GatewayProtocol, "LOCAL">
  readonly baseUrl: string
  readonly modelId: string
  readonly apiKey: string | undefined
  readonly requestTimeoutSeconds: number
  readonly reasoningEffort?: ReasoningEffort | undefined
  /** Attempts for a request (or a stream before its first byte) answered 429, 5xx or not at all. */
  readonly attempts?: number
}
