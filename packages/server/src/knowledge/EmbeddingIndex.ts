import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { EmbeddingIndexHooks, type GenerationView, type IndexChange } from "../ai/EmbeddingIndexHooks"
import { type EmbeddingProfile, Embeddings, sameGeneration } from "../ai/Embeddings"
import { transactional } from "../db/Sql"
import { JobQueue } from "../jobs/JobQueue"
import { EmbeddingIndexRepo, type GenerationRow } from "./EmbeddingIndexRepo"
import { EmbedGeneration } from "./Jobs"

export const profileOf = (generation: GenerationRow): EmbeddingProfile => ({
  gatewayId: generation.gatewayId,
  gatewayKey: generation.gatewayKey,
  provider: generation.provider,
  modelId: generation.modelId,
  dimensions: generation.dimensions,
  profileKey: generation.profileKey
})

const viewOf = (generation: GenerationRow): GenerationView => ({
  number: generation.number,
  gatewayId: generation.gatewayId,
  gatewayKey: generation.gatewayKey,
  provider: generation.provider,
  modelId: generation.modelId,
  dimensions: generation.dimensions,
  createdAt: generation.createdAt
})

export interface IndexedGeneration {
  readonly id: string
  readonly status: "ACTIVE" | "BUILDING"
  readonly profile: EmbeddingProfile
}

/**
 * The search index's embedding generations. The ACTIVE generation is the one search ranks with; a change of
 * the DOCUMENT_EMBEDDING route (or of LORE_EMBEDDING_* between starts) makes a BUILDING generation and queues
 * a durable job that embeds every chunk into it; the job switches ACTIVE over in one transaction once no chunk
 * lacks a vector, and drops the old vectors. Ingestion writes vectors for both meanwhile.
 */
export class EmbeddingIndex extends Effect.Service<EmbeddingIndex>()("lore/EmbeddingIndex", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* EmbeddingIndexRepo
    const embeddings = yield* Embeddings
    const queue = yield* JobQueue
    const hooks = yield* EmbeddingIndexHooks
    /** Organizations whose index was brought in line with their route since this process started. */
    const reconciled = new Set<string>()

    /** Queues the generation's embedding job (one unfinished job per generation). */
    const queueJob = (generation: GenerationRow) =>
      Effect.gen(function* () {
        const { job } = yield* queue.enqueueJob(EmbedGeneration, { generationId: generation.id }, { dedupeKey: `embed:${generation.id}`, maxAttempts: 10 })
        if (generation.jobId !== job.id) yield* repo.setJob(generation.id, job.id)
        return job
      })

    /** Brings the index in line with the DOCUMENT_EMBEDDING route, in the caller's transaction. */
    const reconcile = (organizationId: string): Effect.Effect<IndexChange> =>
      Effect.gen(function* () {
        yield* repo.lockIndex(organizationId, "update")
        reconciled.add(organizationId)
        const target = yield* embeddings.documentProfile(organizationId)
        const generations = yield* repo.current(organizationId)
        const active = generations.find((generation) => generation.status === "ACTIVE")
        const building = generations.find((generation) => generation.status === "BUILDING")
        if (!target) {
          for (const generation of generations) yield* repo.end(generation.id)
          yield* repo.dropEnded(organizationId)
          // Sources no longer have vectors: they say so, rather than naming the model they had.
          if (generations.length > 0) yield* repo.reportGeneration(organizationId, null)
          return { note: active ? "Embeddings are off: search is lexical and the stored vectors were dropped" : "" }
        }
        if (active && sameGeneration(profileOf(active), target)) {
          if (building) yield* repo.end(building.id)
          yield* repo.dropEnded(organizationId)
          const progress = yield* repo.progress(organizationId, active.id)
          if (progress.embedded < progress.total) yield* queueJob(active)
          return { note: building ? `The re-embedding with ${building.modelId} was cancelled: search already uses ${target.modelId}` : "" }
        }
        if (building && sameGeneration(profileOf(building), target)) {
          const job = yield* queueJob(building)
          return { note: `The re-embedding into generation ${building.number} with ${target.modelId} continues (job ${job.id})` }
        }
        if (building) yield* repo.end(building.id)
        if ((yield* repo.chunkCount(organizationId)) === 0) {
          // Nothing to embed: the new generation is complete at once.
          if (active) yield* repo.end(active.id)
          yield* repo.dropEnded(organizationId)
          yield* repo.insert(organizationId, target, "ACTIVE")
          return { note: "" }
        }
        yield* repo.dropEnded(organizationId)
        const generation = yield* repo.insert(organizationId, target, "BUILDING")
        const job = yield* queueJob(generation)
        return {
          note: `A re-embedding into generation ${generation.number} with ${target.modelId} was queued (job ${job.id}); search keeps using ` +
            `${active ? `generation ${active.number} (${active.modelId})` : "lexical ranking"} until every chunk is embedded`
        }
      })

    /** Reconciles once per organization and process (a server started with other LORE_EMBEDDING_* re-embeds). */
    const ensure = (organizationId: string) =>
      reconciled.has(organizationId) ? Effect.void : Effect.asVoid(transaction(reconcile(organizationId)))

    const current = (organizationId: string) =>
      Effect.zipRight(
        ensure(organizationId),
        Effect.map(repo.current(organizationId), (generations) =>
          generations.map((generation): IndexedGeneration => ({ id: generation.id, status: generation.status as "ACTIVE" | "BUILDING", profile: profileOf(generation) })))
      )

    const status = (organizationId: string) =>
      Effect.gen(function* () {
        yield* ensure(organizationId)
        const generations = yield* repo.current(organizationId)
        const active = generations.find((generation) => generation.status === "ACTIVE")
        const building = generations.find((generation) => generation.status === "BUILDING")
        if (!building) return { active: active && viewOf(active), building: undefined }
        const progress = yield* repo.progress(organizationId, building.id)
        const job = building.jobId === null ? Option.none() : yield* queue.get(building.jobId)
        return {
          active: active && viewOf(active),
          building: {
            ...viewOf(building), chunksEmbedded: progress.embedded, chunksTotal: progress.total, jobId: building.jobId,
            jobStatus: Option.match(job, { onNone: () => null, onSome: (found) => found.status })
          }
        }
      })

    yield* hooks.register({ routeChanged: reconcile, status })

    return {
      /** The ACTIVE and BUILDING generations: ingestion writes vectors for each. */
      current,
      /** The generation search ranks with; undefined: lexical only. */
      active: (organizationId: string) => Effect.map(current(organizationId), (generations) => generations.find((generation) => generation.status === "ACTIVE")),
      /** Queues the job that fills a generation's missing vectors (ingestion that raced a route change). */
      fill: (generationId: string) =>
        Effect.flatMap(repo.generation(generationId), (generation) => (generation ? Effect.asVoid(queueJob(generation)) : Effect.void)),
      reconcile,
      status
    }
  }),
  dependencies: [EmbeddingIndexRepo.Default, Embeddings.Default, EmbeddingIndexHooks.Default]
}) {}
