import { Effect } from "effect"
import { decodeCursor, page } from "../db/Cursor"
import type { Principal } from "../domain/Principal"
import { AssetReader } from "./AssetReader"
import { roleRequired } from "./Assets"
import { AssetFeedbackRepo } from "./FeedbackRepo"
import { mayAssignRoles } from "./Policy"

export const FEEDBACK_PAGE_SIZE = 50

/**
 * Reading the feedback given on an asset's releases: for its owners (OWNER, BACKUP_OWNER) and the space's
 * curators and managers, who look after it when it has no owner. Someone who sees the asset without that
 * standing gets 403; someone who does not see it, 404. Who gave each piece of feedback is not shown.
 */
export class AssetFeedback extends Effect.Service<AssetFeedback>()("lore/AssetFeedback", {
  effect: Effect.gen(function* () {
    const reader = yield* AssetReader
    const repo = yield* AssetFeedbackRepo

    const list = (caller: Principal, assetId: string, query: { readonly releaseId?: string | undefined; readonly cursor?: string | undefined }) =>
      Effect.gen(function* () {
        const after = yield* decodeCursor(query.cursor)
        const { standing } = yield* reader.load(caller, assetId)
        if (!mayAssignRoles(standing)) return yield* roleRequired("Reading an asset's feedback takes OWNER or BACKUP_OWNER on it, or curator on its space")
        const rows = yield* repo.page(assetId, query.releaseId, after, FEEDBACK_PAGE_SIZE + 1)
        const { items, nextCursor } = page(rows, FEEDBACK_PAGE_SIZE, (row) => ({ at: row.cursorAt, id: row.id }))
        return {
          items: items.map((row) => ({ id: row.id, releaseId: row.releaseId, sentiment: row.sentiment, comment: row.comment, createdAt: row.createdAt })),
          nextCursor
        }
      })

    return { list }
  }),
  dependencies: [AssetReader.Default, AssetFeedbackRepo.Default]
}) {}
