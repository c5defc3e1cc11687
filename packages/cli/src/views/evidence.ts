import type { EvidenceBinding } from "@lore/sdk"
import { formatDate, styled, type Tone, type View } from "../output/view"
import { idCell } from "./users"

/** Conversation evidence as `lore evidence` shows it: one binding after an upload, and a conversation's list. */

export const evidenceStatusTone = (status: string): Tone =>
  status === "READY" ? "success" : status === "PROCESSING" ? "warning" : status === "UNAVAILABLE" ? "muted" : "error"

const statusText = (binding: EvidenceBinding) => (binding.failureCode ? `${binding.status} ${binding.failureCode}` : binding.status)

export const evidenceAddedView = (binding: EvidenceBinding): View => [
  {
    kind: "line",
    spans: [
      { text: binding.status.padEnd(11), tone: evidenceStatusTone(binding.status), bold: true },
      { text: `  ${binding.fileName}  ` },
      { text: binding.id, tone: "muted" },
      ...(binding.failureCode ? [{ text: `  ${binding.failureCode}: ${binding.failureMessage ?? ""}`.trimEnd(), tone: "error" as const }] : [])
    ]
  },
  { kind: "hint", text: `conversation ${binding.conversationId}: lore ask "..." --conversation ${binding.conversationId}` }
]

export const evidenceListView = (bindings: ReadonlyArray<EvidenceBinding>): View => [
  {
    kind: "table",
    columns: [{ header: "id" }, { header: "file", fit: "text" }, { header: "status" }, { header: "title", fit: "optional" }, { header: "added", fit: "optional" }],
    rows: bindings.map((binding) => [
      idCell(binding.id),
      binding.fileName,
      styled(statusText(binding), evidenceStatusTone(binding.status)),
      binding.title,
      formatDate(binding.createdAt)
    ]),
    empty: "No evidence in this conversation."
  }
]
