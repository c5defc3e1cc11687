import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { transactional } from "../db/Sql"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { AssetReader } from "./AssetReader"
import { roleRequired } from "./Assets"
import { AssetsRepo } from "./AssetsRepo"
import { AssetHasReleases } from "./Errors"
import { mayRelease } from "./Policy"

/**
 * Deleting an asset created by mistake: only while it was never released (a release is a record others may
 * have pinned, cited or reviewed; it is withdrawn, never deleted), and only by its OWNER or BACKUP_OWNER.
 */
export class AssetDeletion extends Effect.Service<AssetDeletion>()("lore/AssetDeletion", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = transactional(sql)
    const reader = yield* AssetReader
    const repo = yield* AssetsRepo
    const audit = yield* Audit

    const remove = (caller: Principal, assetId: string) =>
      transaction(
        Effect.gen(function* () {
          // Locked, so a release cannot land between the check and the delete.
          yield* repo.lockAsset(assetId)
          const { parts, standing } = yield* reader.load(caller, assetId)
          if (!mayRelease(standing)) return yield* roleRequired("Deleting an asset takes OWNER or BACKUP_OWNER on it")
          if (parts.releases.length > 0) {
            return yield* new AssetHasReleases({ detail: `The asset has ${parts.releases.length} release${parts.releases.length === 1 ? "" : "s"}: withdraw them instead (lore assets withdraw)` })
          }
          const deleted = yield* repo.deleteUnreleased(assetId)
          if (!deleted) return yield* new AssetHasReleases({ detail: "The asset has a release: withdraw it instead" })
          yield* audit.record(caller, {
            action: "asset.delete",
            resourceType: "asset",
            resourceId: assetId,
            details: { namespace: parts.asset.namespace, slug: parts.asset.slug, type: parts.asset.type }
          })
        })
      )

    return { remove }
  }),
  dependencies: [AssetReader.Default, AssetsRepo.Default, Audit.Default]
}) {}
