import { Schema } from "effect"
import { defineJob } from "../jobs/Model"

/** Parse, chunk, index and embed one uploaded source. */
export const IngestSource = defineJob("knowledge.ingest", Schema.Struct({ sourceId: Schema.UUID }))
/** Remove a deleted source's chunks, row and (when unreferenced) blob. */
export const PurgeSource = defineJob("knowledge.purge", Schema.Struct({ sourceId: Schema.UUID }))
