import { Context, type Effect } from "effect"
import type { Principal } from "../domain/Principal"

export interface AuditedResource {
  readonly resourceType: string
  readonly resourceId: string | null
}

/**
 * The labels of audited resources (a document's title, a user's email) as one caller may see them, in the
 * order asked: null where the caller may not see it or it is gone. Implemented by the access area, which
 * knows who may read what (platform/ cannot import it: access records its changes through this area).
 */
export class AuditLabels extends Context.Tag("lore/AuditLabels")<AuditLabels, {
  readonly labelsFor: (caller: Principal, resources: ReadonlyArray<AuditedResource>) => Effect.Effect<ReadonlyArray<string | null>>
}>() {}
