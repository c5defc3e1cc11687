import { Effect } from "effect"
import { Readable } from "node:stream"

/**
 * The AI SDK UI Message Stream protocol v1, as Lore's chat speaks it: one `data: {json}` server-sent event per
 * chunk, then `data: [DONE]`. Only the chunk types the chat sends are modelled; the `ai` package's own
 * `uiMessageChunkSchema` validates each of them in the tests.
 */
export const UI_MESSAGE_STREAM_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no"
} as const

export interface StreamedCitation {
  readonly citationNumber: number
  readonly kind: "KNOWLEDGE" | "FILE"
  readonly citationId: string
  readonly sourceId: string
  readonly title: string
  readonly heading: string | null
  readonly startPage: number | null
  readonly endPage: number | null
  readonly available: boolean
  readonly excerptUrl: string
  readonly contentUrl: string
}

export type UiMessageChunk =
  | { readonly type: "start"; readonly messageId: string }
  | { readonly type: "data-conversation"; readonly data: { readonly conversationId: string } }
  | { readonly type: "data-notice"; readonly data: { readonly code: "MODEL_FALLBACK"; readonly message: string } }
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end"; readonly id: string }
  | { readonly type: "source-document"; readonly sourceId: string; readonly mediaType: string; readonly title: string }
  | { readonly type: "data-citations"; readonly data: { readonly citations: ReadonlyArray<StreamedCitation> } }
  | { readonly type: "finish"; readonly finishReason: "stop" | "error"; readonly messageMetadata: { readonly provider: string; readonly model: string } }
  | { readonly type: "error"; readonly errorText: string }
  | { readonly type: "start-step" }
  | { readonly type: "finish-step" }
  | { readonly type: "tool-input-start"; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: "tool-input-delta"; readonly toolCallId: string; readonly inputTextDelta: string }
  | { readonly type: "tool-input-available"; readonly toolCallId: string; readonly toolName: string; readonly input: unknown }
  | { readonly type: "tool-input-error"; readonly toolCallId: string; readonly toolName: string; readonly input: unknown; readonly errorText: string }
  | { readonly type: "tool-output-available"; readonly toolCallId: string; readonly output: unknown }
  | { readonly type: "tool-output-error"; readonly toolCallId: string; readonly errorText: string }

/**
 * The UI message parts the chunks make, as the `ai` package's reducer (readUIMessageStream) builds them:
 * `step-start`, `text`, and one `tool-<name>` part per call (static tools) in its last state. The chat saves
 * them with the assistant message, so a conversation's messages come back as useChat showed them.
 */
export const uiPartsReducer = () => {
  const parts: Array<Record<string, unknown>> = []
  const texts = new Map<string, Record<string, unknown>>()
  const tools = new Map<string, Record<string, unknown>>()
  const toolPart = (toolCallId: string, toolName: string) => {
    let part = tools.get(toolCallId)
    if (!part) {
      part = { type: `tool-${toolName}`, toolCallId }
      tools.set(toolCallId, part)
      parts.push(part)
    }
    return part
  }
  return {
    parts: (): ReadonlyArray<Record<string, unknown>> => parts,
    push: (chunk: UiMessageChunk) => {
      switch (chunk.type) {
        case "start-step":
          parts.push({ type: "step-start" })
          break
        case "text-start": {
          const part = { type: "text", text: "", state: "streaming" }
          texts.set(chunk.id, part)
          parts.push(part)
          break
        }
        case "text-delta": {
          const part = texts.get(chunk.id)
          if (part) part.text = `${part.text as string}${chunk.delta}`
          break
        }
        case "text-end": {
          const part = texts.get(chunk.id)
          if (part) part.state = "done"
          break
        }
        case "tool-input-start":
          Object.assign(toolPart(chunk.toolCallId, chunk.toolName), { state: "input-streaming", input: undefined })
          break
        case "tool-input-available":
          Object.assign(toolPart(chunk.toolCallId, chunk.toolName), { state: "input-available", input: chunk.input })
          break
        case "tool-input-error":
          Object.assign(toolPart(chunk.toolCallId, chunk.toolName), { state: "output-error", input: undefined, rawInput: chunk.input, errorText: chunk.errorText })
          break
        case "tool-output-available": {
          const part = tools.get(chunk.toolCallId)
          if (part) Object.assign(part, { state: "output-available", output: chunk.output })
          break
        }
        case "tool-output-error": {
          const part = tools.get(chunk.toolCallId)
          if (part) Object.assign(part, { state: "output-error", errorText: chunk.errorText })
          break
        }
        default:
          break
      }
    }
  }
}

const encoder = new TextEncoder()

/**
 * Chunks as their server-sent events, in one buffer: the response writes each buffer with a system call of its own,
 * and a chat's first step is ten chunks.
 */
const sseEvents = (chunks: Iterable<UiMessageChunk>): Uint8Array => {
  let text = ""
  for (const chunk of chunks) text += `data: ${JSON.stringify(chunk)}\n\n`
  return encoder.encode(text)
}

/** The stream's last event. */
const SSE_DONE = encoder.encode("data: [DONE]\n\n")

/**
 * A chat's response body: a Node Readable the server pipes to the socket, which the turn's program feeds with its
 * chunks as server-sent events as it makes them. `send` waits only while the client reads slower than the turn
 * writes; `end` adds [DONE]; `closed` runs when the body ends or the client goes away (the turn is then stopped).
 */
export const sseBody = () => {
  let resume: (() => void) | undefined
  let ended = false
  const readable = new Readable({
    // A first step's parts (the passages found) in one piece.
    highWaterMark: 64 * 1024,
    read: () => {
      const waiting = resume
      resume = undefined
      waiting?.()
    }
  })
  return {
    readable,
    send: (chunks: ReadonlyArray<UiMessageChunk>): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (chunks.length === 0 || ended || readable.destroyed || readable.push(sseEvents(chunks))) return Effect.void
        return Effect.async<void>((done) => void (resume = () => done(Effect.void)))
      }),
    end: () => {
      if (ended || readable.destroyed) return
      ended = true
      readable.push(SSE_DONE)
      readable.push(null)
    },
    closed: (run: () => void) => void readable.once("close", run)
  }
}
