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

const encoder = new TextEncoder()

/** One chunk as its server-sent event. */
export const sseEvent = (chunk: UiMessageChunk): Uint8Array => encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)

/** The stream's last event. */
export const SSE_DONE = encoder.encode("data: [DONE]\n\n")
