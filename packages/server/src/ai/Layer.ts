import { Effect, Layer } from "effect"
import { EmbeddingStatus } from "../platform/EmbeddingStatus"
import { AiConfigCache } from "./ConfigCache"
import { EmbeddingModel } from "./EmbeddingModel"
import { Embeddings } from "./Embeddings"
import { Gateways } from "./Gateways"
import { Models } from "./Models"
import { Routes } from "./Routes"
import { Usage } from "./Usage"

/** The health report reads which embedding model search runs with through the platform's tag. */
const EmbeddingStatusLive = Layer.effect(EmbeddingStatus, Effect.map(EmbeddingModel, (embeddings) => ({ model: embeddings.info })))

/** The ai area: the model layer, the embedding model, gateways and their credentials, workload routes, index settings. */
export const AiLive = Models.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(Gateways.Default, Routes.Default, Usage.Default, Embeddings.Default, EmbeddingStatusLive, AiConfigCache.Default)),
  Layer.provideMerge(EmbeddingModel.Default)
)
