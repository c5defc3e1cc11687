import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { type CursorPosition, MICROSECOND_TEXT } from "../db/Cursor"
import { exec, rows, Timestamp } from "../db/Rows"

export const FeedbackSentiment = Schema.Literal("HELPFUL", "UNHELPFUL")
export type FeedbackSentiment = typeof FeedbackSentiment.Type

const FeedbackRow = Schema.Struct({
  id: Schema.String,
  releaseId: Schema.String,
  sentiment: FeedbackSentiment,
  comment: Schema.String,
  createdAt: Timestamp,
  cursorAt: Schema.String
})
export type FeedbackRow = typeof FeedbackRow.Type

/** SQL for feedback on asset releases (asset_feedback). */
export class AssetFeedbackRepo extends Effect.Service<AssetFeedbackRepo>()("lore/AssetFeedbackRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      insert: exec((feedback: { id: string; organizationId: string; assetId: string; releaseId: string; userId: string; sentiment: FeedbackSentiment; comment: string; traceId: string }) => sql`
        INSERT INTO asset_feedback (id, organization_id, asset_id, release_id, user_id, sentiment, comment, trace_id)
        VALUES (${feedback.id}, ${feedback.organizationId}, ${feedback.assetId}, ${feedback.releaseId}, ${feedback.userId},
                ${feedback.sentiment}, ${feedback.comment}, ${feedback.traceId})`),

      /** Newest first after the cursor position, `limit` rows, of one asset (and one release when given). */
      page: rows("assets.feedbackPage", FeedbackRow, (assetId: string, releaseId: string | undefined, after: CursorPosition | undefined, limit: number) => sql`
        SELECT id, release_id, sentiment, comment, created_at,
               to_char(created_at AT TIME ZONE 'UTC', ${MICROSECOND_TEXT}) AS cursor_at
        FROM asset_feedback
        WHERE asset_id = ${assetId}
          ${releaseId ? sql`AND release_id = ${releaseId}` : sql``}
          ${after ? sql`AND (created_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
        ORDER BY created_at DESC, id DESC
        LIMIT ${limit}`)
    }
  })
}) {}
