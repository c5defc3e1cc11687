import type { ChatAnswer, ChatToolStep, ConversationSummary, Message, MessageCitation } from "@lore/sdk"
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

const argument = (input: unknown, name: string): string | undefined => {
  const value = typeof input === "object" && input !== null ? (input as Record<string, unknown>)[name] : undefined
  return typeof value === "string" ? value : undefined
}

/** At most this many characters of a step's query on its line. */
const STEP_TEXT = 80
const cut = (text: string) => (text.length > STEP_TEXT ? `${text.slice(0, STEP_TEXT - 1)}…` : text)

/** What a tool call does, as one line: `searching: flights approval`, `reading: Travel policy`. */
export const stepLabel = (step: ChatToolStep): string => {
  const output = (typeof step.output === "object" && step.output !== null ? step.output : {}) as Record<string, unknown>
  switch (step.toolName) {
    case "knowledge_search":
      return `searching: ${cut(argument(step.input, "query") ?? "…")}`
    case "conversation_files_search":
      return `searching your files: ${cut(argument(step.input, "query") ?? "…")}`
    case "citation_excerpt":
      return `reading: ${cut(typeof output.title === "string" ? output.title : argument(step.input, "citationId") ?? "…")}`
    case "asset_show":
    case "work_instruction_read":
      return `reading: ${cut(typeof output.title === "string" ? output.title : argument(step.input, "assetId") ?? "…")}`
    case "assets_recommend":
      return `looking for assets: ${cut(argument(step.input, "task") ?? "…")}`
    case "prompt_render":
      return `filling a prompt template: ${argument(step.input, "assetId") ?? "…"}`
    case "graph_explore":
      return `exploring the graph: ${cut(argument(step.input, "q") ?? "…")}`
    default:
      return `${step.toolName}`
  }
}

/** What a finished step found, for its line: `3 passages`, or the error's code. */
export const stepOutcome = (step: ChatToolStep): string => {
  if (step.state === "failed") return (step.errorText ?? "failed").split(":")[0]!
  const output = (typeof step.output === "object" && step.output !== null ? step.output : {}) as Record<string, unknown>
  if (Array.isArray(output.hits)) return `${output.hits.length} passage${output.hits.length === 1 ? "" : "s"}`
  if (Array.isArray(output.entities)) return `${output.entities.length} entities`
  return "done"
}

/** A step in `--json`: the call, its input, and its outcome (outputs are left out: they repeat the passages). */
export const stepJson = (step: ChatToolStep) => ({
  toolCallId: step.toolCallId,
  toolName: step.toolName,
  input: step.input,
  state: step.state,
  label: stepLabel(step),
  outcome: stepOutcome(step),
  ...(step.errorText ? { errorText: step.errorText } : {})
})

/** The machine form of an answer (`lore ask --json`): the saved message with its citations. */
export const answerJson = (answer: ChatAnswer) => ({
  messageId: answer.messageId ?? null,
  conversationId: answer.conversationId ?? null,
  content: answer.text,
  status: answer.error ? "FAILED" : answer.finished ? "COMPLETE" : "INTERRUPTED",
  provider: answer.provider ?? null,
  model: answer.model ?? null,
  citations: answer.citations,
  steps: answer.steps.map(stepJson),
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
