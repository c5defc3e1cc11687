import { Effect } from "effect"
import type { SearchIndexRepo } from "./SearchIndexRepo"
import type { SourcesRepo } from "./SourcesRepo"

/**
 * After an asset's versions changed (one became READY, one was deleted): recomputes its current version by
 * the one rule (SourcesRepo.refreshCurrentVersion) and makes search serve exactly that version when it is
 * READY, and no other. Runs under the asset's lock (SourcesRepo.lockAsset), in the change's transaction.
 */
export const serveCurrentVersion = (repo: SourcesRepo, index: SearchIndexRepo, knowledgeAssetId: string, organizationId: string) =>
  Effect.gen(function* () {
    const current = yield* repo.refreshCurrentVersion(knowledgeAssetId)
    const serving = current?.status === "READY" ? current.id : null
    for (const other of yield* repo.otherVersions(knowledgeAssetId, serving)) yield* index.makeUnsearchable(other, organizationId)
    if (serving) yield* index.makeSearchable(serving, organizationId)
  })
