import { Effect } from "effect"
import { type ParsePool, spokenDuration } from "../parsing-pool/ParsePool"
import { type DocumentResult, type DocumentTask, runDocumentTask } from "./parsing/task"
import type { SupportedMediaType } from "./parsing/types"

/**
 * A document parsed and chunked in a parse worker (knowledge ingestion and assistant files): overrunning the
 * time limit is TIMEOUT, a worker that died (memory) LIMIT_EXCEEDED; both end the document in ATTENTION.
 */
export const parseDocumentOffThread = (pool: ParsePool, bytes: Uint8Array, mediaType: SupportedMediaType, sourceRevisionId: string): Effect.Effect<DocumentResult> => {
  const task: DocumentTask = { kind: "document", bytes, mediaType, sourceRevisionId, options: { timeoutMs: pool.timeoutMs } }
  return pool.run(task, () => runDocumentTask(task)).pipe(
    Effect.catchTags({
      ParseTimeout: (error) =>
        Effect.succeed<DocumentResult>({
          ok: false,
          code: "TIMEOUT",
          message: `Reading the document took longer than ${spokenDuration(error.timeoutMs)}, so it was stopped. Split it into smaller files and upload those.`
        }),
      ParseWorkerFailed: (error) =>
        Effect.as(Effect.logWarning("document parse worker failed").pipe(Effect.annotateLogs({ reason: error.reason })), {
          ok: false,
          code: "LIMIT_EXCEEDED",
          message: "Reading the document needed more memory than Lore allows a document, so it was stopped. Split it into smaller files and upload those."
        } satisfies DocumentResult)
    })
  )
}
