import { parseJsonEventStream, readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from "ai"
import { expect } from "vitest"
import type { Client } from "../knowledge/support"

/** Helpers for the assistant tests: the chat stream read with the `ai` package's own parser and schema. */

export interface ChatReply {
  readonly status: number
  readonly headers: Headers
  readonly raw: string
  readonly chunks: ReadonlyArray<UIMessageChunk>
  readonly problem?: any
}

export const postChat = (who: Client, body: unknown, signal?: AbortSignal) =>
  fetch(`${who.url}/api/assistant/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${who.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {})
  })

/** Every chunk parsed by `parseJsonEventStream` with `uiMessageChunkSchema` (what useChat's transport does); each must be valid. */
export const parseChunks = async (raw: string) => {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(raw))
      controller.close()
    }
  })
  const chunks: Array<UIMessageChunk> = []
  const reader = parseJsonEventStream({ stream, schema: uiMessageChunkSchema }).getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    expect(value.success, value.success ? "" : String((value as any).error)).toBe(true)
    if (value.success) chunks.push(value.value as UIMessageChunk)
  }
  return chunks
}

export const chat = async (who: Client, body: unknown): Promise<ChatReply> => {
  const response = await postChat(who, body)
  const raw = await response.text()
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    return { status: response.status, headers: response.headers, raw, chunks: [], problem: JSON.parse(raw) }
  }
  return { status: response.status, headers: response.headers, raw, chunks: await parseChunks(raw) }
}

/** The final UI message, as `readUIMessageStream` (what useChat uses) assembles it from the chunks. */
export const finalMessage = async (chunks: ReadonlyArray<UIMessageChunk>) => {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    }
  })
  let last: UIMessage | undefined
  for await (const message of readUIMessageStream({ stream })) last = message
  return last!
}

export const textOf = (chunks: ReadonlyArray<UIMessageChunk>) =>
  chunks.filter((chunk): chunk is Extract<UIMessageChunk, { type: "text-delta" }> => chunk.type === "text-delta").map((chunk) => chunk.delta).join("")

export const citationsOf = (chunks: ReadonlyArray<UIMessageChunk>) =>
  ((chunks.find((chunk) => chunk.type === "data-citations") as any)?.data?.citations ?? []) as Array<Record<string, any>>

export const conversationOf = (chunks: ReadonlyArray<UIMessageChunk>) =>
  (chunks.find((chunk) => chunk.type === "data-conversation") as any)?.data?.conversationId as string

export const messageIdOf = (chunks: ReadonlyArray<UIMessageChunk>) => (chunks.find((chunk) => chunk.type === "start") as any)?.messageId as string
