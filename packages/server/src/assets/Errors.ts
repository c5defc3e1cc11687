import { ProblemError } from "../domain/Errors"

export class AssetNotFound extends ProblemError<AssetNotFound>()("AssetNotFound", {
  status: 404, code: "ASSET_NOT_FOUND", description: "No asset with this id that the caller may see"
}) {}

export class RevisionNotFound extends ProblemError<RevisionNotFound>()("RevisionNotFound", {
  status: 404, code: "REVISION_NOT_FOUND", description: "The asset has no revision with this id that the caller may see"
}) {}

export class ReviewNotFound extends ProblemError<ReviewNotFound>()("ReviewNotFound", {
  status: 404, code: "REVIEW_NOT_FOUND", description: "The asset has no review with this id that the caller may see"
}) {}

export class ReleaseNotFound extends ProblemError<ReleaseNotFound>()("ReleaseNotFound", {
  status: 404, code: "RELEASE_NOT_FOUND", description: "The asset has no release with this id that the caller may see"
}) {}

export class AssignmentNotFound extends ProblemError<AssignmentNotFound>()("AssignmentNotFound", {
  status: 404, code: "ROLE_ASSIGNMENT_NOT_FOUND", description: "The asset has no role assignment with this id"
}) {}

export class PackItemNotFound extends ProblemError<PackItemNotFound>()("PackItemNotFound", {
  status: 404, code: "PACK_ITEM_NOT_FOUND", description: "The pack release has no item with this key"
}) {}

export class AssetSlugTaken extends ProblemError<AssetSlugTaken>()("AssetSlugTaken", {
  status: 409, code: "ASSET_SLUG_TAKEN", description: "An asset with this slug exists already in the namespace"
}) {}

export class LockVersionConflict extends ProblemError<LockVersionConflict>()("LockVersionConflict", {
  status: 409, code: "LOCK_VERSION_CONFLICT", description: "The draft changed since the lockVersion sent: read it again and reapply the change"
}) {}

export class ReviewAlreadyOpen extends ProblemError<ReviewAlreadyOpen>()("ReviewAlreadyOpen", {
  status: 409, code: "REVIEW_ALREADY_OPEN", description: "The asset has a review in progress; it must be resolved before another submission"
}) {}

export class ReviewResolved extends ProblemError<ReviewResolved>()("ReviewResolved", {
  status: 409, code: "REVIEW_RESOLVED", description: "The review is resolved (approved, changes requested or rejected) and takes no more decisions"
}) {}

export class DuplicateDecision extends ProblemError<DuplicateDecision>()("DuplicateDecision", {
  status: 409, code: "DUPLICATE_DECISION", description: "The reviewer has decided on this review already"
}) {}

export class RevisionNotApproved extends ProblemError<RevisionNotApproved>()("RevisionNotApproved", {
  status: 409, code: "REVISION_NOT_APPROVED", description: "Only a revision whose review approved it can be released"
}) {}

export class RevisionAlreadyReleased extends ProblemError<RevisionAlreadyReleased>()("RevisionAlreadyReleased", {
  status: 409, code: "REVISION_ALREADY_RELEASED", description: "The revision was released already; releases are immutable"
}) {}

export class VersionNotGreater extends ProblemError<VersionNotGreater>()("VersionNotGreater", {
  status: 409, code: "VERSION_NOT_GREATER", description: "The versionLabel must be greater (semver) than every earlier release of the asset"
}) {}

export class ReleaseNotAvailable extends ProblemError<ReleaseNotAvailable>()("ReleaseNotAvailable", {
  status: 409, code: "RELEASE_NOT_AVAILABLE", description: "The release is withdrawn already"
}) {}

export class WrongAssetType extends ProblemError<WrongAssetType>()("WrongAssetType", {
  status: 409, code: "WRONG_ASSET_TYPE", description: "The operation does not apply to an asset of this type"
}) {}

export class InvalidAssetContent extends ProblemError<InvalidAssetContent>()("InvalidAssetContent", {
  status: 422, code: "INVALID_ASSET_CONTENT", description: "The draft's payload, schemaVersion or other fields break their type's rules; errors[] names each dotted path"
}) {}

export class InvalidVersionLabel extends ProblemError<InvalidVersionLabel>()("InvalidVersionLabel", {
  status: 422, code: "INVALID_VERSION_LABEL", description: "versionLabel is not a semantic version (1.2.3)"
}) {}

export class InvalidVariables extends ProblemError<InvalidVariables>()("InvalidVariables", {
  status: 422, code: "INVALID_VARIABLES", description: "Prompt variables are missing, unknown or of the wrong type; errors[] names each (never echoing values)"
}) {}

export class InvalidRoleAssignment extends ProblemError<InvalidRoleAssignment>()("InvalidRoleAssignment", {
  status: 422, code: "INVALID_ROLE_ASSIGNMENT", description: "The assignment names no active user of the organization, or its window ends before it starts"
}) {}

export class AssetRoleRequired extends ProblemError<AssetRoleRequired>()("AssetRoleRequired", {
  status: 403, code: "ASSET_ROLE_REQUIRED", description: "The caller may see the asset but holds no role on it (or space relation) that allows this"
}) {}

export class NotAReviewer extends ProblemError<NotAReviewer>()("NotAReviewer", {
  status: 403, code: "NOT_A_REVIEWER", description: "Reviewers hold ASSET_REVIEWER or are assigned REVIEWER on the asset"
}) {}

export class SelfApprovalForbidden extends ProblemError<SelfApprovalForbidden>()("SelfApprovalForbidden", {
  status: 403, code: "SELF_APPROVAL_FORBIDDEN", description: "Authors cannot approve a revision they submitted"
}) {}

export class DirectReleaseNotAllowed extends ProblemError<DirectReleaseNotAllowed>()("DirectReleaseNotAllowed", {
  status: 403, code: "DIRECT_RELEASE_NOT_ALLOWED", description: "The knowledge space's asset policy does not allow releases without review"
}) {}

export class PackItemInaccessible extends ProblemError<PackItemInaccessible>()("PackItemInaccessible", {
  status: 403, code: "PACK_ITEM_INACCESSIBLE", description: "The pack item is withdrawn or not readable by the caller (accessGap); it cannot be completed"
}) {}

export class ReleaseWithdrawn extends ProblemError<ReleaseWithdrawn>()("ReleaseWithdrawn", {
  status: 410, code: "RELEASE_WITHDRAWN", description: "The release was withdrawn and is no longer delivered"
}) {}

export class PromptRunFailed extends ProblemError<PromptRunFailed>()("PromptRunFailed", {
  status: 502, code: "PROMPT_RUN_FAILED", description: "The model behind the PROMPT_EXECUTION route failed (unreachable, timeout, rejected credential, bad answer)"
}) {}

export class InvalidSkillPackage extends ProblemError<InvalidSkillPackage>()("InvalidSkillPackage", {
  status: 422, code: "INVALID_SKILL_PACKAGE", description: "The package is not a valid Agent Skill or is refused (paths, symlinks, limits, zip bombs); errors[] holds one entry per broken rule, each with its own code"
}) {}

// The git fetcher's errors live with it (src/git); skill imports answer them.
export { RepositoryFetchFailed, RepositoryRefused } from "../git/Errors"

export class AssetHasReleases extends ProblemError<AssetHasReleases>()("AssetHasReleases", {
  status: 409, code: "ASSET_HAS_RELEASES", description: "Only an asset that was never released can be deleted; withdraw its releases instead"
}) {}
