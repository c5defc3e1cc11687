import { Effect, FiberRef } from "effect"
import { decodeCursor, page } from "../db/Cursor"
import { CurrentRequestId } from "../domain/RequestId"
import type { Principal } from "../domain/Principal"
import { AuditRepo, type AuditFilter } from "./AuditRepo"

export interface AuditEntry {
  readonly action: string
  readonly resourceType: string
  readonly resourceId: string | null
  readonly details?: Record<string, unknown>
}

export interface AuditQuery extends AuditFilter {
  readonly cursor?: string | undefined
  readonly pageSize?: number | undefined
}

/** Who did what, when, to which resource, with the request id. Written in the caller's transaction. */
export class Audit extends Effect.Service<Audit>()("lore/Audit", {
  effect: Effect.gen(function* () {
    const repo = yield* AuditRepo
    return {
      record: (actor: Principal, entry: AuditEntry) =>
        Effect.flatMap(FiberRef.get(CurrentRequestId), (requestId) =>
          repo.insert({
            organizationId: actor.organizationId,
            actorUserId: actor.userId,
            action: entry.action,
            resourceType: entry.resourceType,
            resourceId: entry.resourceId,
            requestId: requestId || null,
            details: entry.details ?? {}
          })
        ),

      list: (organizationId: string, query: AuditQuery) =>
        Effect.gen(function* () {
          const pageSize = Math.min(Math.max(query.pageSize ?? 50, 1), 200)
          const after = yield* decodeCursor(query.cursor)
          const found = yield* repo.page(organizationId, query, after, pageSize + 1)
          const { items, nextCursor } = page(found, pageSize, (row) => ({ at: row.cursorAt, id: row.id }))
          return { items: items.map(({ cursorAt: _, ...event }) => event), nextCursor }
        })
    }
  }),
  dependencies: [AuditRepo.Default]
}) {}
