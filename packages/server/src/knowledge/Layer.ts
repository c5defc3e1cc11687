import { Effect, Layer } from "effect"
import { ResourceResolvers } from "../access/Resources"
import { Embeddings } from "../ai/Embeddings"
import { EmbeddingIndex } from "./EmbeddingIndex"
import { EmbeddingIndexRepo } from "./EmbeddingIndexRepo"
import { ReembeddingLive } from "./Reembedding"
import { IngestionLive } from "./Ingestion"
import { KnowledgeSearch } from "./Search"
import { CatalogRepo } from "./CatalogRepo"
import { SearchIndexReader } from "./SearchIndexReader"
import { SearchIndexWriter } from "./SearchIndexWriter"
import { Sources } from "./Sources"
import { SourcesRepo } from "./SourcesRepo"
import { ParsePool } from "../parsing-pool/ParsePool"

/** The explanation finds sources and knowledge assets through this area's resolvers. */
const SourceResolversLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const sources = yield* Sources
    const resolvers = yield* ResourceResolvers
    yield* resolvers.register("SOURCE", sources.resolveForAccess("SOURCE"))
    yield* resolvers.register("KNOWLEDGE_ASSET", sources.resolveForAccess("KNOWLEDGE_ASSET"))
  })
)

/** The knowledge area: uploads and their ingestion jobs, search, catalog and citations. */
export const KnowledgeLive = Layer.mergeAll(SourceResolversLive, IngestionLive, ReembeddingLive).pipe(
  Layer.provideMerge(Layer.mergeAll(Sources.Default, KnowledgeSearch.Default, EmbeddingIndex.Default)),
  // Job handlers run with the services they were registered with.
  Layer.provide(Layer.mergeAll(ResourceResolvers.Default, SourcesRepo.Default, SearchIndexReader.Default, SearchIndexWriter.Default, CatalogRepo.Default, EmbeddingIndexRepo.Default, Embeddings.Default, ParsePool.Default))
)
