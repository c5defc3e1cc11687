import { relationRank, type SpaceRelation } from "../domain/Model"

/**
 * Who may do what to one asset. A caller's standing on an asset is their strongest relation on its knowledge
 * space (from the access evaluator), the asset roles assigned to them that are in their window, and whether
 * they hold ASSET_REVIEWER (assets.review). Seeing the asset at all is the evaluator's decision, made before.
 */
export interface Standing {
  readonly relation: SpaceRelation
  readonly roles: ReadonlySet<string>
  readonly assetReviewer: boolean
}

const holdsAny = (standing: Standing, roles: ReadonlyArray<string>) => roles.some((role) => standing.roles.has(role))

/** Sees drafts, revisions and reviews: editors, owners, reviewers and the space's curators. Viewers see releases only. */
export const seesGovernance = (standing: Standing) =>
  standing.roles.size > 0 || standing.assetReviewer || relationRank[standing.relation] >= relationRank.curator

/** Edits the draft and submits it: a contributor on the space who is EDITOR, OWNER or BACKUP_OWNER. */
export const mayEdit = (standing: Standing) =>
  relationRank[standing.relation] >= relationRank.contributor && holdsAny(standing, ["EDITOR", "OWNER", "BACKUP_OWNER"])

/** Releases and withdraws: OWNER or BACKUP_OWNER. */
export const mayRelease = (standing: Standing) => holdsAny(standing, ["OWNER", "BACKUP_OWNER"])

/** Decides on reviews: holders of ASSET_REVIEWER or those assigned REVIEWER on the asset. */
export const mayReview = (standing: Standing) => standing.assetReviewer || standing.roles.has("REVIEWER")

/** Assigns and ends roles: the asset's owners, and the space's curators and managers (so an orphaned asset can be adopted). */
export const mayAssignRoles = (standing: Standing) => mayRelease(standing) || relationRank[standing.relation] >= relationRank.curator

/** Changes a space's asset policy: its managers. */
export const mayManagePolicy = (relation: SpaceRelation | null) => relation !== null && relationRank[relation] >= relationRank.manager

export interface AssignmentFacts {
  readonly role: string
  readonly principalId: string
  readonly validFrom: Date
  readonly validUntil: Date | null
  readonly principalActive: boolean
}

export const inWindow = (assignment: Pick<AssignmentFacts, "validFrom" | "validUntil">, now: Date) =>
  assignment.validFrom <= now && (assignment.validUntil === null || assignment.validUntil > now)

const CONTINUITY_HORIZON_MS = 30 * 24 * 3600 * 1000

/**
 * Ownership health from the assignments: an owner (backup owner) is present when an active user holds the role
 * in its window. Orphaned: neither present. Continuity at risk: either missing, or every present owner's window
 * ends within 30 days.
 */
export const ownershipHealth = (assignments: ReadonlyArray<AssignmentFacts>, now: Date) => {
  const present = (role: string) => assignments.filter((a) => a.role === role && a.principalActive && inWindow(a, now))
  const owners = present("OWNER")
  const backups = present("BACKUP_OWNER")
  const ownerEnding = owners.length > 0 && owners.every((a) => a.validUntil !== null && a.validUntil.getTime() - now.getTime() < CONTINUITY_HORIZON_MS)
  return {
    ownerPresent: owners.length > 0,
    backupOwnerPresent: backups.length > 0,
    orphaned: owners.length === 0 && backups.length === 0,
    continuityAtRisk: owners.length === 0 || backups.length === 0 || ownerEnding,
    ownerUserId: owners[0]?.principalId ?? null
  }
}
