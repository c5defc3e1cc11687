import { Effect, Ref } from "effect"

/** What the search index reports about its embedding generations (the knowledge area fills it). */
export interface GenerationView {
  readonly number: number
  readonly gatewayId: string
  readonly gatewayKey: string
  readonly provider: string
  readonly modelId: string
  readonly dimensions: number
  readonly createdAt: Date
}

export interface IndexStatus {
  /** The generation search ranks with; none: search is lexical. */
  readonly active: GenerationView | undefined
  /** A re-embedding in progress, with its progress and durable job. */
  readonly building:
    | (GenerationView & { readonly chunksEmbedded: number; readonly chunksTotal: number; readonly jobId: string | null; readonly jobStatus: string | null })
    | undefined
}

/** What a change of the DOCUMENT_EMBEDDING route (or of its gateway) did to the index, in words for the admin. */
export interface IndexChange {
  readonly note: string
}

export interface EmbeddingIndexHandler {
  /** Brings the index in line with the DOCUMENT_EMBEDDING route, inside the caller's transaction (queues a re-embedding). */
  readonly routeChanged: (organizationId: string) => Effect.Effect<IndexChange>
  readonly status: (organizationId: string) => Effect.Effect<IndexStatus>
}

const none: EmbeddingIndexHandler = {
  routeChanged: () => Effect.succeed({ note: "" }),
  status: () => Effect.succeed({ active: undefined, building: undefined })
}

/**
 * The search index's embedding generations live in the knowledge area, which uses the ai area's model layer;
 * the ai area reaches back only through this registry (filled when the knowledge area's layer is built), so
 * the folders do not import each other in a cycle (the same inversion as platform/EmbeddingStatus).
 */
export class EmbeddingIndexHooks extends Effect.Service<EmbeddingIndexHooks>()("lore/EmbeddingIndexHooks", {
  effect: Effect.gen(function* () {
    const handler = yield* Ref.make<EmbeddingIndexHandler>(none)
    return {
      register: (implementation: EmbeddingIndexHandler) => Ref.set(handler, implementation),
      routeChanged: (organizationId: string) => Effect.flatMap(Ref.get(handler), (current) => current.routeChanged(organizationId)),
      status: (organizationId: string) => Effect.flatMap(Ref.get(handler), (current) => current.status(organizationId))
    }
  })
}) {}
