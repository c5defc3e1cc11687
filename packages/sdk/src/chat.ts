import { createParser } from "eventsource-parser"
import { LoreApiError } from "./errors"
import type { MessageCitation } from "./generated/openapi"

/**
 * The chat stream's parts: the AI SDK UI Message Stream protocol v1 chunks Lore sends, in this order:
 * start (messageId = the saved assistant message), data-conversation, data-notice (only when the model call failed and the
 * offline LOCAL answerer answers instead: code MODEL_FALLBACK), then steps (start-step, tool calls as
 * tool-input-start, tool-input-delta, tool-input-available or tool-input-error, tool-output-available or
 * tool-output-error, text-start, text-delta..., text-end, finish-step), source-document... (the cited
 * passages), data-citations, finish ({provider, model}); or an `error` part after the stream started. The
 * same chunks the `ai` package's `useChat` and `readUIMessageStream` read.
 */
export type ChatStreamPart =
  | { readonly type: "start"; readonly messageId: string }
  | { readonly type: "data-conversation"; readonly data: { readonly conversationId: string } }
  | { readonly type: "data-notice"; readonly data: ChatNotice }
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end"; readonly id: string }
  | { readonly type: "source-document"; readonly sourceId: string; readonly mediaType: string; readonly title: string }
  | { readonly type: "data-citations"; readonly data: { readonly citations: ReadonlyArray<MessageCitation> } }
  | { readonly type: "finish"; readonly finishReason?: string; readonly messageMetadata?: { readonly provider: string; readonly model: string } }
  | { readonly type: "error"; readonly errorText: string }
  | { readonly type: "start-step" }
  | { readonly type: "finish-step" }
  | { readonly type: "tool-input-start"; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: "tool-input-delta"; readonly toolCallId: string; readonly inputTextDelta: string }
  | { readonly type: "tool-input-available"; readonly toolCallId: string; readonly toolName: string; readonly input: unknown }
  | { readonly type: "tool-input-error"; readonly toolCallId: string; readonly toolName: string; readonly input: unknown; readonly errorText: string }
  | { readonly type: "tool-output-available"; readonly toolCallId: string; readonly output: unknown }
  | { readonly type: "tool-output-error"; readonly toolCallId: string; readonly errorText: string }

/** One tool call of an answer's steps: the assistant searching, reading an excerpt, opening an asset. */
export interface ChatToolStep {
  readonly toolCallId: string
  /** knowledge_search, citation_excerpt, asset_show, assets_recommend, work_instruction_read, prompt_render, graph_explore, conversation_files_search */
  readonly toolName: string
  readonly input: unknown
  /** running until its output (done) or error (failed) arrives. */
  readonly state: "running" | "done" | "failed"
  readonly output?: unknown
  readonly errorText?: string
}

/** Something the reader should know about the answer: MODEL_FALLBACK when the model failed and LOCAL answered instead. */
export interface ChatNotice {
  readonly code: string
  readonly message: string
}

/** A whole answer, assembled from its parts. */
export interface ChatAnswer {
  /** The saved assistant message's id (what feedback and citations take). */
  readonly messageId: string | undefined
  readonly conversationId: string | undefined
  readonly text: string
  readonly citations: ReadonlyArray<MessageCitation>
  /** Who answered (LOCAL or the gateway) and the model; undefined when the stream did not finish. */
  readonly provider: string | undefined
  readonly model: string | undefined
  /** Set when the answer failed after the stream started (the partial answer is saved). */
  readonly error: string | undefined
  /** Whether the `finish` part arrived. */
  readonly finished: boolean
  /** The tool calls of the answer's steps, in order. */
  readonly steps: ReadonlyArray<ChatToolStep>
  /** The stream's notices, in order (e.g. MODEL_FALLBACK). */
  readonly notices: ReadonlyArray<ChatNotice>
}

const updateStep = (answer: ChatAnswer, toolCallId: string, change: Partial<ChatToolStep>): ChatAnswer =>
  ({ ...answer, steps: answer.steps.map((step) => (step.toolCallId === toolCallId ? { ...step, ...change } : step)) })

/** Folds parts into the answer so far (use it on each part to render as they come, or once at the end). */
export const foldAnswer = (answer: ChatAnswer, part: ChatStreamPart): ChatAnswer => {
  switch (part.type) {
    case "start": return { ...answer, messageId: part.messageId }
    case "data-conversation": return { ...answer, conversationId: part.data.conversationId }
    // The answer's text is its last step's (an earlier step may say what it is about to look up).
    case "text-start": return { ...answer, text: "" }
    case "text-delta": return { ...answer, text: answer.text + part.delta }
    case "tool-input-start": return { ...answer, steps: [...answer.steps, { toolCallId: part.toolCallId, toolName: part.toolName, input: undefined, state: "running" }] }
    case "tool-input-available": return updateStep(answer, part.toolCallId, { input: part.input })
    case "tool-input-error": return updateStep(answer, part.toolCallId, { input: part.input, state: "failed", errorText: part.errorText })
    case "tool-output-available": return updateStep(answer, part.toolCallId, { state: "done", output: part.output })
    case "tool-output-error": return updateStep(answer, part.toolCallId, { state: "failed", errorText: part.errorText })
    case "data-citations": return { ...answer, citations: part.data.citations }
    case "data-notice": return { ...answer, notices: [...answer.notices, part.data] }
    case "finish": return { ...answer, finished: true, provider: part.messageMetadata?.provider, model: part.messageMetadata?.model }
    case "error": return { ...answer, error: part.errorText }
    default: return answer
  }
}

export const emptyAnswer: ChatAnswer = {
  messageId: undefined, conversationId: undefined, text: "", citations: [], provider: undefined, model: undefined, error: undefined, finished: false, steps: [], notices: []
}

/** The final text and citations of a stream of parts (consumes it). */
export const collectAnswer = async (parts: AsyncIterable<ChatStreamPart>): Promise<ChatAnswer> => {
  let answer = emptyAnswer
  for await (const part of parts) answer = foldAnswer(answer, part)
  return answer
}

/** The `data: {json}` events of a server-sent event body, parsed with eventsource-parser, until `[DONE]`. */
export async function* readChatParts(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatStreamPart> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const queue: Array<ChatStreamPart> = []
  let done = false
  let invalid: string | undefined
  const parser = createParser({
    onEvent: (event) => {
      if (event.data === "[DONE]") {
        done = true
        return
      }
      try {
        queue.push(JSON.parse(event.data) as ChatStreamPart)
      } catch {
        invalid = event.data.slice(0, 200)
      }
    }
  })
  try {
    while (!done) {
      const { done: ended, value } = await reader.read()
      if (ended) break
      parser.feed(decoder.decode(value, { stream: true }))
      if (invalid !== undefined) throw LoreApiError.client("INVALID_RESPONSE", "Invalid Response", `The chat stream sent an event that is not JSON: ${invalid}`)
      while (queue.length > 0) yield queue.shift()!
    }
    while (queue.length > 0) yield queue.shift()!
  } finally {
    // Leaving early (break, an error, abort) closes the connection: the server stops the answer and saves it as INTERRUPTED.
    await reader.cancel().catch(() => undefined)
  }
}

/**
 * One chat request's answer: iterate it for the parts as they stream (`for await (const part of chat)`), or
 * await `final()` for the whole answer. The request is sent on first use; an error before the stream
 * starts (400 INVALID_CHAT_REQUEST, 404 CONVERSATION_NOT_FOUND, ...) is thrown as a LoreApiError.
 */
export class ChatStream implements AsyncIterable<ChatStreamPart> {
  private started = false
  /** The server's X-Request-Id for this answer, once the stream has opened (quote it when reporting a failed answer). */
  requestId: string | undefined = undefined
  constructor(private readonly open: (stream: ChatStream) => Promise<ReadableStream<Uint8Array>>) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<ChatStreamPart> {
    if (this.started) throw LoreApiError.client("INVALID_ARGUMENT", "Invalid Argument", "A chat stream can be read once")
    this.started = true
    yield* readChatParts(await this.open(this))
  }

  /** The text deltas only, as they arrive. */
  async *text(): AsyncGenerator<string> {
    for await (const part of this) if (part.type === "text-delta") yield part.delta
  }

  /** Reads the whole stream: the final text, citations, ids and provider. */
  final(): Promise<ChatAnswer> {
    return collectAnswer(this)
  }
}
