import { Effect, Layer, Option } from "effect"
import { EmbeddingStatus } from "../platform/EmbeddingStatus"
import { AiConfigCache } from "./ConfigCache"
import { EmbeddingIndexHooks } from "./EmbeddingIndexHooks"
import { EmbeddingModel } from "./EmbeddingModel"
import { Embeddings } from "./Embeddings"
import { Gateways } from "./Gateways"
import { GatewaysRepo } from "./GatewaysRepo"
import { ENVIRONMENT_GATEWAY_ID } from "./Model"
import { Models } from "./Models"
import { Routes } from "./Routes"
import { Usage } from "./Usage"

/**
 * The health report reads which embedding model search runs with through the platform's tag: the active
 * generation of the server's organization, whether LORE_EMBEDDING_* or an administrator's route made it.
 */
const EmbeddingStatusLive = Layer.effect(EmbeddingStatus, Effect.gen(function* () {
  const repo = yield* GatewaysRepo
  const hooks = yield* EmbeddingIndexHooks
  return {
    active: Effect.gen(function* () {
      const organization = yield* repo.firstOrganization()
      if (!organization) return Option.none()
      const { active } = yield* hooks.status(organization.id)
      return Option.map(Option.fromNullable(active), (generation) => ({
        model: generation.modelId,
        dimensions: generation.dimensions,
        source: generation.gatewayId === ENVIRONMENT_GATEWAY_ID ? "ENVIRONMENT" as const : "ADMIN" as const
      }))
    })
  }
})).pipe(Layer.provide(Layer.merge(GatewaysRepo.Default, EmbeddingIndexHooks.Default)))

/** The ai area: the model layer, the embedding model, gateways and their credentials, workload routes, index settings. */
export const AiLive = Models.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(Gateways.Default, Routes.Default, Usage.Default, Embeddings.Default, EmbeddingStatusLive, AiConfigCache.Default)),
  Layer.provideMerge(EmbeddingModel.Default)
)
