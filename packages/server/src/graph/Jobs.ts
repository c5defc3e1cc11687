import { Schema } from "effect"
import { defineJob } from "../jobs/Model"

/** Extract one graph job's chunks (resuming from its staged extractions), then project them in one transaction. */
export const ExtractGraph = defineJob("graph.extract", Schema.Struct({ graphJobId: Schema.UUID }))
