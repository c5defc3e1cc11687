import { Effect } from "effect"
import { relationRank, type SpaceRelation } from "../domain/Model"
import { DeletionNotAllowed } from "./Errors"

/** The facts deciding whether a caller may delete one version of a document they can read. */
export interface DeletionFacts {
  readonly callerId: string
  /** Who uploaded the version (null once that user is gone). */
  readonly uploadedBy: string | null
  /** The caller's strongest relation on the document's space. */
  readonly relation: SpaceRelation
}

/**
 * Who may delete a document (one version): its uploader, for as long as they remain a contributor of the
 * space, or a curator or manager of the space, who answer for what it holds. A contributor may add to a
 * space, not remove what colleagues added; a viewer removes nothing.
 */
export const mayDelete = (facts: DeletionFacts): boolean =>
  relationRank[facts.relation] >= relationRank.curator ||
  (facts.uploadedBy === facts.callerId && relationRank[facts.relation] >= relationRank.contributor)

export const sourceDeletion = (facts: DeletionFacts) =>
  mayDelete(facts)
    ? Effect.void
    : Effect.fail(new DeletionNotAllowed({
      detail: facts.uploadedBy === facts.callerId
        ? "You uploaded this document, but you are no longer a contributor of its knowledge space"
        : "Only the document's uploader (while a contributor) or a curator or manager of its knowledge space may delete it"
    }))
