import { Context, type Option } from "effect"

/**
 * Which embedding model, if any, search runs with, for the health report. Provided by the ai area (which
 * records its changes in this area's audit trail, so platform/ cannot import it).
 */
export class EmbeddingStatus extends Context.Tag("lore/EmbeddingStatus")<EmbeddingStatus, {
  readonly model: Option.Option<{ readonly model: string; readonly dimensions: number }>
}>() {}
