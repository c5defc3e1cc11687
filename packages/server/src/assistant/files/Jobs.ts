import { SqlClient } from "@effect/sql"
import { Cause, Effect, Layer, Schedule, Schema } from "effect"
import { Settings } from "../../Config"
import { JobHandlers, type JobContext } from "../../jobs/JobHandlers"
import { JobQueue } from "../../jobs/JobQueue"
import { defineJob, JobFailure } from "../../jobs/Model"
import { detectMediaType } from "../../knowledge/parsing"
import { ParsePool } from "../../parsing-pool/ParsePool"
import { parseDocumentOffThread } from "../../knowledge/DocumentParsing"
import { FilesRepo } from "./Repo"

/** Parse and chunk one uploaded assistant file: UPLOADED -> PROCESSING -> READY | FAILED. */
export const ProcessAssistantFile = defineJob("assistant.files.process", Schema.Struct({ fileId: Schema.UUID }))
/** Delete every expired assistant file with its bytes and chunks. */
export const PurgeExpiredAssistantFiles = defineJob("assistant.files.purgeExpired", Schema.Struct({}))

const PURGE_BATCH = 500

const databaseFailure = (error: { readonly message: string }) => JobFailure.retryable("DATABASE", error.message)

/**
 * Idempotent: a finished file (READY, FAILED) or a deleted or expired one is left alone; a re-run of an
 * interrupted attempt writes the same generation again, replacing what it wrote, inside a fenced transaction.
 */
const processFile = ({ fileId }: { fileId: string }, context: JobContext) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* FilesRepo
    const file = yield* repo.load(fileId)
    if (!file || file.expired || file.status === "READY" || file.status === "FAILED") return
    const started = yield* sql.withTransaction(Effect.zipRight(context.fence, repo.markProcessing(fileId))).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(databaseFailure(e))))
    if (!started) return

    const failed = (code: string, message: string) =>
      sql.withTransaction(Effect.zipRight(context.fence, repo.markFailed(fileId, code, message))).pipe(
        Effect.catchTag("SqlError", (e) => Effect.fail(databaseFailure(e))),
        Effect.zipRight(Effect.logInfo("assistant file failed").pipe(Effect.annotateLogs({ fileId, code })))
      )

    const bytes = yield* repo.content(fileId)
    if (!bytes) return yield* failed("CONTENT_MISSING", "The uploaded file is no longer stored; upload it again")
    // The same detection and parsers as knowledge ingestion; the result stays in this area's own tables.
    const detected = detectMediaType(bytes, file.fileName, file.declaredMediaType ?? undefined)
    if (detected._tag === "Empty") return yield* failed(detected.code, detected.detail)
    if (detected._tag === "Unsupported") return yield* failed(detected.code, detected.detail)
    const generation = file.generation + 1
    // Parsed and chunked in a worker thread under LORE_PARSE_TIMEOUT (parsing-pool/ParsePool.ts).
    const parsed = yield* Effect.flatMap(ParsePool, (pool) => parseDocumentOffThread(pool, bytes, detected.mediaType, `assistant-file:${fileId}:${generation}`))
    if (!parsed.ok) return yield* failed(parsed.code, parsed.message)
    const chunks = parsed.chunks
    if (chunks.length === 0) return yield* failed("NO_TEXT", "The document contains no text to read")

    yield* sql.withTransaction(
      Effect.zipRight(
        context.fence,
        repo.replaceChunks(
          fileId,
          generation,
          chunks.map((chunk) => ({
            id: chunk.id,
            ordinal: chunk.ordinal,
            heading: chunk.heading,
            headingPath: chunk.headingPath,
            startPage: chunk.startPage,
            endPage: chunk.endPage,
            content: chunk.text,
            wordCount: chunk.wordCount
          })),
          parsed.pageCount
        )
      )
    ).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(databaseFailure(e))))
    yield* Effect.logInfo("assistant file ready").pipe(Effect.annotateLogs({ fileId, chunks: chunks.length, pages: parsed.pageCount }))
  })

/** The last attempt's failure (database trouble, a crash) still ends the file FAILED, never PROCESSING forever. */
const processFileOrGiveUp = (payload: { fileId: string }, context: JobContext) =>
  processFile(payload, context).pipe(
    // An interruption (a worker shutting down releases the job) is not a failure: the job runs again.
    Effect.tapErrorCause((cause) =>
      context.job.attempts >= context.job.maxAttempts && !Cause.isInterruptedOnly(cause)
        ? Effect.flatMap(FilesRepo, (repo) =>
          repo.markFailed(payload.fileId, "PROCESSING_FAILED", "The file could not be processed because of a server error; upload it again, and tell an administrator if it keeps happening")
        ).pipe(Effect.ignore)
        : Effect.void
    )
  )

const purgeExpired = () =>
  Effect.gen(function* () {
    const repo = yield* FilesRepo
    let total = 0
    for (;;) {
      const purged = yield* repo.purgeExpired(PURGE_BATCH)
      total += purged.length
      if (purged.length < PURGE_BATCH) break
    }
    if (total > 0) yield* Effect.logInfo("expired assistant files purged").pipe(Effect.annotateLogs({ files: total }))
  })

/** Registers the assistant files' job handlers with the workers. */
export const FilesJobsLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const handlers = yield* JobHandlers
    yield* handlers.registerJob(ProcessAssistantFile, processFileOrGiveUp)
    yield* handlers.registerJob(PurgeExpiredAssistantFiles, purgeExpired)
  })
)

/**
 * Every process asks for a purge at start and then every LORE_ASSISTANT_FILE_PURGE_INTERVAL; the dedupe key
 * keeps at most one purge job waiting or running, whichever process asked, and any worker may run it.
 */
export const PurgeScheduleLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const queue = yield* JobQueue
    const settings = yield* Settings
    const ask = queue.enqueueJob(PurgeExpiredAssistantFiles, {}, { dedupeKey: "assistant-files-purge", maxAttempts: 3 }).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("could not schedule the purge of expired assistant files", cause))
    )
    yield* Effect.forkScoped(Effect.repeat(ask, Schedule.spaced(settings.assistantFiles.purgeIntervalMs)))
  })
)
