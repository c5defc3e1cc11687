import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { transactional } from "../db/Sql"
import { actingUserId, type Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { EmbeddingIndexHooks, type GenerationView, type IndexStatus } from "./EmbeddingIndexHooks"
import { EmbeddingSettings } from "./EmbeddingSettings"
import { AiConfigCache, perSnapshot } from "./ConfigCache"
import { AiVersionConflict, GatewayNotFound, GatewayTestFailed } from "./Errors"
import { Gateways, type GatewayView } from "./Gateways"
import { GatewaysRepo, type RouteRow } from "./GatewaysRepo"
import { ENVIRONMENT_GATEWAY_ID, isEmbeddingWorkload, LOCAL_GATEWAY_ID, type ReasoningEffort, type RouteSource, Workload } from "./Model"
import { queryRouteUsable, routeTarget } from "./Policy"
import { localModels } from "./Presets"

/** A workload's effective route as the API shows it. */
export interface RouteView {
  readonly workload: Workload
  readonly gatewayKey: string
  readonly gatewayProfileId: string
  readonly modelId: string
  readonly providerReasoningEffort?: ReasoningEffort
  readonly dimensions?: number
  readonly source: RouteSource
  readonly editable: boolean
  readonly version: number
  readonly lifecycleNote?: string
}

export interface SetRouteInput {
  readonly gatewayProfileId: string
  readonly modelId: string
  readonly providerReasoningEffort?: ReasoningEffort | undefined
  readonly dimensions?: number | undefined
  readonly version: number
  /** Route even if the gateway's test fails. */
  readonly force?: boolean | undefined
}

const defaultNote = (workload: Workload) =>
  isEmbeddingWorkload(workload)
    ? "Lore's default: no embeddings, search is lexical (BM25)"
    : "Lore's default: LOCAL, offline, answers from the retrieved passages"

/**
 * Routes from each workload to a gateway and model. The effective route is the administrator's (ADMIN) if
 * there is one, else for the embedding workloads the server's LORE_EMBEDDING_* (ENVIRONMENT), else LOCAL
 * (DEFAULT). Deleting an admin route returns the workload to what it would be without it.
 */
export class Routes extends Effect.Service<Routes>()("lore/Routes", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* GatewaysRepo
    const gateways = yield* Gateways
    const audit = yield* Audit
    const { endpoint } = yield* EmbeddingSettings
    const hooks = yield* EmbeddingIndexHooks
    const cache = yield* AiConfigCache

    /** The route a workload has without an administrator's. */
    const fallback = (workload: Workload): RouteView =>
      isEmbeddingWorkload(workload) && Option.isSome(endpoint)
        ? {
            workload, gatewayKey: "environment", gatewayProfileId: ENVIRONMENT_GATEWAY_ID, modelId: endpoint.value.model,
            dimensions: endpoint.value.dimensions, source: "ENVIRONMENT",
            editable: true, version: 0, lifecycleNote: "Set by LORE_EMBEDDING_* on the server; an admin route overrides it"
          }
        : {
            workload, gatewayKey: "local", gatewayProfileId: LOCAL_GATEWAY_ID, modelId: localModels[workload].modelId, source: "DEFAULT",
            editable: true, version: 0, lifecycleNote: defaultNote(workload)
          }

    const adminView = (route: RouteRow, gateway: GatewayView | undefined): RouteView => ({
      workload: route.workload,
      gatewayKey: gateway?.gatewayKey ?? "(missing)",
      gatewayProfileId: route.gatewayId,
      modelId: route.modelId,
      ...(route.providerReasoningEffort === null ? {} : { providerReasoningEffort: route.providerReasoningEffort }),
      ...(route.dimensions === null ? {} : { dimensions: route.dimensions }),
      source: "ADMIN",
      editable: true,
      version: route.version,
      ...(gateway === undefined
        ? { lifecycleNote: "The gateway of this route no longer exists: the workload falls back to LOCAL" }
        : !gateway.enabled
          ? { lifecycleNote: `Gateway ${gateway.gatewayKey} is disabled: the workload falls back to LOCAL until it is enabled` }
          : {})
    })

    /** The routes of a configuration, built once per snapshot (a chat reads them for planning, options and its answer). */
    const viewsOf = perSnapshot((snapshot): ReadonlyArray<RouteView> => {
      const all = gateways.viewsOf(snapshot)
      return Workload.literals.map((workload) => {
        const route = snapshot.routes.find((candidate) => candidate.workload === workload)
        return route ? adminView(route, all.find((gateway) => gateway.id === route.gatewayId)) : fallback(workload)
      })
    })

    // One read of the organization's configuration (cached per process) for the routes and their gateways.
    const list = (actor: Principal) => Effect.map(cache.snapshot(actor.organizationId), viewsOf)

    /**
     * The routes as an administrator reads them. QUERY_EMBEDDING shows what questions are really embedded
     * with: without an admin route, the search index's own gateway and model (or LOCAL: no index vectors,
     * lexical search); with one that no longer names the index's model (the index was re-embedded since), a
     * note that it is not used and what is.
     */
    const shown = (actor: Principal) =>
      Effect.gen(function* () {
        const all = yield* list(actor)
        const { active } = yield* hooks.status(actor.organizationId)
        return all.map((route) => (route.workload === "QUERY_EMBEDDING" ? queryView(route, active) : route))
      })

    const stale = (workload: Workload) => new AiVersionConflict({ detail: `The route of ${workload} changed since the version you sent; read it again and retry` })

    /** The gateway of a route, if the route may use it (exists, and serves the workload with this model). */
    const usableGateway = (actor: Principal, workload: Workload, input: SetRouteInput) =>
      Effect.gen(function* () {
        // Inside the save's transaction this locks a stored gateway, so it cannot be deleted while this route comes to use it.
        const gateway = yield* gateways.lockForRoute(actor, input.gatewayProfileId)
        if (!gateway) return yield* new GatewayNotFound({ detail: "No AI gateway with this id in your organization" })
        yield* routeTarget(
          workload,
          { gatewayId: gateway.id, gatewayKey: gateway.gatewayKey, preset: gateway.preset, supportsReasoningEffort: gateway.supportsProviderReasoningEffort },
          input.modelId, input.providerReasoningEffort, input.dimensions
        )
        if (workload === "QUERY_EMBEDDING" && gateway.preset !== "LOCAL") {
          const { active, building } = yield* hooks.status(actor.organizationId)
          yield* queryRouteUsable([active, building].filter((generation) => generation !== undefined), input.modelId, input.dimensions)
        }
        return gateway
      })

    /**
     * A route to a gateway that fails its test would fail every call of the workload (every employee's chat):
     * refused unless forced. The test calls the gateway, so it runs before the save's transaction, not inside it.
     */
    const requirePassingTest = (actor: Principal, workload: Workload, input: SetRouteInput) =>
      Effect.gen(function* () {
        const gateway = yield* usableGateway(actor, workload, input)
        // A stale version is answered as such before the gateway is called (the save checks it again).
        if (((yield* repo.route(actor.organizationId, workload))?.version ?? 0) !== input.version) return yield* stale(workload)
        const test = yield* gateways.test(actor, gateway.id)
        if (test.errorCode === null) return
        const words = test.errorMessage ? `: ${test.errorMessage}` : ""
        return yield* new GatewayTestFailed({
          detail: `Gateway ${gateway.gatewayKey} failed its test (${test.errorCode})${words}. Fix the gateway (lore admin ai gateways test ${gateway.gatewayKey}), or send force: true (--force) to route ${workload} to it anyway`,
          errors: [{ path: "gatewayProfileId", message: `the gateway's test failed with ${test.errorCode}`, code: test.errorCode }]
        })
      })

    return {
      list,
      shown,

      set: (actor: Principal, workload: Workload, input: SetRouteInput) =>
        Effect.zipRight(input.force === true ? Effect.void : requirePassingTest(actor, workload, input), transaction(
          Effect.gen(function* () {
            const gateway = yield* usableGateway(actor, workload, input)
            const route = { workload, gatewayId: gateway.id, modelId: input.modelId, providerReasoningEffort: input.providerReasoningEffort ?? null, dimensions: input.dimensions ?? null }
            const saved = input.version === 0
              ? yield* repo.insertRoute(actor.organizationId, route, actingUserId(actor))
              : yield* repo.updateRoute(actor.organizationId, route, input.version, actingUserId(actor))
            if (!saved) return yield* stale(workload)
            yield* audit.record(actor, {
              action: "ai_route.set", resourceType: "ai_route", resourceId: workload,
              details: { gatewayKey: gateway.gatewayKey, modelId: input.modelId, version: saved.version }
            })
            const view = adminView(saved, gateway)
            if (workload !== "DOCUMENT_EMBEDDING") return view
            // The index follows the document route: a new model means a re-embedding, queued in this transaction.
            const change = yield* hooks.routeChanged(actor.organizationId)
            return change.note === "" ? view : { ...view, lifecycleNote: [view.lifecycleNote, change.note].filter(Boolean).join(". ") }
          })
        )),

      reset: (actor: Principal, workload: Workload, version: number | undefined) =>
        transaction(
          Effect.gen(function* () {
            const current = yield* repo.route(actor.organizationId, workload)
            if (version !== undefined && (current?.version ?? 0) !== version) return yield* stale(workload)
            if (!current) return
            yield* repo.deleteRoute(actor.organizationId, workload)
            yield* audit.record(actor, { action: "ai_route.reset", resourceType: "ai_route", resourceId: workload, details: { modelId: current.modelId } })
            if (workload === "DOCUMENT_EMBEDDING") yield* hooks.routeChanged(actor.organizationId)
          })
        ),

      /**
       * The search index's embedding settings: the generation search ranks with (its provider, model and size),
       * how it is managed, and the re-embedding in progress with its progress.
       */
      indexSettings: (actor: Principal) => Effect.map(hooks.status(actor.organizationId), indexSettingsOf)
    }
  }),
  dependencies: [GatewaysRepo.Default, Gateways.Default, Audit.Default, EmbeddingIndexHooks.Default, AiConfigCache.Default]
}) {}

const queryView = (route: RouteView, active: GenerationView | undefined): RouteView => {
  const index = active && `${active.modelId} at ${active.dimensions} dimensions on ${active.gatewayKey} (generation ${active.number})`
  if (route.source === "ADMIN") {
    if (route.gatewayProfileId === LOCAL_GATEWAY_ID) return { ...route, lifecycleNote: "Query vectors are off: search is lexical" }
    if (!active) return { ...route, lifecycleNote: "Not used: the search index has no vectors, so search is lexical" }
    if (route.modelId !== active.modelId || route.dimensions !== active.dimensions) {
      return { ...route, lifecycleNote: `Not used: questions are embedded with the search index's model, ${index}; route QUERY_EMBEDDING to a gateway serving it, or reset it` }
    }
    return route
  }
  if (!active) {
    return {
      workload: route.workload, gatewayKey: "local", gatewayProfileId: LOCAL_GATEWAY_ID, modelId: localModels.QUERY_EMBEDDING.modelId, source: "DEFAULT",
      editable: true, version: route.version, lifecycleNote: "The search index has no vectors: questions are not embedded and search is lexical"
    }
  }
  return {
    workload: route.workload, gatewayKey: active.gatewayKey, gatewayProfileId: active.gatewayId, modelId: active.modelId, dimensions: active.dimensions,
    source: active.gatewayId === ENVIRONMENT_GATEWAY_ID ? "ENVIRONMENT" : "DEFAULT", editable: true, version: route.version,
    lifecycleNote: `Follows the search index: questions are embedded with ${index}`
  }
}

const indexSettingsOf = ({ active, building }: IndexStatus) => {
  const reembedding = building === undefined
    ? null
    : {
        generation: building.number, embeddingProvider: building.provider, embeddingModel: building.modelId, gatewayKey: building.gatewayKey,
        dimensions: building.dimensions, chunksEmbedded: building.chunksEmbedded, chunksTotal: building.chunksTotal,
        jobId: building.jobId, jobStatus: building.jobStatus, startedAt: building.createdAt
      }
  const progress = building === undefined
    ? ""
    : ` Re-embedding into generation ${building.number} with ${building.modelId} on ${building.gatewayKey}: ${building.chunksEmbedded} of ${building.chunksTotal} chunks` +
      ` (job ${building.jobStatus ?? "not queued"}); search switches to it in one step when it is complete.` +
      (building.jobStatus === "FAILED" || building.jobStatus === "DEAD"
        ? " The job stopped: check the gateway (lore admin ai gateways test), then update the gateway or set the route again to resume."
        : "")
  if (active === undefined) {
    return {
      embeddingProvider: "LOCAL", embeddingModel: "none", dimensions: 0, distanceMetric: "NONE", managementMode: "DEFAULT", editable: true,
      generation: null, reembedding,
      lifecycleNote: `No embedding model: search is lexical (BM25). Route DOCUMENT_EMBEDDING to a gateway (or set LORE_EMBEDDING_*) to add vector search.${progress}`
    }
  }
  const environment = active.gatewayId === ENVIRONMENT_GATEWAY_ID
  return {
    embeddingProvider: active.provider, embeddingModel: active.modelId, dimensions: active.dimensions, distanceMetric: "COSINE",
    managementMode: environment ? "ENVIRONMENT" : "ADMIN", editable: true, generation: active.number, reembedding,
    lifecycleNote: `Search ranks with generation ${active.number} (${active.modelId} on ${active.gatewayKey}${environment ? ", set by LORE_EMBEDDING_*" : ""}); ` +
      `changing the DOCUMENT_EMBEDDING route embeds every chunk again.${progress}`
  }
}
