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
 * Details an event keeps when its resource's content is withheld from the reader: how sensitive the resource
 * is says nothing of what it holds, and auditing who handled RESTRICTED material needs it.
 */
const policyDetails = new Set(["classification"])

/** An event's details as a reader who may not read its resource sees them: which keys were withheld, not their values. */
const withholdContent = (details: Record<string, unknown>) => {
  const kept = Object.entries(details).filter(([key]) => policyDetails.has(key))
  const withheld = Object.keys(details).filter((key) => !policyDetails.has(key))
  return withheld.length === 0 ? details : { ...Object.fromEntries(kept), withheld }
}

/**
 * Reading the audit trail: newest first, cursor paged. Each event carries its resource's label where the
 * reader may see it (AuditLabels, from the access area); for a document the reader may not read, the label is
 * null and the event's content details (title, file name) are withheld: audit.read is not a way around the
 * access model.
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
          const views = yield* labels.labelsFor(reader, items)
          return {
            items: items.map(({ cursorAt: _, ...event }, index) => {
              const view = views[index] ?? { label: null, withheld: true }
              return { ...event, details: view.withheld ? withholdContent(event.details) : event.details, resourceLabel: view.label }
            }),
            nextCursor
          }
        })
    }
  }),
  dependencies: [AuditRepo.Default]
}) {}
