import { chunkDocument } from "./chunk"
import { parseDocument } from "./parse"
import type { Chunk, ParseFailureCode, ParseOptions, SupportedMediaType } from "./types"

/** An uploaded document to parse and cut into chunks, as plain data a parse worker receives (structured clone). */
export interface DocumentTask {
  readonly kind: "document"
  readonly bytes: Uint8Array
  readonly mediaType: SupportedMediaType
  readonly options: ParseOptions
  readonly sourceRevisionId: string
}

export type DocumentResult =
  | { readonly ok: true; readonly pageCount: number; readonly chunks: ReadonlyArray<Chunk> }
  | { readonly ok: false; readonly code: ParseFailureCode; readonly message: string }

/** The work itself: in a parse worker, or in process when the pool could not start. */
export const runDocumentTask = async (task: DocumentTask): Promise<DocumentResult> => {
  const outcome = await parseDocument(task.bytes, task.mediaType, task.options)
  if (!outcome.ok) return { ok: false, code: outcome.error.code, message: outcome.error.message }
  return { ok: true, pageCount: outcome.document.pageCount, chunks: chunkDocument(outcome.document, { sourceRevisionId: task.sourceRevisionId }) }
}
