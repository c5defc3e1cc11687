import { Clock, Effect, Option } from "effect"
import { systemActor } from "../domain/Principal"
import { EmbeddingError } from "./EmbeddingError"
import { EmbeddingModel, type EmbeddingModelShape, type EmbeddingPurpose, embeddingProfileKey, makeClient } from "./EmbeddingModel"
import { EmbeddingSettings } from "./EmbeddingSettings"
import { Gateways } from "./Gateways"
import { ENVIRONMENT_GATEWAY_ID, LOCAL_GATEWAY_ID } from "./Model"
import { Routes } from "./Routes"
import { UsageRepo } from "./UsageRepo"

/**
 * The gateway, model and size that make one space of comparable vectors. Vectors of two profiles are never
 * compared: the search index keeps each profile's vectors in a generation of its own.
 */
export interface EmbeddingProfile {
  readonly gatewayId: string
  readonly gatewayKey: string
  /** "openai" / "openai-compatible" for LORE_EMBEDDING_*, the gateway's preset for an admin gateway. */
  readonly provider: string
  readonly modelId: string
  readonly dimensions: number
  /** `model@dimensions` (+ a hash of the environment's document prefix). */
  readonly profileKey: string
}

export type EmbeddingWorkload = "QUERY_EMBEDDING" | "DOCUMENT_EMBEDDING"

/** Same vectors: the same model at the same size (through whichever gateway serves it). */
export const sameVectors = (a: EmbeddingProfile, b: EmbeddingProfile) => a.profileKey === b.profileKey
/** Same generation: the same gateway too (a route moved to another gateway is embedded again). */
export const sameGeneration = (a: EmbeddingProfile, b: EmbeddingProfile) => a.gatewayId === b.gatewayId && sameVectors(a, b)

const notConfigured = (message: string) => new EmbeddingError({ code: "EMBEDDING_NOT_CONFIGURED", retryable: false, message })

/**
 * The embedding half of the model layer. QUERY_EMBEDDING and DOCUMENT_EMBEDDING resolve their route on each
 * call (ADMIN > ENVIRONMENT > DEFAULT, so a route change applies to the next call); LOCAL, or a route whose
 * gateway is disabled or gone, means no embeddings (lexical search). Calls go through `EmbeddingModel.ts` (the
 * AI SDK's openai-compatible provider, with Lore's batching, retries and checks) and each is recorded in the
 * usage log like a chat call.
 */
export class Embeddings extends Effect.Service<Embeddings>()("lore/Embeddings", {
  effect: Effect.gen(function* () {
    const routes = yield* Routes
    const gateways = yield* Gateways
    const usage = yield* UsageRepo
    const environment = yield* EmbeddingModel
    const { endpoint } = yield* EmbeddingSettings
    const clients = new Map<string, EmbeddingModelShape>()

    const actor = (organizationId: string) => systemActor(organizationId, "embeddings")

    /** The profile a workload's effective route names; undefined for LOCAL (embeddings off). */
    const routeProfile = (organizationId: string, workload: EmbeddingWorkload) =>
      Effect.gen(function* () {
        const route = (yield* routes.list(actor(organizationId))).find((candidate) => candidate.workload === workload)!
        if (route.gatewayProfileId === LOCAL_GATEWAY_ID) return undefined
        if (route.gatewayProfileId === ENVIRONMENT_GATEWAY_ID) {
          if (Option.isNone(endpoint)) return undefined
          const settings = endpoint.value
          return {
            gatewayId: ENVIRONMENT_GATEWAY_ID, gatewayKey: "environment", provider: settings.provider, modelId: settings.model,
            dimensions: settings.dimensions, profileKey: embeddingProfileKey(settings)
          } satisfies EmbeddingProfile
        }
        const found = yield* gateways.connection(actor(organizationId), route.gatewayProfileId)
        if (!found || found.gateway.protocol === "LOCAL") return undefined
        const dimensions = route.dimensions ?? 0
        return {
          gatewayId: found.gateway.id, gatewayKey: found.gateway.gatewayKey, provider: found.gateway.preset, modelId: route.modelId,
          dimensions, profileKey: embeddingProfileKey({ model: route.modelId, dimensions, documentPrefix: "" })
        } satisfies EmbeddingProfile
      })

    /** The client for a profile, built once per gateway settings and key. */
    const clientFor = (organizationId: string, profile: EmbeddingProfile) =>
      Effect.gen(function* () {
        if (profile.gatewayId === ENVIRONMENT_GATEWAY_ID) {
          const info = Option.getOrUndefined(environment.info)
          if (!info || info.profileKey !== profile.profileKey) {
            return yield* notConfigured(`LORE_EMBEDDING_* no longer names ${profile.modelId} at ${profile.dimensions} dimensions`)
          }
          return environment
        }
        const found = yield* gateways.connection(actor(organizationId), profile.gatewayId)
        if (!found) return yield* notConfigured(`The embedding gateway ${profile.gatewayKey} no longer exists`)
        const { gateway, apiKey } = found
        if (!gateway.enabled) return yield* notConfigured(`The embedding gateway ${gateway.gatewayKey} is disabled: search is lexical until it is enabled`)
        if (apiKey === "unreadable") {
          return yield* new EmbeddingError({
            code: "EMBEDDING_UNAUTHORIZED", retryable: false,
            message: `The key of gateway ${gateway.gatewayKey} cannot be decrypted with this server's key; set it again`
          })
        }
        const key = `${gateway.id}|${gateway.version}|${gateway.credentialSetAt?.getTime() ?? ""}|${profile.modelId}|${profile.dimensions}`
        const cached = clients.get(key)
        if (cached) return cached
        const made = yield* makeClient(
          EmbeddingSettings.make({
            url: gateway.baseUrl, model: profile.modelId, dimensions: profile.dimensions, provider: gateway.preset,
            ...(apiKey === undefined ? {} : { apiKey }),
            apiKeyHeader: gateway.protocol === "AZURE_OPENAI_COMPATIBLE" ? "api-key" : "bearer",
            requestTimeoutMs: gateway.requestTimeoutSeconds * 1000
          }).endpoint.pipe(Option.getOrThrow)
        )
        for (const old of clients.keys()) if (old.startsWith(`${gateway.id}|`)) clients.delete(old)
        clients.set(key, made)
        return made
      })

    return {
      /** The profile DOCUMENT_EMBEDDING's route names now; undefined: embeddings off (LOCAL). */
      documentProfile: (organizationId: string) => routeProfile(organizationId, "DOCUMENT_EMBEDDING"),

      /**
       * The profile to embed a question with, for an index whose vectors were made with `indexed`: an admin
       * QUERY_EMBEDDING route is honoured when it names the same model and size (another gateway serving it)
       * and turns query embeddings off when it names LOCAL; otherwise queries use the index's own gateway and
       * model, so query and document vectors always come from one model.
       */
      queryProfile: (organizationId: string, indexed: EmbeddingProfile) =>
        Effect.gen(function* () {
          const route = (yield* routes.list(actor(organizationId))).find((candidate) => candidate.workload === "QUERY_EMBEDDING")!
          if (route.source !== "ADMIN") return indexed
          if (route.gatewayProfileId === LOCAL_GATEWAY_ID) return undefined
          const routed = yield* routeProfile(organizationId, "QUERY_EMBEDDING")
          return routed && sameVectors(routed, indexed) ? routed : indexed
        }),

      /** Embeds texts with a profile's gateway and model, recording the call's usage under `workload`. */
      embed: (organizationId: string, workload: EmbeddingWorkload, profile: EmbeddingProfile, texts: ReadonlyArray<string>, purpose: EmbeddingPurpose) =>
        Effect.gen(function* () {
          const client = yield* clientFor(organizationId, profile)
          const started = yield* Clock.currentTimeMillis
          const record = (outcome: "OK" | "FAILED", inputTokens: number) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              usage.record({
                organizationId, workload, gatewayId: profile.gatewayId, gatewayKey: profile.gatewayKey, modelId: profile.modelId,
                inputTokens, outputTokens: 0, durationMs: Math.round(now - started), outcome
              }))
          const embedded = yield* client.embedCounted(texts, purpose).pipe(Effect.tapError(() => record("FAILED", 0)))
          yield* record("OK", embedded.inputTokens)
          return embedded.vectors
        })
    }
  }),
  dependencies: [Routes.Default, Gateways.Default, EmbeddingModel.Default, UsageRepo.Default]
}) {}
