import type { Source } from "@lore/sdk"
import type { SavedFile } from "../files"
import { type Block, type Cell, formatBytes, formatTime, styled, type Tone, type View } from "../output/view"
import type { AddResult } from "../uploads"
import { classificationText } from "./clearance"

/** Sources as the knowledge commands show them: the upload lines, one source, a saved download, page ranges. */

export const sourceStatusTone = (status: string): Tone => (status === "READY" ? "success" : status === "PROCESSING" ? "warning" : "error")

/** `p. 3`, `pp. 3-5`, or nothing for documents without pages. */
export const pagesLabel = (startPage: number | null, endPage: number | null): string | undefined => {
  if (startPage === null) return undefined
  return endPage === null || endPage === startPage ? `p. ${startPage}` : `pp. ${startPage}-${endPage}`
}

/**
 * One aligned line per finished upload: status, file, source id, version and what went wrong; then, for
 * an uploaded file, who can read it (the upload's answer says so in words).
 */
export const uploadLines = (result: AddResult, fileWidth: number): View => [
  uploadLine(result, fileWidth),
  ...(result.audience ? [{ kind: "line", spans: [{ text: `${" ".repeat(12)}${result.audience.summary}`, tone: result.audience.readers < result.audience.spaceMembers ? "warning" : "muted" }] } satisfies Block] : [])
]

const uploadLine = (result: AddResult, fileWidth: number): Block => {
  const problem = result.failureCode ? `${result.failureCode}: ${result.failureMessage ?? ""}`.trim() : ""
  const version = result.versionNumber === null ? "" : `v${result.versionNumber}`
  return {
    kind: "line",
    spans: [
      { text: result.status.padEnd(10), tone: sourceStatusTone(result.status), bold: true },
      { text: `  ${result.file.padEnd(fileWidth)}  ` },
      { text: (result.sourceId ?? "-").padEnd(36), tone: "muted" },
      { text: [version, problem].filter((part) => part !== "").map((part) => `  ${part}`).join(""), ...(problem ? { tone: "error" as const } : {}) }
    ]
  }
}

export const sourceView = (source: Source): View => [
  { kind: "heading", text: source.title },
  {
    kind: "fields",
    fields: [
      ["Id", styled(source.id, "muted")],
      ["Status", styled(source.status, sourceStatusTone(source.status))],
      ...(source.failureCode ? ([["Failure", styled(`${source.failureCode}: ${source.failureMessage ?? ""}`, "error")]] as const) : []),
      ["File", `${source.fileName} (${source.mediaType}, ${formatBytes(source.contentLength)})`],
      ["Classification", classificationText(source.classification)],
      ["Space", `${source.knowledgeSpaceKey} (${source.knowledgeSpaceName})`],
      ["Version", `v${source.versionNumber}`],
      ["Pages", source.pageCount === null ? "-" : String(source.pageCount)],
      ["Chunks", source.chunkCount === null ? "-" : String(source.chunkCount)],
      ["Embeddings", source.embeddingModel ? `${source.embeddingProvider ?? ""} ${source.embeddingModel} (${source.embeddingDimensions ?? "?"} dimensions)`.trim() : "none (lexical search only)"],
      ["Uploaded by", source.uploadedByName ?? "-"],
      ["Department", source.owningDepartmentName ?? "-"],
      ["Created", formatTime(source.createdAt)],
      ["Updated", formatTime(source.updatedAt)],
      ["Digest", styled(source.contentDigest, "muted")],
      ["Asset id", styled(source.knowledgeAssetId, "muted")]
    ] satisfies ReadonlyArray<readonly [string, Cell]>
  }
]

/** A download saved by `sources open` or `cite --content`. */
export interface SavedDownload extends SavedFile {
  readonly mediaType: string
}

export const savedView = (saved: SavedDownload): View => [
  { kind: "message", tone: "success", text: `Saved ${formatBytes(saved.bytes)} (${saved.mediaType}) to ${saved.path}` }
]
