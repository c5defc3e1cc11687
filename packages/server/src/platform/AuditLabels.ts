import { Context, type Effect } from "effect"
import type { Principal } from "../domain/Principal"

export interface AuditedResource {
  readonly resourceType: string
  readonly resourceId: string | null
}

/** What one reader may see of an audited resource. */
export interface AuditedResourceView {
  /** Its label (a document's title, a user's email); null where the reader may not see it, or it is gone. */
  readonly label: string | null
  /**
   * True for a resource under the access model (a document, a space) that the reader may not read, or that is
   * gone so nobody can tell: the event's content details (its title, file name) are withheld too.
   */
  readonly withheld: boolean
}

/**
 * What each reader may see of audited resources, in the order asked. Implemented by the access area, which
 * knows who may read what (platform/ cannot import it: access records its changes through this area).
 */
export class AuditLabels extends Context.Tag("lore/AuditLabels")<AuditLabels, {
  readonly labelsFor: (reader: Principal, resources: ReadonlyArray<AuditedResource>) => Effect.Effect<ReadonlyArray<AuditedResourceView>>
}>() {}
