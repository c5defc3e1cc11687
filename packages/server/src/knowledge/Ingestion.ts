import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { EmbeddingModel } from "../ai/EmbeddingModel"
import { JobHandlers, type JobContext } from "../jobs/JobHandlers"
import { JobFailure } from "../jobs/Model"
import { IngestSource, PurgeSource } from "./Jobs"
import { classificationRank } from "../domain/Model"
import { type Chunk, chunkDocument, parseDocument, type SupportedMediaType } from "./parsing"
import { type IndexedChunk, SearchIndexRepo } from "./SearchIndexRepo"
import { SourcesRepo } from "./SourcesRepo"
import { serveCurrentVersion } from "./Versions"

/**
 * Ingestion: parse -> heading- and page-aware chunks -> full-text index -> embeddings (when a model is
 * configured) -> READY, making this version the searchable one. Idempotent: a re-run replaces the
 * chunks it wrote. Failures a person must act on end in ATTENTION with a code and message; transient
 * ones (the embedding provider) are retried by the queue, and the last attempt records ATTENTION.
 */
/** Parsed chunks as the search index stores them, with their embeddings when there are any. */
export const toIndexedChunks = (chunks: ReadonlyArray<Chunk>, vectors: ReadonlyArray<Float32Array> | null): Array<IndexedChunk> =>
  chunks.map((chunk, i) => ({
    id: chunk.id,
    ordinal: chunk.ordinal,
    heading: chunk.heading,
    headingPath: chunk.headingPath,
    startPage: chunk.startPage,
    endPage: chunk.endPage,
    content: chunk.text,
    embedding: vectors?.[i] ?? null
  }))

const ingest = ({ sourceId }: { sourceId: string }, context: JobContext) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* SourcesRepo
    const index = yield* SearchIndexRepo
    const embeddings = yield* EmbeddingModel
    const source = yield* repo.load(sourceId)
    if (!source || source.deletedAt !== null || source.status === "READY") return

    const attention = (code: string, message: string) =>
      sql.withTransaction(Effect.zipRight(context.fence, repo.markAttention(sourceId, code, message))).pipe(
        Effect.catchTag("SqlError", (error) => Effect.fail(JobFailure.retryable("DATABASE", error.message)))
      )

    const bytes = yield* repo.blob(source.contentDigest)
    if (!bytes) return yield* attention("CONTENT_MISSING", "The uploaded file is no longer stored; upload it again")
    const parsed = yield* Effect.promise(() => parseDocument(bytes, source.mediaType as SupportedMediaType))
    if (!parsed.ok) return yield* attention(parsed.error.code, parsed.error.message)
    const chunks = chunkDocument(parsed.document, { sourceRevisionId: sourceId })
    if (chunks.length === 0) return yield* attention("NO_TEXT", "The document has no text to index")

    const model = embeddings.info
    let vectors: ReadonlyArray<Float32Array> | null = null
    if (Option.isSome(model)) {
      const embedded = yield* Effect.either(embeddings.embed(chunks.map((chunk) => [source.title, ...chunk.headingPath, chunk.text].join("\n")), "document"))
      if (embedded._tag === "Left") {
        const error = embedded.left
        const lastAttempt = context.job.attempts >= context.job.maxAttempts
        if (error.retryable && !lastAttempt) {
          return yield* Effect.fail(JobFailure.retryable(error.code, error.message, error.retryAfterMs))
        }
        return yield* attention(error.code, `${error.message} (after ${context.job.attempts} attempts; upload again or ask an administrator to check the embedding model)`)
      }
      vectors = embedded.right
    }

    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* context.fence
        // Serializes version switching with other ingestions and deletions of the same asset.
        yield* repo.lockAsset(source.knowledgeAssetId)
        yield* index.replaceChunks(
          {
            sourceId,
            organizationId: source.organizationId,
            knowledgeSpaceId: source.knowledgeSpaceId,
            knowledgeAssetId: source.knowledgeAssetId,
            classificationRank: classificationRank[source.classification],
            aclKeys: null,
            title: source.title
          },
          toIndexedChunks(chunks, vectors)
        )
        yield* repo.markReady(sourceId, {
          pageCount: parsed.document.pageCount,
          chunkCount: chunks.length,
          embedding: Option.getOrNull(model)
        })
        // The newest ready version becomes current and the one search serves; older ones step back.
        yield* serveCurrentVersion(repo, index, source.knowledgeAssetId, source.organizationId)
      })
    ).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(JobFailure.retryable("DATABASE", error.message))))
    yield* Effect.logInfo("source ingested").pipe(
      Effect.annotateLogs({ sourceId, chunks: chunks.length, pages: parsed.document.pageCount, embedded: vectors !== null })
    )
  })

const purge = ({ sourceId }: { sourceId: string }) =>
  Effect.gen(function* () {
    const repo = yield* SourcesRepo
    const source = yield* repo.load(sourceId)
    if (!source || source.deletedAt === null) return
    yield* repo.purge(sourceId, source.contentDigest)
  })

/** Registers the knowledge job handlers with the workers. */
export const IngestionLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const handlers = yield* JobHandlers
    yield* handlers.registerJob(IngestSource, ingest)
    yield* handlers.registerJob(PurgeSource, purge)
  })
)
