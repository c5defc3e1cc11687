import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer } from "effect"
import { AuthorizationGeneration } from "../access/Generation"
import { ChatError } from "../ai/ChatTypes"
import { Models } from "../ai/Models"
import { systemActor } from "../domain/Principal"
import { JobHandlers, type JobContext } from "../jobs/JobHandlers"
import { JobFailure } from "../jobs/Model"
import {
  type ChunkExtraction,
  extractionRequest,
  extractLocal,
  gleaningRequest,
  LOCAL_EXTRACTOR,
  mergeExtractions,
  normalizeName,
  normalizeType,
  parseModelExtraction
} from "./Extraction"
import { VersionReady } from "../knowledge/Jobs"
import { GraphJobs } from "./GraphJobs"
import { ExtractGraph } from "./Jobs"
import { GraphRepo, type JobRow } from "./Repo"

/**
 * The graph job handler. Chunks are extracted one by one and each result is staged (graph_job_extractions), so a
 * resumed or re-delivered job continues where it stopped; cancellation is checked at every chunk boundary. The
 * graph changes only at the end, in one fenced transaction: the asset's old mentions go, the new ones come, the
 * curation overlay is applied again. A cancelled or failed job therefore leaves nothing half-projected.
 */
const extractChunk = (job: JobRow, text: string) =>
  Effect.gen(function* () {
    if (job.extractor === LOCAL_EXTRACTOR) return mergeExtractions([extractLocal(text)])
    const models = yield* Models
    const actor = systemActor(job.organizationId, "graph-extraction")
    const first = yield* models.generate(actor, "GRAPH_EXTRACTION", extractionRequest(text, job.entityTypes))
    const parsed = yield* parseModelExtraction(first.text)
    // One gleaning pass: what the first answer missed, in the same schema.
    const gleaned = yield* models.generate(actor, "GRAPH_EXTRACTION", gleaningRequest(text, job.entityTypes, first.text))
    const more = yield* parseModelExtraction(gleaned.text)
    return mergeExtractions([parsed, more])
  })

/** The staged extractions as rows of the graph: entities merged by normalized name and type, relations by endpoints and type. */
const project = (job: JobRow, staged: ReadonlyArray<{ chunkId: string; extraction: ChunkExtraction }>, aclGeneration: number) =>
  Effect.gen(function* () {
    const repo = yield* GraphRepo
    yield* repo.lockProjection(job.knowledgeAssetId)
    yield* repo.clearAssetMentions(job.knowledgeAssetId)

    const entityKey = (name: string, type: string) => `${normalizeName(name)}\u0000${normalizeType(type)}`
    const entities = new Map<string, { normalizedName: string; type: string; name: string }>()
    // Names resolve to entities within their chunk (a relation names its endpoints as the chunk's entities do).
    for (const { extraction } of staged) {
      for (const entity of extraction.entities) {
        const key = entityKey(entity.name, entity.type)
        if (!entities.has(key) && normalizeName(entity.name) !== "") entities.set(key, { normalizedName: normalizeName(entity.name), type: normalizeType(entity.type), name: entity.name })
      }
    }
    if (entities.size === 0) return
    const stored = yield* repo.upsertEntities(job.organizationId, job.knowledgeSpaceId, [...entities.values()])
    const idOf = new Map(stored.map((row) => [`${row.normalizedName}\u0000${row.type}`, row.id]))

    const entityMentions = new Map<string, { entityId: string; chunkId: string; description: string }>()
    const relationKeys = new Map<string, { sourceEntityId: string; targetEntityId: string; type: string }>()
    const relationMentions: Array<{ key: string; chunkId: string; description: string; keywords: ReadonlyArray<string>; weight: number }> = []
    for (const { chunkId, extraction } of staged) {
      const byName = new Map<string, string>()
      for (const entity of extraction.entities) {
        const id = idOf.get(entityKey(entity.name, entity.type))
        if (!id) continue
        byName.set(normalizeName(entity.name), id)
        const mention = `${id}\u0000${chunkId}`
        if (!entityMentions.has(mention)) entityMentions.set(mention, { entityId: id, chunkId, description: entity.description })
      }
      for (const relation of extraction.relations) {
        const source = byName.get(normalizeName(relation.source))
        const target = byName.get(normalizeName(relation.target))
        if (!source || !target || source === target) continue
        const type = normalizeType(relation.type)
        const key = `${source}\u0000${target}\u0000${type}`
        relationKeys.set(key, { sourceEntityId: source, targetEntityId: target, type })
        relationMentions.push({ key, chunkId, description: relation.description, keywords: relation.keywords, weight: relation.weight })
      }
    }
    yield* repo.insertEntityMentions(job.knowledgeAssetId, job.knowledgeAssetVersionId, aclGeneration, [...entityMentions.values()])
    if (relationKeys.size === 0) return
    const relations = yield* repo.upsertRelations(job.organizationId, job.knowledgeSpaceId, [...relationKeys.values()])
    const relationId = new Map(relations.map((row) => [`${row.sourceEntityId}\u0000${row.targetEntityId}\u0000${row.type}`, row.id]))
    const seen = new Set<string>()
    const mentions = relationMentions.flatMap((mention) => {
      const id = relationId.get(mention.key)
      if (!id || seen.has(`${id}\u0000${mention.chunkId}`)) return []
      seen.add(`${id}\u0000${mention.chunkId}`)
      return [{ relationId: id, chunkId: mention.chunkId, description: mention.description, keywords: mention.keywords, weight: mention.weight }]
    })
    yield* repo.insertRelationMentions(job.knowledgeAssetId, job.knowledgeAssetVersionId, aclGeneration, mentions)
  })

const failureOf = (error: unknown) =>
  error instanceof ChatError ? { code: `PROVIDER_${error.code}`, message: error.message } : { code: "EXTRACTION_FAILED", message: String(error) }

const run = ({ graphJobId }: { graphJobId: string }, context: JobContext) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* GraphRepo
    const generation = yield* AuthorizationGeneration
    const job = yield* repo.job(graphJobId)
    if (!job || job.status === "SUCCEEDED" || job.status === "FAILED" || job.status === "CANCELLED") return

    const cancelled = sql.withTransaction(Effect.gen(function* () {
      yield* context.fence
      yield* repo.markCancelled(job.id)
      yield* repo.clearStaged(job.id)
    }))
    if (job.cancellationRequested) return yield* cancelled
    yield* repo.markRunning(job.id)

    const chunks = yield* repo.chunksOf(job.knowledgeAssetVersionId)
    const staged = new Map((yield* repo.staged(job.id)).map((row) => [row.chunkId, row.extraction]))
    let done = staged.size
    for (const chunk of chunks) {
      if (staged.has(chunk.id)) continue
      // A chunk boundary: a requested cancellation takes effect here.
      const now = yield* repo.job(job.id)
      if (!now || now.cancellationRequested) return yield* cancelled
      const outcome = yield* Effect.either(extractChunk(job, chunk.content))
      if (Either.isLeft(outcome)) {
        const failure = failureOf(outcome.left)
        yield* Effect.logWarning("graph extraction failed").pipe(Effect.annotateLogs({ graphJobId, code: failure.code }))
        // Staged chunks stay: a resume continues from the next one.
        yield* sql.withTransaction(Effect.zipRight(context.fence, repo.markFailed(job.id, failure.code, failure.message)))
        return
      }
      const text = JSON.stringify(outcome.right)
      yield* repo.stage(job.id, chunk.id, text)
      staged.set(chunk.id, text)
      done++
      yield* repo.progress(job.id, done)
    }

    const aclGeneration = yield* generation.current(job.organizationId)
    const extractions = chunks.flatMap((chunk) => {
      const text = staged.get(chunk.id)
      return text === undefined ? [] : [{ chunkId: chunk.id, extraction: JSON.parse(text) as ChunkExtraction }]
    })
    yield* sql.withTransaction(Effect.gen(function* () {
      yield* context.fence
      const current = yield* repo.job(job.id, true)
      if (!current || current.status !== "RUNNING") return
      if (current.cancellationRequested) {
        yield* repo.markCancelled(job.id)
        yield* repo.clearStaged(job.id)
        return
      }
      yield* repo.lockSpace(job.organizationId, job.knowledgeSpaceId)
      yield* project(job, extractions, aclGeneration)
      yield* repo.recordProjection(job.knowledgeAssetId, job.projectionGeneration, job.id)
      yield* repo.applyOverlay(job.knowledgeSpaceId)
      yield* repo.markSucceeded(job.id)
      yield* repo.clearStaged(job.id)
    }))
    yield* Effect.logInfo("graph projected").pipe(Effect.annotateLogs({ graphJobId, chunks: chunks.length }))
  }).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(JobFailure.retryable("DATABASE", error.message))))

/** Registers the graph job handler with the workers. */
export const GraphWorkerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const handlers = yield* JobHandlers
    yield* handlers.registerJob(ExtractGraph, run)
    // A new READY version: re-extraction when the space has graph indexing on.
    yield* handlers.registerJob(VersionReady, ({ sourceId }) => Effect.flatMap(GraphJobs, (jobs) => jobs.versionReady(sourceId)))
  })
)
