import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { transactional } from "../db/Sql"
import { actingUserId, type Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { EmbeddingSettings } from "./EmbeddingSettings"
import { AiVersionConflict, GatewayNotFound } from "./Errors"
import { Gateways, type GatewayView } from "./Gateways"
import { GatewaysRepo, type RouteRow } from "./GatewaysRepo"
import { ENVIRONMENT_GATEWAY_ID, isEmbeddingWorkload, LOCAL_GATEWAY_ID, type ReasoningEffort, type RouteSource, Workload } from "./Model"
import { routeTarget } from "./Policy"
import { localModels } from "./Presets"

/** A workload's effective route as the API shows it. */
export interface RouteView {
  readonly workload: Workload
  readonly gatewayKey: string
  readonly gatewayProfileId: string
  readonly modelId: string
  readonly providerReasoningEffort?: ReasoningEffort
  readonly source: RouteSource
  readonly editable: boolean
  readonly version: number
  readonly lifecycleNote?: string
}

export interface SetRouteInput {
  readonly gatewayProfileId: string
  readonly modelId: string
  readonly providerReasoningEffort?: ReasoningEffort | undefined
  readonly version: number
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

    /** The route a workload has without an administrator's. */
    const fallback = (workload: Workload): RouteView =>
      isEmbeddingWorkload(workload) && Option.isSome(endpoint)
        ? {
            workload, gatewayKey: "environment", gatewayProfileId: ENVIRONMENT_GATEWAY_ID, modelId: endpoint.value.model, source: "ENVIRONMENT",
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
      source: "ADMIN",
      editable: true,
      version: route.version,
      ...(gateway === undefined
        ? { lifecycleNote: "The gateway of this route no longer exists: the workload falls back to LOCAL" }
        : !gateway.enabled
          ? { lifecycleNote: `Gateway ${gateway.gatewayKey} is disabled: the workload falls back to LOCAL until it is enabled` }
          : {})
    })

    const list = (actor: Principal) =>
      Effect.gen(function* () {
        const [routes, all] = yield* Effect.all([repo.routes(actor.organizationId), gateways.list(actor)])
        return Workload.literals.map((workload) => {
          const route = routes.find((candidate) => candidate.workload === workload)
          return route ? adminView(route, all.find((gateway) => gateway.id === route.gatewayId)) : fallback(workload)
        })
      })

    const stale = (workload: Workload) => new AiVersionConflict({ detail: `The route of ${workload} changed since the version you sent; read it again and retry` })

    return {
      list,

      set: (actor: Principal, workload: Workload, input: SetRouteInput) =>
        transaction(
          Effect.gen(function* () {
            // Locks a stored gateway, so it cannot be deleted while this route comes to use it.
            const gateway = yield* gateways.lockForRoute(actor, input.gatewayProfileId)
            if (!gateway) return yield* new GatewayNotFound({ detail: "No AI gateway with this id in your organization" })
            yield* routeTarget(workload, { gatewayId: gateway.id, gatewayKey: gateway.gatewayKey, preset: gateway.preset, supportsReasoningEffort: gateway.supportsProviderReasoningEffort }, input.modelId, input.providerReasoningEffort)
            const route = { workload, gatewayId: gateway.id, modelId: input.modelId, providerReasoningEffort: input.providerReasoningEffort ?? null }
            const saved = input.version === 0
              ? yield* repo.insertRoute(actor.organizationId, route, actingUserId(actor))
              : yield* repo.updateRoute(actor.organizationId, route, input.version, actingUserId(actor))
            if (!saved) return yield* stale(workload)
            yield* audit.record(actor, {
              action: "ai_route.set", resourceType: "ai_route", resourceId: workload,
              details: { gatewayKey: gateway.gatewayKey, modelId: input.modelId, version: saved.version }
            })
            return adminView(saved, gateway)
          })
        ),

      reset: (actor: Principal, workload: Workload, version: number | undefined) =>
        transaction(
          Effect.gen(function* () {
            const current = yield* repo.route(actor.organizationId, workload)
            if (version !== undefined && (current?.version ?? 0) !== version) return yield* stale(workload)
            if (!current) return
            yield* repo.deleteRoute(actor.organizationId, workload)
            yield* audit.record(actor, { action: "ai_route.reset", resourceType: "ai_route", resourceId: workload, details: { modelId: current.modelId } })
          })
        ),

      /**
       * The search index's embedding settings: the model the stored vectors were made with (the server's
       * LORE_EMBEDDING_*), or none (lexical search).
       */
      indexSettings: (actor: Principal) =>
        Effect.gen(function* () {
          const routes = yield* list(actor)
          const document = routes.find((route) => route.workload === "DOCUMENT_EMBEDDING")!
          const pending = document.source === "ADMIN"
            ? ` An admin route names ${document.modelId} on ${document.gatewayKey}; the index keeps its current vectors until re-embedding with it is available.`
            : ""
          return Option.match(endpoint, {
            onNone: () => ({
              embeddingProvider: "LOCAL",
              embeddingModel: "none",
              dimensions: 0,
              distanceMetric: "NONE",
              managementMode: "DEFAULT",
              editable: false,
              lifecycleNote: `No embedding model: search is lexical (BM25). Set LORE_EMBEDDING_* to add vector search.${pending}`
            }),
            onSome: (settings) => ({
              embeddingProvider: settings.provider,
              embeddingModel: settings.model,
              dimensions: settings.dimensions,
              distanceMetric: "COSINE",
              managementMode: "ENVIRONMENT",
              editable: false,
              lifecycleNote: `Set by LORE_EMBEDDING_* on the server; changing the model or dimensions means embedding every document again.${pending}`
            })
          })
        })
    }
  }),
  dependencies: [GatewaysRepo.Default, Gateways.Default, Audit.Default]
}) {}
