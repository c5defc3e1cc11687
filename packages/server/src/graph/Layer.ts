import { Layer } from "effect"
import { GraphCurations } from "./Curations"
import { GraphExplorerService } from "./Explorer"
import { GraphJobs } from "./GraphJobs"
import { GraphExplorerRepo } from "./ExplorerRepo"
import { GraphRepo } from "./Repo"
import { GraphRetrieval } from "./Retrieval"
import { GraphWorkerLive } from "./Worker"

/**
 * The knowledge graph area: jobs (on the durable queue) and their handlers, the explorer and export, curations.
 * Needs the access evaluator, the authorization generation, the ai area's Models, the audit trail and the job
 * queue from the app (built once there).
 */
export const GraphLive = GraphWorkerLive.pipe(
  Layer.provideMerge(Layer.mergeAll(GraphJobs.Default, GraphCurations.Default, GraphRetrieval.Default)),
  Layer.provideMerge(GraphExplorerService.Default),
  Layer.provideMerge(Layer.merge(GraphRepo.Default, GraphExplorerRepo.Default))
)
