import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import { Classification } from "../domain/Model"
import { Body, created, Query, Timestamp } from "../domain/Schemas"
import { InvalidCursor, UserNotFound } from "../domain/Errors"
import { authenticated, requires } from "../domain/Security"
import { ClassificationAboveClearance, NotAContributor } from "../knowledge/Errors"
import {
  AssetHasReleases, AssetNotFound, AssetRoleRequired, AssetSlugTaken, AssignmentNotFound, DirectReleaseNotAllowed, DuplicateDecision, InvalidAssetContent,
  InvalidRoleAssignment, InvalidVersionLabel, LockVersionConflict, NotAReviewer, ReleaseNotAvailable, ReleaseNotFound, ReviewAlreadyOpen,
  ReviewNotFound, ReviewResolved, RevisionAlreadyReleased, RevisionNotApproved, RevisionNotFound, SelfApprovalForbidden, VersionNotGreater
} from "./Errors"

export const AssetType = Schema.Literal("PROMPT_TEMPLATE", "WORK_INSTRUCTION", "CAPABILITY_PACK", "SKILL").annotations({ identifier: "AssetType" })
export const PortfolioState = Schema.Literal("DRAFT_ONLY", "IN_REVIEW", "RELEASED", "WITHDRAWN").annotations({ identifier: "PortfolioState" })
export const SharingState = Schema.Literal("PRIVATE", "SHARED").annotations({ identifier: "SharingState" })
export const Availability = Schema.Literal("AVAILABLE", "WITHDRAWN", "EMERGENCY_WITHDRAWN").annotations({ identifier: "Availability" })
export const PublicationMode = Schema.Literal("REVIEWED", "DIRECT").annotations({ identifier: "PublicationMode" })
export const ReviewState = Schema.Literal("IN_REVIEW", "APPROVED", "CHANGES_REQUESTED", "REJECTED").annotations({ identifier: "ReviewState" })
export const ReviewDecision = Schema.Literal("APPROVE", "REQUEST_CHANGES", "REJECT").annotations({ identifier: "ReviewDecision" })
export const AssetRole = Schema.Literal("OWNER", "BACKUP_OWNER", "EDITOR", "REVIEWER").annotations({ identifier: "AssetRole" })

const Namespace = Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9._-]{0,62}$/, { message: () => "must be lower-case letters, digits, '.', '_' or '-' (at most 63), starting with a letter or digit" }))
const Slug = Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9-]{0,62}$/, { message: () => "must be lower-case letters, digits or '-' (at most 63), starting with a letter or digit" }))

export const Draft = Schema.Struct({
  id: Schema.UUID,
  lockVersion: Schema.Int,
  title: Schema.String,
  summary: Schema.String,
  classification: Classification,
  schemaVersion: Schema.String,
  payload: Schema.String.annotations({ description: "JSON text of the type's body (see the *Body schemas), byte for byte as stored" }),
  editedByUserId: Schema.NullOr(Schema.UUID),
  updatedAt: Timestamp
}).annotations({ identifier: "Draft" })

export const Revision = Schema.Struct({
  id: Schema.UUID,
  sequence: Schema.Int,
  title: Schema.String,
  summary: Schema.String,
  classification: Classification,
  schemaVersion: Schema.String,
  payload: Schema.String,
  digest: Schema.String.annotations({ description: "sha256: + hex of the RFC 8785 canonical JSON of {title, summary, classification, schemaVersion, payload (parsed)}" }),
  changeNote: Schema.String,
  createdByUserId: Schema.NullOr(Schema.UUID),
  createdAt: Timestamp
}).annotations({ identifier: "Revision" })

export const Decision = Schema.Struct({
  reviewerUserId: Schema.UUID,
  decision: ReviewDecision,
  comment: Schema.String,
  decidedAt: Timestamp
}).annotations({ identifier: "Decision" })

export const Review = Schema.Struct({
  id: Schema.UUID,
  revisionId: Schema.UUID,
  revisionDigest: Schema.String,
  state: ReviewState,
  policyVersion: Schema.String,
  requiredApprovals: Schema.Int,
  requestedByUserId: Schema.NullOr(Schema.UUID),
  createdAt: Timestamp,
  resolvedAt: Schema.NullOr(Timestamp),
  decisions: Schema.Array(Decision)
}).annotations({ identifier: "Review" })

export const AvailabilityChange = Schema.Struct({
  availability: Availability,
  reason: Schema.String,
  changedByUserId: Schema.NullOr(Schema.UUID),
  effectiveAt: Timestamp
}).annotations({ identifier: "AvailabilityChange" })

export const Release = Schema.Struct({
  id: Schema.UUID,
  revisionId: Schema.UUID,
  sequence: Schema.Int,
  versionLabel: Schema.String,
  publicationMode: PublicationMode,
  title: Schema.String,
  summary: Schema.String,
  classification: Classification,
  schemaVersion: Schema.String,
  payload: Schema.String,
  digest: Schema.String.annotations({ description: "Equal to its revision's digest" }),
  releasedByUserId: Schema.NullOr(Schema.UUID),
  releasedAt: Timestamp,
  availability: Availability,
  availabilityHistory: Schema.Array(AvailabilityChange)
}).annotations({ identifier: "Release" })

export const OwnershipHealth = Schema.Struct({
  ownerPresent: Schema.Boolean,
  backupOwnerPresent: Schema.Boolean,
  orphaned: Schema.Boolean.annotations({ description: "Neither an owner nor a backup owner is present (assigned, in their window, active user)" }),
  continuityAtRisk: Schema.Boolean.annotations({ description: "Owner or backup owner missing, or the owner's window ends within 30 days" })
}).annotations({ identifier: "OwnershipHealth" })

export const RoleAssignment = Schema.Struct({
  id: Schema.UUID,
  principalType: Schema.String,
  principalId: Schema.String,
  role: AssetRole,
  validFrom: Timestamp,
  validUntil: Schema.NullOr(Timestamp),
  assignedByUserId: Schema.NullOr(Schema.UUID),
  projectedAt: Timestamp
}).annotations({ identifier: "RoleAssignment" })

export const Asset = Schema.Struct({
  id: Schema.UUID,
  type: AssetType,
  namespace: Schema.String,
  slug: Schema.String,
  knowledgeSpaceId: Schema.UUID,
  portfolioState: PortfolioState,
  authorizationReady: Schema.Boolean.annotations({ description: "The asset has an owner present, so its releases can be governed" }),
  ownerUserId: Schema.NullOr(Schema.UUID),
  sharingState: SharingState,
  draft: Schema.NullOr(Draft).annotations({ description: "null for callers who see released versions only" }),
  revisions: Schema.Array(Revision),
  reviews: Schema.Array(Review),
  releases: Schema.Array(Release),
  ownershipHealth: OwnershipHealth,
  roleAssignments: Schema.Array(RoleAssignment)
}).annotations({ identifier: "Asset" })

export const AssetSummary = Schema.Struct({
  id: Schema.UUID,
  type: AssetType,
  namespace: Schema.String,
  slug: Schema.String,
  title: Schema.String,
  summary: Schema.String,
  knowledgeSpaceId: Schema.UUID,
  portfolioState: PortfolioState,
  ownerUserId: Schema.NullOr(Schema.UUID),
  sharingState: SharingState,
  updatedAt: Timestamp
}).annotations({ identifier: "AssetSummary" })

export const FieldChange = Schema.Struct({
  path: Schema.String.annotations({ description: "Dotted path in {title, summary, classification, schemaVersion, payload}" }),
  change: Schema.Literal("ADDED", "REMOVED", "CHANGED").annotations({ identifier: "FieldChangeKind" }),
  before: Schema.optional(Schema.Unknown),
  after: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "FieldChange" })

export const RevisionDiff = Schema.Struct({
  assetId: Schema.UUID,
  revisionId: Schema.UUID,
  revisionDigest: Schema.String,
  baseReleaseId: Schema.NullOr(Schema.UUID).annotations({ description: "The latest release made before this revision; null when there is none" }),
  baseVersionLabel: Schema.NullOr(Schema.String),
  baseDigest: Schema.NullOr(Schema.String),
  changes: Schema.Array(FieldChange),
  patch: Schema.String.annotations({ description: "Unified diff of the canonical content, pretty-printed" })
}).annotations({ identifier: "RevisionDiff" })

export const AssetPolicy = Schema.Struct({
  knowledgeSpaceId: Schema.UUID,
  requiredApprovals: Schema.Int,
  directReleaseAllowed: Schema.Boolean,
  version: Schema.Int.annotations({ description: "0 while the space uses the default policy" }),
  policyVersion: Schema.String.annotations({ description: "What reviews record as the policy that applied" })
}).annotations({ identifier: "AssetPolicy" })

export const OrphanedAsset = Schema.Struct({
  assetId: Schema.UUID,
  namespace: Schema.String,
  slug: Schema.String,
  title: Schema.String,
  roles: Schema.Array(AssetRole)
}).annotations({ identifier: "OrphanedAsset" })

export const DraftInput = {
  title: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(300)),
  summary: Schema.String.pipe(Schema.maxLength(2000)),
  classification: Classification,
  schemaVersion: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(20)),
  payload: Schema.String.pipe(Schema.maxLength(512 * 1024))
}

export const CreateAssetBody = Body({
  type: AssetType,
  namespace: Namespace,
  slug: Slug,
  knowledgeSpaceId: Schema.UUID,
  draft: Schema.Struct(DraftInput).annotations({ identifier: "DraftInput", parseOptions: { onExcessProperty: "error" } })
}).annotations({ identifier: "CreateAsset" })
const LockVersion = Schema.Int.pipe(Schema.positive())
export const DraftBody = Body({ ...DraftInput, lockVersion: LockVersion }).annotations({ identifier: "DraftUpdate" })
export const SubmissionBody = Body({ changeNote: Schema.String.pipe(Schema.maxLength(2000)), lockVersion: LockVersion }).annotations({ identifier: "Submission" })
export const DecisionBody = Body({ decision: ReviewDecision, comment: Schema.String.pipe(Schema.maxLength(5000)) }).annotations({ identifier: "ReviewDecisionInput" })
export const ReleaseBody = Body({ revisionId: Schema.UUID, versionLabel: Schema.String.pipe(Schema.maxLength(100)) }).annotations({ identifier: "ReleaseInput" })
export const DirectReleaseBody = Body({
  versionLabel: Schema.String.pipe(Schema.maxLength(100)),
  changeNote: Schema.String.pipe(Schema.maxLength(2000)),
  lockVersion: LockVersion
}).annotations({ identifier: "DirectReleaseInput" })
export const WithdrawalBody = Body({ releaseId: Schema.UUID, reason: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(2000)) }).annotations({ identifier: "Withdrawal" })
export const RoleAssignmentBody = Body({
  principalType: Schema.Literal("USER").annotations({ identifier: "AssetPrincipalType" }),
  principalId: Schema.UUID,
  role: AssetRole,
  validFrom: Schema.optional(Schema.DateFromString.annotations({ jsonSchema: { type: "string", format: "date-time" } })),
  validUntil: Schema.optional(Schema.NullOr(Schema.DateFromString.annotations({ jsonSchema: { type: "string", format: "date-time" } })))
}).annotations({ identifier: "RoleAssignmentInput" })
export const PolicyBody = Body({
  requiredApprovals: Schema.Int.pipe(Schema.between(1, 10)),
  directReleaseAllowed: Schema.Boolean,
  version: Schema.Int.pipe(Schema.nonNegative())
}).annotations({ identifier: "AssetPolicyInput" })
export const AssetListQuery = Query({
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  type: Schema.optional(AssetType)
})

const AssetPath = Schema.Struct({ assetId: Schema.UUID })

const AssetFeedbackQuery = Query({
  releaseId: Schema.optional(Schema.UUID.annotations({ description: "Only the feedback on this release" })),
  cursor: Schema.optional(Schema.String.pipe(Schema.maxLength(200)).annotations({ description: "nextCursor of the previous page" }))
})

export const AssetFeedbackItem = Schema.Struct({
  id: Schema.UUID,
  releaseId: Schema.UUID,
  sentiment: Schema.Literal("HELPFUL", "UNHELPFUL"),
  comment: Schema.String,
  createdAt: Timestamp
}).annotations({ identifier: "AssetFeedbackItem" })

export const AssetFeedbackPage = Schema.Struct({
  items: Schema.Array(AssetFeedbackItem),
  nextCursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "AssetFeedbackPage" })

export class AssetsApi extends HttpApiGroup.make("assets")
  .add(HttpApiEndpoint.get("listAssets", "/assets").setUrlParams(AssetListQuery).addSuccess(Schema.Array(AssetSummary)).pipe(authenticated))
  .add(
    HttpApiEndpoint.post("createAsset", "/assets")
      .setPayload(CreateAssetBody)
      .addSuccess(created(Asset))
      .addError(AssetNotFound)
      .addError(KnowledgeSpaceNotFound)
      .addError(NotAContributor)
      .addError(ClassificationAboveClearance)
      .addError(AssetSlugTaken)
      .addError(InvalidAssetContent)
      .pipe(authenticated)
  )
  .add(HttpApiEndpoint.get("getAsset", "/assets/:assetId").setPath(AssetPath).addSuccess(Asset).addError(AssetNotFound).pipe(authenticated))
  .add(
    HttpApiEndpoint.del("deleteAsset", "/assets/:assetId")
      .setPath(AssetPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(AssetNotFound)
      .addError(AssetRoleRequired)
      .addError(AssetHasReleases)
      .annotate(OpenApi.Description, "Deletes an asset that was never released (a draft created by mistake): its OWNER or BACKUP_OWNER only; 409 ASSET_HAS_RELEASES once released (withdraw instead)")
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("listAssetFeedback", "/assets/:assetId/feedback")
      .setPath(AssetPath)
      .setUrlParams(AssetFeedbackQuery)
      .addSuccess(AssetFeedbackPage)
      .addError(AssetNotFound)
      .addError(AssetRoleRequired)
      .addError(InvalidCursor)
      .annotate(OpenApi.Description, "Feedback given on the asset's releases, newest first, 50 a page: for its owners and its space's curators")
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.put("updateAssetDraft", "/assets/:assetId/draft")
      .setPath(AssetPath)
      .setPayload(DraftBody)
      .addSuccess(Asset)
      .addError(AssetNotFound)
      .addError(AssetRoleRequired)
      .addError(ClassificationAboveClearance)
      .addError(LockVersionConflict)
      .addError(InvalidAssetContent)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("submitAsset", "/assets/:assetId/submissions")
      .setPath(AssetPath)
      .setPayload(SubmissionBody)
      .addSuccess(created(Asset))
      .addError(AssetNotFound)
      .addError(AssetRoleRequired)
      .addError(LockVersionConflict)
      .addError(ReviewAlreadyOpen)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("assignAssetRole", "/assets/:assetId/role-assignments")
      .setPath(AssetPath)
      .setPayload(RoleAssignmentBody)
      .addSuccess(Asset)
      .addError(AssetNotFound)
      .addError(AssetRoleRequired)
      .addError(InvalidRoleAssignment)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.del("endAssetRole", "/assets/:assetId/role-assignments/:assignmentId")
      .setPath(Schema.Struct({ assetId: Schema.UUID, assignmentId: Schema.UUID }))
      .addSuccess(Asset)
      .addError(AssetNotFound)
      .addError(AssignmentNotFound)
      .addError(AssetRoleRequired)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("decideReview", "/assets/:assetId/reviews/:reviewCaseId/decisions")
      .setPath(Schema.Struct({ assetId: Schema.UUID, reviewCaseId: Schema.UUID }))
      .setPayload(DecisionBody)
      .addSuccess(Asset)
      .addError(AssetNotFound)
      .addError(ReviewNotFound)
      .addError(NotAReviewer)
      .addError(SelfApprovalForbidden)
      .addError(ReviewResolved)
      .addError(DuplicateDecision)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("releaseAsset", "/assets/:assetId/releases")
      .setPath(AssetPath)
      .setPayload(ReleaseBody)
      .addSuccess(created(Asset))
      .addError(AssetNotFound)
      .addError(RevisionNotFound)
      .addError(AssetRoleRequired)
      .addError(InvalidVersionLabel)
      .addError(RevisionNotApproved)
      .addError(RevisionAlreadyReleased)
      .addError(VersionNotGreater)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("directReleaseAsset", "/assets/:assetId/direct-releases")
      .setPath(AssetPath)
      .setPayload(DirectReleaseBody)
      .addSuccess(created(Asset))
      .addError(AssetNotFound)
      .addError(AssetRoleRequired)
      .addError(DirectReleaseNotAllowed)
      .addError(LockVersionConflict)
      .addError(InvalidVersionLabel)
      .addError(VersionNotGreater)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("withdrawRelease", "/assets/:assetId/withdrawal")
      .setPath(AssetPath)
      .setPayload(WithdrawalBody)
      .addSuccess(Asset)
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(AssetRoleRequired)
      .addError(ReleaseNotAvailable)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("emergencyWithdrawRelease", "/assets/:assetId/emergency-withdrawal")
      .setPath(AssetPath)
      .setPayload(WithdrawalBody)
      .addSuccess(Asset)
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(ReleaseNotAvailable)
      .pipe(requires("assets.govern"))
  )
  .add(
    HttpApiEndpoint.get("getRevisionDiff", "/assets/:assetId/revisions/:revisionId/diff")
      .setPath(Schema.Struct({ assetId: Schema.UUID, revisionId: Schema.UUID }))
      .addSuccess(RevisionDiff)
      .addError(AssetNotFound)
      .addError(RevisionNotFound)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getAssetPolicy", "/asset-policies/:knowledgeSpaceId")
      .setPath(Schema.Struct({ knowledgeSpaceId: Schema.UUID }))
      .addSuccess(AssetPolicy)
      .addError(KnowledgeSpaceNotFound)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.put("setAssetPolicy", "/asset-policies/:knowledgeSpaceId")
      .setPath(Schema.Struct({ knowledgeSpaceId: Schema.UUID }))
      .setPayload(PolicyBody)
      .addSuccess(AssetPolicy)
      .addError(KnowledgeSpaceNotFound)
      .addError(AssetRoleRequired)
      .addError(LockVersionConflict)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("listOrphanedAssets", "/admin/users/:userId/orphaned-assets")
      .setPath(Schema.Struct({ userId: Schema.UUID }))
      .addSuccess(Schema.Array(OrphanedAsset))
      .addError(UserNotFound)
      .pipe(requires("users.manage"))
  )
  .annotate(OpenApi.Title, "Assets")
  .annotate(OpenApi.Description, "Governed assets: drafts, revisions, reviews, releases, withdrawal and ownership") {}
