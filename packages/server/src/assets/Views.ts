import { classificationRank, type Classification } from "../domain/Model"
import type { AssetRow, AssignmentRow, ReleaseRow, ReviewRow, RevisionRow } from "./AssetsRepo"
import { ownershipHealth, seesGovernance, type Standing } from "./Policy"

/** Everything an Asset answer is made of, read in one place (Assets.loadParts). */
export interface AssetParts {
  readonly asset: AssetRow
  readonly revisions: ReadonlyArray<RevisionRow>
  readonly reviews: ReadonlyArray<ReviewRow>
  readonly decisions: ReadonlyArray<{ readonly reviewId: string; readonly reviewerUserId: string; readonly decision: "APPROVE" | "REQUEST_CHANGES" | "REJECT"; readonly comment: string; readonly decidedAt: Date }>
  readonly releases: ReadonlyArray<ReleaseRow>
  readonly history: ReadonlyArray<{ readonly releaseId: string; readonly availability: ReleaseRow["availability"]; readonly reason: string; readonly changedBy: string | null; readonly effectiveAt: Date }>
  readonly assignments: ReadonlyArray<AssignmentRow>
}

export const releaseView = (release: ReleaseRow, history: AssetParts["history"]) => ({
  id: release.id,
  revisionId: release.revisionId,
  sequence: release.sequence,
  versionLabel: release.versionLabel,
  publicationMode: release.publicationMode,
  title: release.title,
  summary: release.summary,
  classification: release.classification,
  schemaVersion: release.schemaVersion,
  payload: release.payload,
  digest: release.digest,
  releasedByUserId: release.releasedBy,
  releasedAt: release.releasedAt,
  availability: release.availability,
  availabilityHistory: history
    .filter((change) => change.releaseId === release.id)
    .map((change) => ({ availability: change.availability, reason: change.reason, changedByUserId: change.changedBy, effectiveAt: change.effectiveAt }))
})

/**
 * The Asset as the caller may see it: governance readers (editors, owners, reviewers, curators) get the draft,
 * revisions and reviews; everyone else the releases only (draft null), and only releases within their clearance.
 */
export const assetView = (parts: AssetParts, standing: Standing, clearanceRank: number, now = new Date()) => {
  const { asset } = parts
  const governance = seesGovernance(standing)
  const health = ownershipHealth(parts.assignments, now)
  const readable = (classification: Classification) => classificationRank[classification] <= clearanceRank
  return {
    id: asset.id,
    type: asset.type,
    namespace: asset.namespace,
    slug: asset.slug,
    knowledgeSpaceId: asset.knowledgeSpaceId,
    portfolioState: asset.portfolioState,
    authorizationReady: health.ownerPresent,
    ownerUserId: health.ownerUserId,
    sharingState: asset.sharingState,
    draft: governance
      ? {
          id: asset.draftId,
          lockVersion: asset.lockVersion,
          title: asset.title,
          summary: asset.summary,
          classification: asset.classification,
          schemaVersion: asset.schemaVersion,
          payload: asset.payload,
          editedByUserId: asset.editedBy,
          updatedAt: asset.updatedAt
        }
      : null,
    revisions: governance
      ? parts.revisions.map((revision) => ({
          id: revision.id,
          sequence: revision.sequence,
          title: revision.title,
          summary: revision.summary,
          classification: revision.classification,
          schemaVersion: revision.schemaVersion,
          payload: revision.payload,
          digest: revision.digest,
          changeNote: revision.changeNote,
          createdByUserId: revision.createdBy,
          createdAt: revision.createdAt
        }))
      : [],
    reviews: governance
      ? parts.reviews.map((review) => ({
          id: review.id,
          revisionId: review.revisionId,
          revisionDigest: review.revisionDigest,
          state: review.state,
          policyVersion: review.policyVersion,
          requiredApprovals: review.requiredApprovals,
          requestedByUserId: review.requestedBy,
          createdAt: review.createdAt,
          resolvedAt: review.resolvedAt,
          decisions: parts.decisions
            .filter((decision) => decision.reviewId === review.id)
            .map(({ reviewId: _, ...decision }) => decision)
        }))
      : [],
    releases: parts.releases.filter((release) => governance || readable(release.classification)).map((release) => releaseView(release, parts.history)),
    ownershipHealth: {
      ownerPresent: health.ownerPresent,
      backupOwnerPresent: health.backupOwnerPresent,
      orphaned: health.orphaned,
      continuityAtRisk: health.continuityAtRisk
    },
    roleAssignments: parts.assignments.map((assignment) => ({
      id: assignment.id,
      principalType: assignment.principalType,
      principalId: assignment.principalId,
      role: assignment.role,
      validFrom: assignment.validFrom,
      validUntil: assignment.validUntil,
      assignedByUserId: assignment.assignedBy,
      projectedAt: assignment.projectedAt
    }))
  }
}
