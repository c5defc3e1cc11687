import { Context, type Effect, type Option } from "effect"

/** The model of the search index's active embedding generation, and where it was chosen. */
export interface ActiveEmbeddingModel {
  readonly model: string
  readonly dimensions: number
  /** ENVIRONMENT: LORE_EMBEDDING_*; ADMIN: an administrator's DOCUMENT_EMBEDDING route. */
  readonly source: "ENVIRONMENT" | "ADMIN"
}

/**
 * Which embedding model, if any, search runs with, for the health report: the active generation's, read on
 * each report (a re-embedding switches it while the server runs). Provided by the ai area (which records its
 * changes in this area's audit trail, so platform/ cannot import it).
 */
export class EmbeddingStatus extends Context.Tag("lore/EmbeddingStatus")<EmbeddingStatus, {
  readonly active: Effect.Effect<Option.Option<ActiveEmbeddingModel>>
}>() {}
