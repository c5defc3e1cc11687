/** A LOCAL or provider chat and a knowledge search as the chat benchmarks time them (bench/chat.ts, bench/chat-profile.ts). */
import { salientTerms } from "../../packages/server/src/ai/LocalModel"
import type { Lore } from "./search-ingest"

export interface Timing {
  readonly firstTokenMs: number
  readonly totalMs: number
  readonly ok: boolean
}

/** One chat: POST, then read the event stream until [DONE], noting when the first text-delta arrived. */
export const timedChat = async (lore: Lore, body: unknown, headers: Record<string, string> = lore.headers, onFirstToken?: () => void): Promise<Timing> => {
  const started = performance.now()
  const response = await fetch(`${lore.child.url}/api/assistant/chat`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  if (!response.ok || !response.body) return { firstTokenMs: NaN, totalMs: performance.now() - started, ok: false }
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ""
  let firstTokenMs = NaN
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    if (Number.isNaN(firstTokenMs) && text.includes('"type":"text-delta"')) {
      firstTokenMs = performance.now() - started
      onFirstToken?.()
    }
  }
  return { firstTokenMs, totalMs: performance.now() - started, ok: text.includes('"type":"finish"') && text.trimEnd().endsWith("data: [DONE]") }
}

export const timedSearch = async (lore: Lore, question: string, headers: Record<string, string> = lore.headers) => {
  const started = performance.now()
  const response = await fetch(`${lore.child.url}/api/knowledge/search?q=${encodeURIComponent(salientTerms(question).join(" "))}&limit=6`, { headers })
  await response.arrayBuffer()
  return performance.now() - started
}
