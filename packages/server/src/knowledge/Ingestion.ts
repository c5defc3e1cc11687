import { SqlClient, type SqlError } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import { Embeddings } from "../ai/Embeddings"
import { EmbeddingIndex, type IndexedGeneration } from "./EmbeddingIndex"
import { EmbeddingIndexRepo } from "./EmbeddingIndexRepo"
import { embeddingText } from "./Reembedding"
import { JobHandlers, type JobContext } from "../jobs/JobHandlers"
import { JobFailure } from "../jobs/Model"
import { JobQueue } from "../jobs/JobQueue"
import { Settings } from "../Config"
import { IngestSource, MaintainSearchBlocks, PackSearchPostings, PurgeSource, RefreshSearchStatistics, VersionReady } from "./Jobs"
import { classificationRank } from "../domain/Model"
import { ParsePool } from "../parsing-pool/ParsePool"
import { parseDocumentOffThread } from "./DocumentParsing"
import type { Chunk, SupportedMediaType } from "./parsing"
import { type IndexedChunk, SearchIndexWriter } from "./SearchIndexWriter"
import { SourcesRepo } from "./SourcesRepo"
import { queuePacking, serveCurrentVersion } from "./Versions"

/**
 * Ingestion: parse -> heading- and page-aware chunks -> full-text index -> embeddings (when a model is
 * configured) -> READY, making this version the searchable one. Idempotent: a re-run replaces the
 * chunks it wrote. Failures a person must act on end in ATTENTION with a code and message; transient
 * ones (the embedding provider) are retried by the queue, and the last attempt records ATTENTION.
 */
/** Parsed chunks as the search index stores them, with their embeddings when there are any. */
export const toIndexedChunks = (chunks: ReadonlyArray<Chunk>): Array<IndexedChunk> =>
  chunks.map((chunk) => ({
    id: chunk.id,
    ordinal: chunk.ordinal,
    heading: chunk.heading,
    headingPath: chunk.headingPath,
    startPage: chunk.startPage,
    endPage: chunk.endPage,
    content: chunk.text
  }))

const ingest = ({ sourceId }: { sourceId: string }, context: JobContext) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* SourcesRepo
    const index = yield* SearchIndexWriter
    const embeddings = yield* Embeddings
    const embeddingIndex = yield* EmbeddingIndex
    const indexRepo = yield* EmbeddingIndexRepo
    const queue = yield* JobQueue
    const parsePool = yield* ParsePool
    const source = yield* repo.load(sourceId)
    if (!source || source.deletedAt !== null || source.status === "READY") return

    const attention = (code: string, message: string) =>
      sql.withTransaction(Effect.zipRight(context.fence, repo.markAttention(sourceId, code, message))).pipe(
        Effect.catchTag("SqlError", (error) => Effect.fail(JobFailure.retryable("DATABASE", error.message)))
      )

    const bytes = yield* repo.blob(source.contentDigest)
    if (!bytes) return yield* attention("CONTENT_MISSING", "The uploaded file is no longer stored; upload it again")
    // Parsed and chunked in a worker thread under LORE_PARSE_TIMEOUT: an overrun ends in ATTENTION with TIMEOUT.
    const parsed = yield* parseDocumentOffThread(parsePool, bytes, source.mediaType as SupportedMediaType, sourceId)
    if (!parsed.ok) return yield* attention(parsed.code, parsed.message)
    const chunks = parsed.chunks
    if (chunks.length === 0) return yield* attention("NO_TEXT", "The document has no text to index")

    // Vectors for every generation search uses or is being built: a re-embedding running now misses nothing.
    const texts = chunks.map((chunk) => embeddingText({ title: source.title, headingPath: chunk.headingPath, content: chunk.text }))
    const generations = yield* embeddingIndex.current(source.organizationId)
    const embedded: Array<{ readonly generation: IndexedGeneration; readonly vectors: ReadonlyArray<Float32Array> }> = []
    for (const generation of generations) {
      const outcome = yield* Effect.either(embeddings.embed(source.organizationId, "DOCUMENT_EMBEDDING", generation.profile, texts, "document"))
      if (outcome._tag === "Right") {
        embedded.push({ generation, vectors: outcome.right })
        continue
      }
      const error = outcome.left
      // A generation still being built gets these vectors from its own job; a disabled gateway means lexical for now.
      if (generation.status === "BUILDING" || error.code === "EMBEDDING_NOT_CONFIGURED") {
        yield* Effect.logWarning("document embedding skipped").pipe(Effect.annotateLogs({ sourceId, code: error.code, generation: generation.id }))
        continue
      }
      const lastAttempt = context.job.attempts >= context.job.maxAttempts
      if (error.retryable && !lastAttempt) {
        return yield* Effect.fail(JobFailure.retryable(error.code, error.message, error.retryAfterMs))
      }
      return yield* attention(error.code, `${error.message} (after ${context.job.attempts} attempts; upload again or ask an administrator to check the embedding model)`)
    }
    const activeVectors = embedded.find((entry) => entry.generation.status === "ACTIVE")

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
            aclKeys: source.aclKeys,
            aclAll: source.aclAll,
            title: source.title
          },
          toIndexedChunks(chunks)
        )
        // Shared with other writers, exclusive for a generation switch: the generations read now stay current until commit.
        yield* indexRepo.lockIndex(source.organizationId, "share")
        const now = yield* indexRepo.current(source.organizationId)
        for (const { generation, vectors } of embedded) {
          if (now.some((current) => current.id === generation.id)) {
            yield* indexRepo.store(generation.id, chunks.map((chunk, i) => ({ chunkId: chunk.id, vector: vectors[i]! })))
          }
        }
        // A generation made after this ingestion read them: its job embeds these chunks.
        for (const current of now) if (!generations.some((generation) => generation.id === current.id)) yield* embeddingIndex.fill(current.id)
        yield* repo.markReady(sourceId, {
          pageCount: parsed.pageCount,
          chunkCount: chunks.length,
          embedding: activeVectors
            ? { provider: activeVectors.generation.profile.provider, model: activeVectors.generation.profile.modelId, dimensions: activeVectors.generation.profile.dimensions, profileKey: activeVectors.generation.profile.profileKey }
            : null
        })
        // The newest ready version becomes current and the one search serves; older ones step back.
        yield* serveCurrentVersion(repo, index, queue, source.knowledgeAssetId, source.organizationId)
        yield* queue.enqueueJob(VersionReady, { sourceId }, { dedupeKey: sourceId, maxAttempts: 3 })
      })
    ).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(JobFailure.retryable("DATABASE", error.message))))
    yield* Effect.logInfo("source ingested").pipe(
      Effect.annotateLogs({ sourceId, chunks: chunks.length, pages: parsed.pageCount, generations: embedded.length })
    )
    yield* refreshStatisticsWhenStale
  })

/**
 * A bulk load must not leave search planning on stale (or no) statistics, nor the packer's and maintenance's
 * churn leave dead rows for search to scan: one refresh at a time, when due (after ingestion, packing, maintenance).
 */
const refreshStatisticsWhenStale = Effect.gen(function* () {
  if (!(yield* (yield* SearchIndexWriter).statisticsStale)) return
  yield* (yield* JobQueue).enqueueJob(RefreshSearchStatistics, {}, { dedupeKey: "search-statistics", maxAttempts: 3 })
})

const refreshStatistics = () =>
  Effect.gen(function* () {
    const index = yield* SearchIndexWriter
    const tables = yield* index.refreshStatistics
    if (tables.length > 0) yield* Effect.logInfo("search statistics refreshed").pipe(Effect.annotateLogs({ tables: tables.join(", ") }))
  })

/**
 * Postings block maintenance merges per run (20 bytes each, read, merged in the process and written back): a steady
 * upload appends a run to every common term each second, and merging keeps a term's runs few (RunMerging).
 */
export const MAINTENANCE_BUDGET_POSTINGS = 500_000

/** At most one block maintenance per organization per window, due when the window closes (its dedupe key). */
const MAINTENANCE_WINDOW_MS = 5000

const queueMaintenance = (organizationId: string) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue
    const window = Math.floor((yield* Clock.currentTimeMillis) / MAINTENANCE_WINDOW_MS)
    yield* queue.enqueueJob(MaintainSearchBlocks, { organizationId }, {
      dedupeKey: `search-maintain:${organizationId}:${window}`,
      runAt: new Date((window + 1) * MAINTENANCE_WINDOW_MS),
      maxAttempts: 3
    })
  })

/** A database error in a job is worth another attempt. */
const retryable = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(effect, (error): error is Extract<E, SqlError.SqlError> => error._tag === "SqlError", (error) => Effect.fail(JobFailure.retryable("DATABASE", error.message)))

const packSearchPostings = ({ organizationId }: { organizationId: string }) =>
  Effect.gen(function* () {
    const index = yield* SearchIndexWriter
    const { search } = yield* Settings
    const { packed, busy } = yield* retryable(index.packPendingUnlessBusy(organizationId, search.blockPostings))
    if (packed > 0) yield* Effect.logDebug("search postings packed").pipe(Effect.annotateLogs({ organizationId, chunks: packed }))
    // Another packer (or block maintenance) holds the lock and may have read the pending chunks before the change
    // that queued this job: pack again in the next window rather than hold a job worker waiting.
    if (busy) yield* Effect.flatMap(JobQueue, (queue) => queuePacking(queue, organizationId))
    // Between rebuilds, each pack adds a run of blocks to every term it touched, which search reads nearly whole.
    // Maintenance merges them in the background.
    if (yield* index.maintenanceDue(organizationId)) yield* queueMaintenance(organizationId)
    yield* refreshStatisticsWhenStale
  })

/** Block maintenance: one budget of the due terms' runs merged; the next window's run takes the rest. */
export const maintainSearchBlocks = ({ organizationId }: { organizationId: string }) =>
  Effect.gen(function* () {
    const index = yield* SearchIndexWriter
    const { search } = yield* Settings
    const done = yield* retryable(index.maintainBlocks(organizationId, search.blockPostings, MAINTENANCE_BUDGET_POSTINGS))
    if (done.terms > 0) yield* Effect.logDebug("search blocks maintained").pipe(Effect.annotateLogs({ organizationId, ...done }))
    // A packer (or another maintenance run) held the lock: the next window's run takes it up.
    if (done.busy || done.due > done.terms) yield* queueMaintenance(organizationId)
    else yield* refreshStatisticsWhenStale
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
    yield* handlers.registerJob(RefreshSearchStatistics, refreshStatistics)
    yield* handlers.registerJob(PackSearchPostings, packSearchPostings)
    yield* handlers.registerJob(MaintainSearchBlocks, maintainSearchBlocks)
  })
)
