import { SqlClient } from "@effect/sql"
import { Effect, FiberRef } from "effect"
import { InvalidCursor } from "../domain/Errors"
import { CurrentRequestId } from "../domain/RequestId"
import type { Principal } from "../domain/Principal"

export interface AuditEntry {
  readonly action: string
  readonly resourceType: string
  readonly resourceId: string | null
  readonly details?: Record<string, unknown>
}

export interface AuditRow {
  readonly id: string
  readonly actorUserId: string | null
  readonly actorEmail: string | null
  readonly action: string
  readonly resourceType: string
  readonly resourceId: string | null
  readonly requestId: string | null
  readonly details: Record<string, unknown>
  readonly occurredAt: Date
}

export interface AuditQuery {
  readonly actorUserId?: string | undefined
  readonly resourceType?: string | undefined
  readonly resourceId?: string | undefined
  readonly since?: Date | undefined
  readonly until?: Date | undefined
  readonly cursor?: string | undefined
  readonly pageSize?: number | undefined
}

const encodeCursor = (row: AuditRow) => Buffer.from(`${row.occurredAt.toISOString()}|${row.id}`).toString("base64url")
const decodeCursor = (cursor: string) => {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|")
  const date = new Date(at ?? "")
  if (!id || Number.isNaN(date.getTime())) return undefined
  return { at: date, id }
}

/** Who did what, when, to which resource, with the request id. Written in the caller's transaction. */
export class Audit extends Effect.Service<Audit>()("lore/Audit", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      record: (actor: Principal, entry: AuditEntry) =>
        Effect.flatMap(FiberRef.get(CurrentRequestId), (requestId) =>
          sql`
            INSERT INTO audit_events (organization_id, actor_user_id, action, resource_type, resource_id, request_id, details)
            VALUES (${actor.organizationId}, ${actor.userId}, ${entry.action}, ${entry.resourceType}, ${entry.resourceId},
                    ${requestId || null}, ${JSON.stringify(entry.details ?? {})}::jsonb)
          `.pipe(Effect.asVoid, Effect.orDie)
        ),

      list: (organizationId: string, query: AuditQuery) =>
        Effect.gen(function* () {
          const pageSize = Math.min(Math.max(query.pageSize ?? 50, 1), 200)
          const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
          if (query.cursor !== undefined && after === undefined) {
            return yield* new InvalidCursor({ detail: "The cursor is not one this server issued" })
          }
          const rows = yield* sql<AuditRow>`
            SELECT e.id, e.actor_user_id, u.email AS actor_email, e.action, e.resource_type, e.resource_id,
                   e.request_id, e.details, e.occurred_at
            FROM audit_events e LEFT JOIN users u ON u.id = e.actor_user_id
            WHERE e.organization_id = ${organizationId}
              ${query.actorUserId ? sql`AND e.actor_user_id = ${query.actorUserId}` : sql``}
              ${query.resourceType ? sql`AND e.resource_type = ${query.resourceType}` : sql``}
              ${query.resourceId ? sql`AND e.resource_id = ${query.resourceId}` : sql``}
              ${query.since ? sql`AND e.occurred_at >= ${query.since}` : sql``}
              ${query.until ? sql`AND e.occurred_at < ${query.until}` : sql``}
              ${after ? sql`AND (e.occurred_at, e.id) < (${after.at}, ${after.id}::uuid)` : sql``}
            ORDER BY e.occurred_at DESC, e.id DESC
            LIMIT ${pageSize + 1}
          `.pipe(Effect.orDie)
          const items = rows.slice(0, pageSize)
          return { items, nextCursor: rows.length > pageSize ? encodeCursor(items[items.length - 1]!) : null }
        })
    }
  })
}) {}
