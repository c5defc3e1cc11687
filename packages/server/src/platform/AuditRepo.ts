import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { MICROSECOND_TEXT, type CursorPosition } from "../db/Cursor"
import { exec, rows, Timestamp } from "../db/Rows"

export const AuditRow = Schema.Struct({
  id: Schema.String,
  actorUserId: Schema.NullOr(Schema.String),
  actorEmail: Schema.NullOr(Schema.String),
  action: Schema.String,
  resourceType: Schema.String,
  resourceId: Schema.NullOr(Schema.String),
  requestId: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  occurredAt: Timestamp,
  /** occurred_at to the microsecond, for the cursor. */
  cursorAt: Schema.String
})
export type AuditRow = typeof AuditRow.Type

export interface AuditInsert {
  readonly organizationId: string
  readonly actorUserId: string | null
  readonly action: string
  readonly resourceType: string
  readonly resourceId: string | null
  readonly requestId: string | null
  readonly details: Record<string, unknown>
}

export interface AuditFilter {
  readonly actorUserId?: string | undefined
  readonly resourceType?: string | undefined
  readonly resourceId?: string | undefined
  readonly since?: Date | undefined
  readonly until?: Date | undefined
}

/** SQL of the audit trail. */
export class AuditRepo extends Effect.Service<AuditRepo>()("lore/AuditRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      insert: exec((event: AuditInsert) => sql`
        INSERT INTO audit_events (organization_id, actor_user_id, action, resource_type, resource_id, request_id, details)
        VALUES (${event.organizationId}, ${event.actorUserId}, ${event.action}, ${event.resourceType}, ${event.resourceId},
                ${event.requestId}, ${JSON.stringify(event.details)}::jsonb)`),

      /** Newest first after the cursor position, `limit` rows. */
      page: rows("audit.page", AuditRow, (organizationId: string, filter: AuditFilter, after: CursorPosition | undefined, limit: number) => sql`
        SELECT e.id, e.actor_user_id, u.email AS actor_email, e.action, e.resource_type, e.resource_id,
               e.request_id, e.details, e.occurred_at,
               to_char(e.occurred_at AT TIME ZONE 'UTC', ${MICROSECOND_TEXT}) AS cursor_at
        FROM audit_events e LEFT JOIN users u ON u.id = e.actor_user_id
        WHERE e.organization_id = ${organizationId}
          ${filter.actorUserId ? sql`AND e.actor_user_id = ${filter.actorUserId}` : sql``}
          ${filter.resourceType ? sql`AND e.resource_type = ${filter.resourceType}` : sql``}
          ${filter.resourceId ? sql`AND e.resource_id = ${filter.resourceId}` : sql``}
          ${filter.since ? sql`AND e.occurred_at >= ${filter.since}` : sql``}
          ${filter.until ? sql`AND e.occurred_at < ${filter.until}` : sql``}
          ${after ? sql`AND (e.occurred_at, e.id) < (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
        ORDER BY e.occurred_at DESC, e.id DESC
        LIMIT ${limit}`)
    }
  })
}) {}
