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
