import type { ChatAnswer, ConversationSummary, Message, MessageCitation } from "@lore/sdk"
import { type Block, formatTime, styled, type View } from "../output/view"
import { pagesLabel } from "./sources"

/** The assistant as the CLI shows it: citation lists under answers, conversations, their messages. */

/** `[1] Travel policy › Booking (p. 3)`, or `[2] (no longer available to you)`. */
export const citationLine = (citation: MessageCitation): string => {
  if (!citation.available || citation.title === null) return `[${citation.citationNumber}] (no longer available to you)`
  const pages = pagesLabel(citation.startPage, citation.endPage)
  const where = citation.heading && citation.heading !== citation.title ? ` › ${citation.heading}` : ""
  return `[${citation.citationNumber}] ${citation.title}${where}${pages ? ` (${pages})` : ""}`
}

export const citationBlocks = (citations: ReadonlyArray<MessageCitation>): ReadonlyArray<Block> =>
  citations.length === 0 ? [] : [
    { kind: "blank" },
    { kind: "line", spans: [{ text: "Sources", bold: true }] },
    ...citations.map((citation): Block => ({ kind: "line", spans: [{ text: citationLine(citation) }, { text: `  ${citation.citationId}`, tone: "muted" }] }))
  ]

/** The machine form of an answer (`lore ask --json`): the saved message with its citations. */
export const answerJson = (answer: ChatAnswer) => ({
  messageId: answer.messageId ?? null,
  conversationId: answer.conversationId ?? null,
  content: answer.text,
  status: answer.error ? "FAILED" : answer.finished ? "COMPLETE" : "INTERRUPTED",
  provider: answer.provider ?? null,
  model: answer.model ?? null,
  citations: answer.citations,
  ...(answer.error ? { error: answer.error } : {})
})

export const conversationsView = (conversations: ReadonlyArray<ConversationSummary>): View => [
  {
    kind: "table",
    columns: [{ header: "ID" }, { header: "TITLE", fit: "text" }, { header: "MESSAGES", align: "right", fit: "optional" }, { header: "LAST ACTIVITY" }],
    rows: conversations.map((c) => [styled(c.id, "muted"), c.title, String(c.messageCount), formatTime(c.lastActivityAt)]),
    empty: "No conversations yet: ask something with 'lore ask' or 'lore chat'."
  }
]

/** A conversation: each message, the assistant's with who answered, its status and its sources. */
export const transcriptView = (
  conversation: ConversationSummary | undefined,
  messages: ReadonlyArray<Message & { readonly citations?: ReadonlyArray<MessageCitation> }>
): View => [
  ...(conversation ? [{ kind: "heading", text: conversation.title } satisfies Block] : []),
  ...messages.flatMap((message): ReadonlyArray<Block> => [
    { kind: "blank" },
    {
      kind: "line",
      spans: [
        { text: message.role === "USER" ? "You" : "Lore", bold: true, tone: message.role === "USER" ? "accent" : "success" },
        { text: `  ${formatTime(message.occurredAt)}`, tone: "muted" },
        ...(message.role === "ASSISTANT" ? [{ text: `  ${message.provider ?? "-"}/${message.model ?? "-"}`, tone: "muted" as const }] : []),
        ...(message.status !== "COMPLETE" ? [{ text: `  ${message.status}`, tone: "warning" as const }] : []),
        ...(message.feedback ? [{ text: `  ${message.feedback}`, tone: "muted" as const }] : [])
      ]
    },
    { kind: "passage", segments: [{ text: message.content }] },
    ...citationBlocks(message.citations ?? [])
  ])
]
