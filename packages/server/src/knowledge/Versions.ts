import { Clock, Effect } from "effect"
import type { JobQueue } from "../jobs/JobQueue"
import { PackSearchPostings } from "./Jobs"
import type { SearchIndexWriter } from "./SearchIndexWriter"
import type { SourcesRepo } from "./SourcesRepo"

/**
 * The packer runs at most once per organization per second, a second after the changes it packs: one job per
 * second's window (its dedupe key), due after the window closes. A job already running never stands in for
 * a later change (it may have read the pending chunks before this transaction commits); one still queued can.
 */
const PACK_WINDOW_MS = 1000

/**
 * After an asset's versions changed (one became READY, one was deleted): recomputes its current version by
 * the one rule (SourcesRepo.refreshCurrentVersion) and makes search serve exactly that version when it is
 * READY, and no other. Runs under the asset's lock (SourcesRepo.lockAsset), in the change's transaction.
 * Postings made searchable wait for the packer (SearchIndexWriter.packPending), queued here.
 */
export const serveCurrentVersion = (repo: SourcesRepo, index: SearchIndexWriter, queue: JobQueue, knowledgeAssetId: string, organizationId: string) =>
  Effect.gen(function* () {
    const current = yield* repo.refreshCurrentVersion(knowledgeAssetId)
    const serving = current?.status === "READY" ? current.id : null
    for (const other of yield* repo.otherVersions(knowledgeAssetId, serving)) yield* index.makeUnsearchable(other, organizationId)
    if (serving) {
      yield* index.makeSearchable(serving, organizationId)
      yield* queuePacking(queue, organizationId)
    }
  })

/** Queues the packer for the current window (see PACK_WINDOW_MS). */
export const queuePacking = (queue: JobQueue, organizationId: string) =>
  Effect.gen(function* () {
    const window = Math.floor((yield* Clock.currentTimeMillis) / PACK_WINDOW_MS)
    yield* queue.enqueueJob(PackSearchPostings, { organizationId }, {
      dedupeKey: `search-pack:${organizationId}:${window}`,
      runAt: new Date((window + 2) * PACK_WINDOW_MS),
      maxAttempts: 3
    })
  })
