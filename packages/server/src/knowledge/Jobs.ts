import { Schema } from "effect"
import { defineJob } from "../jobs/Model"

/** Parse, chunk, index and embed one uploaded source. */
export const IngestSource = defineJob("knowledge.ingest", Schema.Struct({ sourceId: Schema.UUID }))
/** Remove a deleted source's chunks, row and (when unreferenced) blob. */
export const PurgeSource = defineJob("knowledge.purge", Schema.Struct({ sourceId: Schema.UUID }))
/** Embed every chunk missing a vector in one embedding generation; a BUILDING one then becomes the one search uses. */
export const EmbedGeneration = defineJob("knowledge.embed-generation", Schema.Struct({ generationId: Schema.UUID }))
/** VACUUM (ANALYZE) of the search tables once ingestion outgrew their statistics (one at a time: dedupe key). */
export const RefreshSearchStatistics = defineJob("knowledge.refresh-search-statistics", Schema.Struct({}))
/** Pack the postings of an organization's chunks made searchable into search_blocks (one at a time per organization: dedupe key). */
export const PackSearchPostings = defineJob("knowledge.pack-search-postings", Schema.Struct({ organizationId: Schema.UUID }))
/**
 * Block maintenance: merge the appended runs of the terms the packer appended to most since it last looked
 * (SearchIndexWriter.maintainBlocks), a budget at a time. Queued by the packer; one per organization per window.
 */
export const MaintainSearchBlocks = defineJob("knowledge.maintain-search-blocks", Schema.Struct({ organizationId: Schema.UUID }))
/**
 * A version of a knowledge asset became READY (and current). Areas that follow knowledge react to it (the graph
 * area queues a re-extraction when the space has graph indexing on); enqueued in the ingestion's transaction.
 */
export const VersionReady = defineJob("knowledge.version-ready", Schema.Struct({ sourceId: Schema.UUID }))
