import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Asset feedback in a table of its own, so owners can read it (GET /api/assets/{assetId}/feedback) without the
 * audit log, which keeps recording each one as `asset.feedback`. One vocabulary with message feedback:
 * HELPFUL | UNHELPFUL (the deprecated NOT_HELPFUL rating is stored as UNHELPFUL). Feedback given before this
 * table existed is copied from the audit log, with its original id and time.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE asset_feedback (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      asset_id uuid NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      release_id uuid NOT NULL REFERENCES asset_releases(id) ON DELETE CASCADE,
      user_id uuid,
      sentiment text NOT NULL CHECK (sentiment IN ('HELPFUL', 'UNHELPFUL')),
      comment text NOT NULL DEFAULT '',
      trace_id text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`
  yield* sql`CREATE INDEX asset_feedback_asset_idx ON asset_feedback (asset_id, created_at DESC, id DESC)`
  yield* sql`
    INSERT INTO asset_feedback (id, organization_id, asset_id, release_id, user_id, sentiment, comment, trace_id, created_at)
    SELECT (e.details->>'feedbackId')::uuid, e.organization_id, r.asset_id, r.id, e.actor_user_id,
           CASE WHEN e.details->>'rating' = 'HELPFUL' THEN 'HELPFUL' ELSE 'UNHELPFUL' END,
           COALESCE(e.details->>'comment', ''), e.details->>'traceId', e.occurred_at
    FROM audit_events e
    JOIN asset_releases r ON r.id::text = e.details->>'releaseId' AND r.asset_id::text = e.resource_id
    WHERE e.action = 'asset.feedback'
      AND e.details->>'feedbackId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
    ON CONFLICT (id) DO NOTHING`
})
