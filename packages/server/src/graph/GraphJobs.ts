import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { AccessEvaluator } from "../access/Evaluator"
import { Models } from "../ai/Models"
import { transactional } from "../db/Sql"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import { actingUserId, type Principal, systemActor } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { JobQueue } from "../jobs/JobQueue"
import type { GraphJob } from "./Api"
import { GraphJobNotFound, GraphJobStateConflict, KnowledgeAssetNotFound, KnowledgeAssetNotReady, NotAGraphIndexer, NotASpaceManager } from "./Errors"
import { ENTITY_TYPES, LLM_EXTRACTOR, LOCAL_EXTRACTOR, LOCAL_VERSION, profileSha256, PROMPT_VERSION } from "./Extraction"
import { ExtractGraph } from "./Jobs"
import { GraphRepo, type JobRow } from "./Repo"

export const describeJob = (job: JobRow): typeof GraphJob.Type => ({
  id: job.id,
  knowledgeAssetId: job.knowledgeAssetId,
  knowledgeAssetVersionId: job.knowledgeAssetVersionId,
  sourceRevisionId: job.sourceRevisionId,
  projectionGeneration: job.projectionGeneration,
  graphProcessingProfileId: job.graphProcessingProfileId,
  graphProcessingProfileSha256: job.graphProcessingProfileSha256,
  status: job.status,
  attempt: job.attempt,
  cancellationRequested: job.cancellationRequested,
  cancellationRequestedAt: job.cancellationRequestedAt,
  lastErrorCode: job.lastErrorCode,
  lastErrorMessage: job.lastErrorMessage,
  completedAt: job.completedAt,
  chunksTotal: job.chunksTotal,
  chunksDone: job.chunksDone,
  extractor: job.extractor,
  createdAt: job.createdAt
})

/**
 * Graph jobs: one per extraction of an asset's current version, carried by the durable queue (ExtractGraph).
 * State machine (docs/decisions.md, "Knowledge graph"): QUEUED -> RUNNING -> SUCCEEDED | FAILED | CANCELLED;
 * cancel: QUEUED -> CANCELLED at once, RUNNING -> cancellationRequested, CANCELLED at the next chunk boundary;
 * resume: FAILED | CANCELLED -> QUEUED with attempt + 1.
 */
export class GraphJobs extends Effect.Service<GraphJobs>()("lore/GraphJobs", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* GraphRepo
    const evaluator = yield* AccessEvaluator
    const queue = yield* JobQueue
    const models = yield* Models
    const audit = yield* Audit

    const visibleFor = (caller: Principal) => Effect.map(evaluator.readScope(caller), (scope) => (alias: string) => evaluator.visibleTo(scope, alias))

    const mayIndex = (caller: Principal, spaceId: string) =>
      Effect.flatMap(evaluator.spacesWith(caller, "contributor"), (spaces) =>
        spaces.some((space) => space.id === spaceId)
          ? Effect.void
          : Effect.fail(new NotAGraphIndexer({ detail: "Indexing a knowledge asset into the graph needs contributor on its knowledge space" })))

    /** The effective GRAPH_EXTRACTION route as a stored, hashed processing profile. */
    const currentProfile = (organizationId: string) =>
      Effect.gen(function* () {
        const model = yield* Effect.orDie(models.resolve(systemActor(organizationId, "graph-extraction"), "GRAPH_EXTRACTION"))
        const profile = model._tag === "local"
          ? { extractor: LOCAL_EXTRACTOR, gatewayId: null, modelId: LOCAL_VERSION, promptVersion: LOCAL_VERSION, entityTypes: [...ENTITY_TYPES] }
          : { extractor: LLM_EXTRACTOR, gatewayId: model.provider.gatewayId, modelId: model.provider.modelId, promptVersion: PROMPT_VERSION, entityTypes: [...ENTITY_TYPES] }
        return yield* repo.profile(organizationId, { ...profile, sha256: profileSha256(profile) })
      })

    /** Queues a job for the version (or answers the asset's active one). Used by the endpoint and by automatic re-extraction. */
    const queueFor = (asset: { id: string; organizationId: string; knowledgeSpaceId: string; versionId: string }, requestedBy: string | null) =>
      transaction(Effect.gen(function* () {
        const active = yield* repo.activeJob(asset.id)
        if (active) return active
        const profile = yield* currentProfile(asset.organizationId)
        const inserted = yield* repo.insertJob({
          organizationId: asset.organizationId, knowledgeSpaceId: asset.knowledgeSpaceId, knowledgeAssetId: asset.id,
          versionId: asset.versionId, profileId: profile.id, requestedBy
        })
        if (!inserted) return (yield* repo.activeJob(asset.id))!
        yield* queue.enqueueJob(ExtractGraph, { graphJobId: inserted.id }, { maxAttempts: 3 })
        return (yield* repo.job(inserted.id))!
      }))

    const index = (caller: Principal, assetId: string) =>
      Effect.gen(function* () {
        const asset = yield* repo.assetSeenBy(caller.organizationId, assetId, yield* visibleFor(caller))
        if (!asset) return yield* new KnowledgeAssetNotFound({ detail: "No knowledge asset with this id that you may see" })
        yield* mayIndex(caller, asset.knowledgeSpaceId)
        if (asset.status !== "READY") return yield* new KnowledgeAssetNotReady({ detail: `The asset's current version is ${asset.status}; index it once it is READY` })
        return describeJob(yield* queueFor(asset, caller.userId))
      })

    const seen = (caller: Principal, jobId: string) =>
      Effect.gen(function* () {
        const job = yield* repo.job(jobId)
        if (!job || job.organizationId !== caller.organizationId || !(yield* repo.jobSeenBy(jobId, caller.organizationId, yield* visibleFor(caller)))) {
          return yield* new GraphJobNotFound({ detail: "No graph job with this id that you may see" })
        }
        return job
      })

    const get = (caller: Principal, jobId: string) => Effect.map(seen(caller, jobId), describeJob)

    const cancel = (caller: Principal, jobId: string) =>
      Effect.gen(function* () {
        const job = yield* seen(caller, jobId)
        yield* mayIndex(caller, job.knowledgeSpaceId)
        return yield* transaction(Effect.gen(function* () {
          const current = (yield* repo.job(jobId, true))!
          switch (current.status) {
            case "QUEUED":
              yield* repo.markCancelled(jobId)
              yield* repo.clearStaged(jobId)
              break
            case "RUNNING":
              yield* repo.requestCancel(jobId)
              break
            case "CANCELLED":
              break
            default:
              return yield* new GraphJobStateConflict({ detail: `A ${current.status} graph job cannot be cancelled` })
          }
          return describeJob((yield* repo.job(jobId))!)
        }))
      })

    const resume = (caller: Principal, jobId: string) =>
      Effect.gen(function* () {
        const job = yield* seen(caller, jobId)
        yield* mayIndex(caller, job.knowledgeSpaceId)
        return yield* transaction(Effect.gen(function* () {
          const current = (yield* repo.job(jobId, true))!
          if (current.status !== "FAILED" && current.status !== "CANCELLED") {
            return yield* new GraphJobStateConflict({ detail: `Only a FAILED or CANCELLED graph job can be resumed; this one is ${current.status}` })
          }
          const active = yield* repo.activeJob(current.knowledgeAssetId)
          if (active) return yield* new GraphJobStateConflict({ detail: `The asset has an active graph job already (${active.id})` })
          yield* repo.requeue(jobId)
          yield* queue.enqueueJob(ExtractGraph, { graphJobId: jobId }, { maxAttempts: 3 })
          return describeJob((yield* repo.job(jobId))!)
        }))
      })

    /** A new READY version of an asset: queue its re-extraction when the space has graph indexing on. */
    const versionReady = (versionId: string) =>
      Effect.gen(function* () {
        const asset = yield* repo.assetVersion(versionId)
        if (!asset || asset.status !== "READY") return
        const setting = yield* repo.indexingEnabled(asset.knowledgeSpaceId)
        if (!setting?.indexingEnabled) return
        yield* queueFor(asset, null)
      })

    const settings = (caller: Principal, spaceId: string) =>
      Effect.gen(function* () {
        const scope = yield* evaluator.readScope(caller)
        if (!scope.spaceIds.includes(spaceId)) return yield* new KnowledgeSpaceNotFound({ detail: "No knowledge space with this id that you may see" })
        const stored = yield* repo.indexingEnabled(spaceId)
        return { knowledgeSpaceId: spaceId, indexingEnabled: stored?.indexingEnabled ?? false, retrievalEnabled: stored?.retrievalEnabled ?? false }
      })

    const setSettings = (caller: Principal, spaceId: string, input: { indexingEnabled?: boolean | undefined; retrievalEnabled?: boolean | undefined }) =>
      Effect.gen(function* () {
        const current = yield* settings(caller, spaceId)
        const next = { indexingEnabled: input.indexingEnabled ?? current.indexingEnabled, retrievalEnabled: input.retrievalEnabled ?? current.retrievalEnabled }
        const managed = yield* evaluator.spacesWith(caller, "manager")
        if (!managed.some((space) => space.id === spaceId)) return yield* new NotASpaceManager({ detail: "Only a manager of the knowledge space may change its graph settings" })
        yield* transaction(Effect.gen(function* () {
          yield* repo.setIndexing(caller.organizationId, spaceId, next, actingUserId(caller))
          yield* audit.record(caller, { action: "graph.settings.update", resourceType: "knowledge_space", resourceId: spaceId, details: next })
        }))
        return { knowledgeSpaceId: spaceId, ...next }
      })

    /** Whether graph retrieval is on in any space of the caller's organization (access is checked per space by the explorer). */
    const retrievalAnywhere = (caller: Principal) => Effect.map(repo.retrievalAnywhere(caller.organizationId), (found) => found !== undefined)

    return { index, get, cancel, resume, versionReady, settings, setSettings, retrievalAnywhere }
  })
}) {}
