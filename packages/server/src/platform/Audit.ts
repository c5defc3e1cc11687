import { Effect, FiberRef } from "effect"
import { decodeCursor, page } from "../db/Cursor"
import { CurrentRequestId } from "../domain/RequestId"
import { actingUserId, isSystemActor, type Principal } from "../domain/Principal"
import { AuditLabels } from "./AuditLabels"
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

/**
 * Who did what, when, to which resource, with the request id. Written in the caller's transaction. When Lore
 * itself acts (the system actor), the event has no actor user and its details name the task.
 */
export class Audit extends Effect.Service<Audit>()("lore/Audit", {
  effect: Effect.gen(function* () {
    const repo = yield* AuditRepo
    return {
      record: (actor: Principal, entry: AuditEntry) =>
        Effect.flatMap(FiberRef.get(CurrentRequestId), (requestId) =>
          repo.insert({
            organizationId: actor.organizationId,
            actorUserId: actingUserId(actor),
            action: entry.action,
            resourceType: entry.resourceType,
            resourceId: entry.resourceId,
            requestId: requestId || null,
            details: isSystemActor(actor) ? { ...entry.details, system: actor.credential.id } : entry.details ?? {}
          })
        )
    }
  }),
  dependencies: [AuditRepo.Default]
}) {}

/**
 * Reading the audit trail: newest first, cursor paged, each event with its resource's label where the reader
 * may see it (AuditLabels, from the access area).
 */
export class AuditTrail extends Effect.Service<AuditTrail>()("lore/AuditTrail", {
  effect: Effect.gen(function* () {
    const repo = yield* AuditRepo
    const labels = yield* AuditLabels
    return {
      list: (reader: Principal, query: AuditQuery) =>
        Effect.gen(function* () {
          const pageSize = Math.min(Math.max(query.pageSize ?? 50, 1), 200)
          const after = yield* decodeCursor(query.cursor)
          const found = yield* repo.page(reader.organizationId, query, after, pageSize + 1)
          const { items, nextCursor } = page(found, pageSize, (row) => ({ at: row.cursorAt, id: row.id }))
          const resourceLabels = yield* labels.labelsFor(reader, items)
          return {
            items: items.map(({ cursorAt: _, ...event }, index) => ({ ...event, resourceLabel: resourceLabels[index] ?? null })),
            nextCursor
          }
        })
    }
  }),
  dependencies: [AuditRepo.Default]
}) {}
