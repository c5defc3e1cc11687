import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { EmbeddingError } from "../ai/EmbeddingError"
import { Embeddings } from "../ai/Embeddings"
import { JobHandlers, type JobContext } from "../jobs/JobHandlers"
import { JobFailure } from "../jobs/Model"
import { profileOf } from "./EmbeddingIndex"
import { type ChunkText, EmbeddingIndexRepo } from "./EmbeddingIndexRepo"
import { EmbedGeneration } from "./Jobs"

/** Chunks per provider round trip and per committed step: a restart loses at most one batch of work. */
const BATCH = 64

/** What ingestion embeds for a chunk, so both paths make the same vector. */
export const embeddingText = (chunk: Pick<ChunkText, "title" | "headingPath" | "content">) => [chunk.title, ...chunk.headingPath, chunk.content].join("\n")

const jobFailure = (error: EmbeddingError) =>
  error.retryable ? JobFailure.retryable(error.code, error.message, error.retryAfterMs) : JobFailure.permanent(error.code, error.message)

/**
 * Embeds every chunk that has no vector in the generation yet, one committed batch at a time (so a restart
 * resumes where it stopped, and running twice does nothing more), then, for a BUILDING generation, switches
 * search to it in one transaction that holds the index lock: ingestion writing vectors holds it shared, so
 * the switch sees every chunk committed before it and none can slip through without a vector. The previous
 * generation's vectors are dropped after the switch.
 */
const embedGeneration = ({ generationId }: { generationId: string }, context: JobContext) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* EmbeddingIndexRepo
    const embeddings = yield* Embeddings
    // Walks the chunks in id order; at the end it looks once more from the start for chunks added behind it.
    let after: string | null = null
    for (;;) {
      const generation = yield* repo.generation(generationId)
      if (!generation || (generation.status !== "BUILDING" && generation.status !== "ACTIVE")) break
      const organizationId = generation.organizationId
      const batch: ReadonlyArray<ChunkText> = yield* repo.missing(organizationId, generationId, BATCH, after)
      if (batch.length === 0 && after !== null) {
        after = null
        continue
      }
      if (batch.length === 0) {
        if (generation.status === "ACTIVE") {
          // An ACTIVE generation filled (the first one, or chunks added): every source with chunks is in it now.
          yield* repo.reportGeneration(organizationId, generationId)
          break
        }
        const switched = yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* context.fence
            yield* repo.lockIndex(organizationId, "update")
            if ((yield* repo.missing(organizationId, generationId, 1)).length > 0) return false
            yield* repo.activate(organizationId, generationId)
            return true
          })
        )
        if (!switched) continue
        yield* Effect.logInfo("embedding generation active").pipe(Effect.annotateLogs({ generation: generation.number, model: generation.modelId }))
        break
      }
      const vectors = yield* embeddings.embed(organizationId, "DOCUMENT_EMBEDDING", profileOf(generation), batch.map(embeddingText), "document").pipe(
        Effect.mapError(jobFailure)
      )
      yield* sql.withTransaction(
        Effect.zipRight(context.fence, repo.store(generationId, batch.map((chunk, i) => ({ chunkId: chunk.id, vector: vectors[i]! }))))
      )
      after = batch.at(-1)!.id
    }
    const generation = yield* repo.generation(generationId)
    if (generation) yield* repo.dropEnded(generation.organizationId)
  }).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(JobFailure.retryable("DATABASE", error.message))))

/** Registers the re-embedding job handler with the workers. */
export const ReembeddingLive = Layer.effectDiscard(Effect.flatMap(JobHandlers, (handlers) => handlers.registerJob(EmbedGeneration, embedGeneration)))
