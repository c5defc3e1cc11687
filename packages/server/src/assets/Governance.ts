import { Effect } from "effect"
import { UserNotFound } from "../domain/Errors"
import type { Principal } from "../domain/Principal"
import { classificationRank } from "../domain/Model"
import { Audit } from "../platform/Audit"
import { AssetReader } from "./AssetReader"
import { AssetsRepo, type ReleaseRow } from "./AssetsRepo"
import { roleRequired, Assets } from "./Assets"
import { fieldChanges, unifiedPatch } from "./Diff"
import { digestedContent } from "./Digest"
import {
  AssignmentNotFound, DirectReleaseNotAllowed, DuplicateDecision, InvalidRoleAssignment, LockVersionConflict, NotAReviewer, ReleaseNotAvailable,
  ReleaseNotFound, ReviewNotFound, ReviewResolved, RevisionAlreadyReleased, RevisionNotApproved, RevisionNotFound, SelfApprovalForbidden
} from "./Errors"
import { decisionEvent, revisionState, transition } from "./Lifecycle"
import { inWindow, mayAssignRoles, mayRelease, mayReview, seesGovernance } from "./Policy"
import { SpacePolicies } from "./SpacePolicies"

type DecisionKind = "APPROVE" | "REQUEST_CHANGES" | "REJECT"
type Role = "OWNER" | "BACKUP_OWNER" | "EDITOR" | "REVIEWER"

/** Reviews, releases, withdrawal and roles: every move asks the lifecycle (Lifecycle.ts) first. */
export class Governance extends Effect.Service<Governance>()("lore/AssetGovernance", {
  effect: Effect.gen(function* () {
    const repo = yield* AssetsRepo
    const reader = yield* AssetReader
    const assets = yield* Assets
    const audit = yield* Audit
    const policies = yield* SpacePolicies
    const { transaction, present, refreshStates } = assets

    const decide = (caller: Principal, assetId: string, reviewId: string, input: { decision: DecisionKind; comment: string }) =>
      Effect.gen(function* () {
        const { standing } = yield* reader.load(caller, assetId)
        const review = yield* repo.review(assetId, reviewId)
        if (!review || !seesGovernance(standing)) return yield* new ReviewNotFound({ detail: "The asset has no review with this id" })
        if (!mayReview(standing)) return yield* new NotAReviewer({ detail: "Reviewers hold ASSET_REVIEWER or are assigned REVIEWER on the asset" })
        yield* transaction(
          Effect.gen(function* () {
            yield* repo.lockAsset(assetId)
            const current = (yield* repo.review(assetId, reviewId))!
            if (current.state !== "IN_REVIEW") return yield* new ReviewResolved({ detail: `The review is ${current.state}` })
            const revision = (yield* repo.revision(assetId, current.revisionId))!
            if (input.decision === "APPROVE" && revision.createdBy === caller.userId) {
              return yield* new SelfApprovalForbidden({ detail: "You submitted this revision; another reviewer must approve it" })
            }
            if (!(yield* repo.insertDecision(reviewId, caller.userId, input.decision, input.comment))) {
              return yield* new DuplicateDecision({ detail: "You have decided on this review already" })
            }
            const { approvals } = yield* repo.approvals(reviewId)
            const step = transition("review", current.state, decisionEvent(input.decision, approvals, current.requiredApprovals))
            if (!step.ok) return yield* new ReviewResolved({ detail: `The review is ${current.state}` })
            if (step.to !== current.state) yield* repo.resolveReview(reviewId, step.to)
            yield* refreshStates(assetId)
            yield* audit.record(caller, {
              action: "asset.review.decide",
              resourceType: "asset",
              resourceId: assetId,
              details: { reviewId, revisionId: current.revisionId, decision: input.decision, reviewState: step.to, approvals, requiredApprovals: current.requiredApprovals }
            })
          })
        )
        return yield* present(caller, assetId)
      })

    /** Releases an approved revision: an immutable snapshot of its content, with its digest. */
    const release = (caller: Principal, assetId: string, input: { revisionId: string; versionLabel: string }) =>
      Effect.gen(function* () {
        const { standing } = yield* reader.load(caller, assetId)
        const visibleRevision = seesGovernance(standing) ? yield* repo.revision(assetId, input.revisionId) : undefined
        if (!visibleRevision) return yield* new RevisionNotFound({ detail: "The asset has no revision with this id" })
        if (!mayRelease(standing)) return yield* roleRequired("Releasing takes OWNER or BACKUP_OWNER on the asset")
        yield* transaction(
          Effect.gen(function* () {
            yield* repo.lockAsset(assetId)
            const released = yield* repo.releaseOfRevision(visibleRevision.id)
            const review = yield* repo.latestReviewOf(visibleRevision.id)
            const step = transition("revision", revisionState(released !== undefined, review?.state ?? null), "RELEASE")
            if (!step.ok) {
              return yield* step.code === "REVISION_ALREADY_RELEASED"
                ? Effect.fail(new RevisionAlreadyReleased({ detail: "This revision was released already" }))
                : Effect.fail(new RevisionNotApproved({ detail: `The revision's review is ${review?.state ?? "missing"}; only approved revisions are released` }))
            }
            yield* assets.checkVersion(assetId, input.versionLabel)
            const created = yield* repo.insertRelease(assetId, visibleRevision, input.versionLabel, "REVIEWED", classificationRank[visibleRevision.classification], caller.userId)
            yield* repo.insertAvailabilityChange(created.id, "AVAILABLE", `Released ${input.versionLabel} after review`, caller.userId)
            yield* refreshStates(assetId)
            yield* audit.record(caller, {
              action: "asset.release",
              resourceType: "asset",
              resourceId: assetId,
              details: { releaseId: created.id, revisionId: visibleRevision.id, versionLabel: input.versionLabel, digest: visibleRevision.digest, publicationMode: "REVIEWED" }
            })
          })
        )
        return yield* present(caller, assetId)
      })

    /** Releases the draft without review, where the space's policy allows it: the revision and release are made at once. */
    const directRelease = (caller: Principal, assetId: string, input: { versionLabel: string; changeNote: string; lockVersion: number }) =>
      Effect.gen(function* () {
        const { parts, standing } = yield* reader.load(caller, assetId)
        if (!mayRelease(standing)) return yield* roleRequired("Releasing takes OWNER or BACKUP_OWNER on the asset")
        const policy = yield* policies.effective(parts.asset.knowledgeSpaceId)
        if (!policy.directReleaseAllowed) return yield* new DirectReleaseNotAllowed({ detail: `The knowledge space's asset policy (${policy.policyVersion}) requires review` })
        yield* transaction(
          Effect.gen(function* () {
            const asset = (yield* repo.lockAsset(assetId))!
            if (asset.lockVersion !== input.lockVersion) return yield* new LockVersionConflict({ detail: `The draft is at lockVersion ${asset.lockVersion}` })
            const open = yield* repo.openReview(assetId)
            transition("draft", open ? "OPEN_REVIEW" : "NO_OPEN_REVIEW", "DIRECT_RELEASE")
            yield* assets.checkVersion(assetId, input.versionLabel)
            const revision = yield* assets.insertRevision(caller, asset, input.changeNote)
            const created = yield* repo.insertRelease(assetId, revision, input.versionLabel, "DIRECT", classificationRank[revision.classification], caller.userId)
            yield* repo.insertAvailabilityChange(created.id, "AVAILABLE", `Released ${input.versionLabel} directly (policy ${policy.policyVersion})`, caller.userId)
            yield* refreshStates(assetId)
            yield* audit.record(caller, {
              action: "asset.release.direct",
              resourceType: "asset",
              resourceId: assetId,
              details: { releaseId: created.id, revisionId: revision.id, versionLabel: input.versionLabel, digest: revision.digest, publicationMode: "DIRECT", policyVersion: policy.policyVersion }
            })
          })
        )
        return yield* present(caller, assetId)
      })

    /**
     * Withdraws a release: owners as a decision of their own, governance admins (assets.govern) in an emergency,
     * effective at once; the emergency's audit entry names the owners to notify.
     */
    const withdraw = (caller: Principal, assetId: string, input: { releaseId: string; reason: string }, emergency: boolean) =>
      Effect.gen(function* () {
        const { parts, standing } = yield* reader.load(caller, assetId)
        const target: ReleaseRow | undefined = parts.releases.find((r) => r.id === input.releaseId)
        if (!target) return yield* new ReleaseNotFound({ detail: "The asset has no release with this id" })
        if (!emergency && !mayRelease(standing)) return yield* roleRequired("Withdrawing takes OWNER or BACKUP_OWNER on the asset")
        const event = emergency ? "EMERGENCY_WITHDRAW" : "WITHDRAW"
        yield* transaction(
          Effect.gen(function* () {
            yield* repo.lockAsset(assetId)
            const current = (yield* repo.releases(assetId)).find((r) => r.id === input.releaseId)!
            const step = transition("release", current.availability, event)
            if (!step.ok) return yield* new ReleaseNotAvailable({ detail: `The release is ${current.availability}` })
            yield* repo.setAvailability(current.id, step.to)
            yield* repo.insertAvailabilityChange(current.id, step.to, input.reason, caller.userId)
            yield* refreshStates(assetId)
            const now = new Date()
            const owners = parts.assignments.filter((a) => (a.role === "OWNER" || a.role === "BACKUP_OWNER") && inWindow(a, now)).map((a) => a.principalId)
            yield* audit.record(caller, {
              action: emergency ? "asset.release.emergency_withdraw" : "asset.release.withdraw",
              resourceType: "asset",
              resourceId: assetId,
              details: { releaseId: current.id, versionLabel: current.versionLabel, availability: step.to, reason: input.reason, ...(emergency ? { notifyOwnerUserIds: [...new Set(owners)] } : {}) }
            })
          })
        )
        return yield* present(caller, assetId)
      })

    const assignRole = (caller: Principal, assetId: string, input: { principalId: string; role: Role; validFrom?: Date | undefined; validUntil?: Date | null | undefined }) =>
      Effect.gen(function* () {
        const { standing } = yield* reader.load(caller, assetId)
        if (!mayAssignRoles(standing)) return yield* roleRequired("Assigning roles takes OWNER or BACKUP_OWNER on the asset, or curator on its space")
        const user = yield* repo.user(caller.organizationId, input.principalId)
        if (!user || !user.active) {
          return yield* new InvalidRoleAssignment({ detail: "The principal is not an active user of your organization", errors: [{ path: "principalId", message: "is not an active user of the organization" }] })
        }
        const from = input.validFrom ?? null
        const until = input.validUntil ?? null
        if (until !== null && until <= (from ?? new Date())) {
          return yield* new InvalidRoleAssignment({ detail: "validUntil must be after validFrom (or now)", errors: [{ path: "validUntil", message: "must be after validFrom" }] })
        }
        yield* transaction(
          Effect.gen(function* () {
            yield* repo.insertAssignment(assetId, input.principalId, input.role, from, until, caller.userId)
            yield* audit.record(caller, {
              action: "asset.role.assign",
              resourceType: "asset",
              resourceId: assetId,
              details: { principalId: input.principalId, role: input.role, validFrom: from?.toISOString() ?? null, validUntil: until?.toISOString() ?? null }
            })
          })
        )
        return yield* present(caller, assetId)
      })

    const endRole = (caller: Principal, assetId: string, assignmentId: string) =>
      Effect.gen(function* () {
        const { standing } = yield* reader.load(caller, assetId)
        if (!(yield* repo.assignmentExists(assetId, assignmentId))) return yield* new AssignmentNotFound({ detail: "The asset has no role assignment with this id" })
        if (!mayAssignRoles(standing)) return yield* roleRequired("Ending roles takes OWNER or BACKUP_OWNER on the asset, or curator on its space")
        yield* transaction(
          Effect.gen(function* () {
            yield* repo.endAssignment(assetId, assignmentId)
            yield* audit.record(caller, { action: "asset.role.end", resourceType: "asset", resourceId: assetId, details: { assignmentId } })
          })
        )
        return yield* present(caller, assetId)
      })

    /** What a revision changes against the latest release made before it, field by field and as a unified diff. */
    const diff = (caller: Principal, assetId: string, revisionId: string) =>
      Effect.gen(function* () {
        const { parts, standing } = yield* reader.load(caller, assetId)
        const revision = seesGovernance(standing) ? parts.revisions.find((r) => r.id === revisionId) : undefined
        if (!revision) return yield* new RevisionNotFound({ detail: "The asset has no revision with this id" })
        const sequenceOf = new Map(parts.revisions.map((r) => [r.id, r.sequence]))
        const base = [...parts.releases].reverse().find((r) => (sequenceOf.get(r.revisionId) ?? 0) < revision.sequence)
        const after = digestedContent(revision)
        const before = base ? digestedContent(base) : undefined
        return {
          assetId,
          revisionId,
          revisionDigest: revision.digest,
          baseReleaseId: base?.id ?? null,
          baseVersionLabel: base?.versionLabel ?? null,
          baseDigest: base?.digest ?? null,
          changes: fieldChanges(before ?? {}, after),
          patch: unifiedPatch(base ? `release ${base.versionLabel}` : "(no release)", before ?? {}, `revision ${revision.sequence}`, after)
        }
      })

    /** The assets a user's deactivation would orphan (they are the last owner or backup owner present). */
    const orphanedBy = (caller: Principal, userId: string) =>
      Effect.gen(function* () {
        if (!(yield* repo.user(caller.organizationId, userId))) return yield* new UserNotFound({ detail: "No user with this id in your organization" })
        const found = yield* repo.orphanedBy(caller.organizationId, userId)
        return found.map((row) => ({ ...row, roles: row.roles as ReadonlyArray<Role> }))
      })

    return { decide, release, directRelease, withdraw, assignRole, endRole, diff, orphanedBy }
  }),
  dependencies: [AssetsRepo.Default, AssetReader.Default, Assets.Default, Audit.Default, SpacePolicies.Default]
}) {}
