import { Layer } from "effect"
import { AssistantFiles } from "./Files"
import { FilesJobsLive, PurgeScheduleLive } from "./Jobs"
import { FilesRepo } from "./Repo"
import { RateLimits } from "../RateLimits"
import { ParsePool } from "../../parsing-pool/ParsePool"

/**
 * Assistant files (uploads, processing and purge jobs) and the per-user rate limits. Exposes AssistantFiles
 * (passagesFor is what the chat calls) and RateLimits (consume(caller, "chat")).
 */
export const AssistantFilesLive = Layer.mergeAll(FilesJobsLive, PurgeScheduleLive).pipe(
  Layer.provideMerge(Layer.mergeAll(AssistantFiles.Default, RateLimits.Default)),
  // Job handlers run with the services they were registered with.
  Layer.provide(Layer.merge(FilesRepo.Default, ParsePool.Default))
)
