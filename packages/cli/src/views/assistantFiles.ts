import type { AssistantFile, FilePage } from "@lore/sdk"
import type { FileUploadResult } from "../assistantFiles"
import { type Block, formatBytes, formatDate, styled, type Tone, type View } from "../output/view"
import { idCell } from "./users"

/** Assistant files as `lore files` shows them: upload lines and the listing. */

export const fileStatusTone = (status: string): Tone =>
  status === "READY" ? "success" : status === "UPLOADED" || status === "PROCESSING" ? "warning" : "error"

/** One aligned line per finished upload: status, file, id and what went wrong. */
export const fileUploadLines = (result: FileUploadResult, fileWidth: number): View => {
  const problem = result.failureCode ? `${result.failureCode}: ${result.failureMessage ?? ""}`.trim() : ""
  return [
    {
      kind: "line",
      spans: [
        { text: result.status.padEnd(10), tone: fileStatusTone(result.status), bold: true },
        { text: `  ${result.file.padEnd(fileWidth)}  ` },
        { text: (result.fileId ?? "-").padEnd(36), tone: "muted" },
        ...(problem ? [{ text: `  ${problem}`, tone: "error" as const }] : [])
      ]
    } satisfies Block
  ]
}

export const filesView = (page: FilePage): View => {
  const view: Array<Block> = [
    {
      kind: "table",
      columns: [
        { header: "id" },
        { header: "file", fit: "text" },
        { header: "status" },
        { header: "type", fit: "optional" },
        { header: "size", align: "right", fit: "optional" },
        { header: "expires", fit: "optional" }
      ],
      rows: page.items.map((file: AssistantFile) => [
        idCell(file.id),
        file.fileName,
        styled(file.failureCode ? `${file.status} ${file.failureCode}` : file.status, fileStatusTone(file.status)),
        file.mediaType,
        formatBytes(file.contentLength),
        formatDate(file.expiresAt)
      ]),
      empty: "No files."
    }
  ]
  if (page.hasMore) view.push({ kind: "hint", text: `More on the next page: --page ${page.page + 1}` })
  return view
}
