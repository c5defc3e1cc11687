import { SqlClient } from "@effect/sql"
import { Effect, Either } from "effect"
import semver from "semver"
import { AccessEvaluator } from "../access/Evaluator"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import { transactional } from "../db/Sql"
import { classificationRank, clearanceCeiling, type Classification } from "../domain/Model"
import { holds } from "../domain/Permissions"
import type { Principal } from "../domain/Principal"
import { ClassificationAboveClearance, NotAContributor } from "../knowledge/Errors"
import { Audit } from "../platform/Audit"
import { AssetReader } from "./AssetReader"
import { type AssetRow, AssetsRepo, type DraftContent } from "./AssetsRepo"
import { contentDigest } from "./Digest"
import {
  AssetRoleRequired, AssetSlugTaken, InvalidAssetContent, InvalidVersionLabel, LockVersionConflict, ReviewAlreadyOpen, VersionNotGreater
} from "./Errors"
import { portfolioState, sharingState, transition } from "./Lifecycle"
import { mayEdit } from "./Policy"
import { validatePayload } from "./Payloads"
import { SpacePolicies } from "./SpacePolicies"
import { assetView } from "./Views"
import { quoteInput } from "../domain/Echo"

export interface CreateInput {
  readonly type: AssetRow["type"]
  readonly namespace: string
  readonly slug: string
  readonly knowledgeSpaceId: string
  readonly draft: DraftContent
}

export const roleRequired = (detail: string) => new AssetRoleRequired({ detail })

/** Creating assets and editing and submitting their drafts. Reviews and releases: Releases.ts. */
export class Assets extends Effect.Service<Assets>()("lore/Assets", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = transactional(sql)
    const repo = yield* AssetsRepo
    const reader = yield* AssetReader
    const evaluator = yield* AccessEvaluator
    const audit = yield* Audit
    const policies = yield* SpacePolicies

    const withinClearance = (caller: Principal, classification: Classification) =>
      classificationRank[classification] <= classificationRank[clearanceCeiling[caller.clearance]]
        ? Effect.void
        : Effect.fail(new ClassificationAboveClearance({ detail: `You cannot classify an asset ${classification}: your clearance reaches ${clearanceCeiling[caller.clearance]}` }))

    const validContent = (type: string, content: DraftContent) => {
      const result = validatePayload(type, content.schemaVersion, content.payload)
      return Either.isLeft(result)
        ? Effect.fail(new InvalidAssetContent({ detail: "The draft is not a valid " + type, errors: result.left }))
        : Effect.succeed(result.right)
    }

    /** The asset as the caller sees it now (after a write, read again in full). */
    const present = (caller: Principal, assetId: string) =>
      Effect.map(reader.load(caller, assetId), ({ parts, standing, clearanceRank }) => assetView(parts, standing, clearanceRank))

    /** Recomputes portfolioState and sharingState after a lifecycle move (inside its transaction). */
    const refreshStates = (assetId: string) =>
      Effect.gen(function* () {
        const [releases, open] = yield* Effect.all([repo.releases(assetId), repo.openReview(assetId)])
        const facts = { availableReleases: releases.filter((r) => r.availability === "AVAILABLE").length, releases: releases.length, openReview: open !== undefined }
        yield* repo.setStates(assetId, portfolioState(facts), sharingState(facts))
      })

    /** `contentChecked`: the caller validated the draft already (skills, whose payload comes from a checked package). */
    const create = (caller: Principal, input: CreateInput, forkedFromReleaseId: string | null = null, contentChecked = false) =>
      Effect.gen(function* () {
        const writable = yield* evaluator.spacesWith(caller, "contributor")
        if (!writable.some((space) => space.id === input.knowledgeSpaceId)) {
          const viewable = yield* evaluator.spacesWith(caller, "viewer")
          return yield* viewable.some((space) => space.id === input.knowledgeSpaceId)
            ? Effect.fail(new NotAContributor({ detail: "You may read this knowledge space but not add assets to it" }))
            : Effect.fail(new KnowledgeSpaceNotFound({ detail: "No knowledge space with this id that you may see" }))
        }
        yield* withinClearance(caller, input.draft.classification)
        if (!contentChecked) yield* validContent(input.type, input.draft)
        const id = yield* transaction(
          Effect.gen(function* () {
            const inserted = yield* repo.insertAsset({
              organizationId: caller.organizationId,
              knowledgeSpaceId: input.knowledgeSpaceId,
              type: input.type,
              namespace: input.namespace,
              slug: input.slug,
              classificationRank: classificationRank[input.draft.classification],
              content: input.draft,
              userId: caller.userId,
              forkedFromReleaseId
            })
            if (!inserted) return yield* new AssetSlugTaken({ detail: `An asset ${quoteInput(input.namespace, 60)}/${quoteInput(input.slug, 100)} exists already` })
            // The creator owns what they create; ownership can be handed on with role assignments.
            yield* repo.insertAssignment(inserted.id, caller.userId, "OWNER", null, null, caller.userId)
            yield* audit.record(caller, {
              action: "asset.create",
              resourceType: "asset",
              resourceId: inserted.id,
              details: { type: input.type, namespace: input.namespace, slug: input.slug, classification: input.draft.classification, ...(forkedFromReleaseId ? { forkedFromReleaseId } : {}) }
            })
            return inserted.id
          })
        )
        return yield* present(caller, id)
      })

    const updateDraft = (caller: Principal, assetId: string, input: DraftContent & { readonly lockVersion: number }) =>
      Effect.gen(function* () {
        const { parts, standing } = yield* reader.load(caller, assetId)
        if (!mayEdit(standing)) return yield* roleRequired("Editing a draft takes EDITOR, OWNER or BACKUP_OWNER on the asset and contributor on its space")
        yield* withinClearance(caller, input.classification)
        yield* validContent(parts.asset.type, input)
        const { lockVersion, ...content } = input
        yield* transaction(
          Effect.gen(function* () {
            const updated = yield* repo.updateDraft(assetId, lockVersion, content, classificationRank[content.classification], caller.userId)
            if (!updated) return yield* new LockVersionConflict({ detail: "The draft changed since the lockVersion you sent; read it again" })
            yield* audit.record(caller, { action: "asset.draft.update", resourceType: "asset", resourceId: assetId, details: { lockVersion: updated.lockVersion, classification: content.classification } })
          })
        )
        return yield* present(caller, assetId)
      })

    /** Freezes the draft as an immutable revision and opens its review under the space's policy. */
    const submit = (caller: Principal, assetId: string, input: { readonly changeNote: string; readonly lockVersion: number }) =>
      Effect.gen(function* () {
        const { standing } = yield* reader.load(caller, assetId)
        if (!mayEdit(standing)) return yield* roleRequired("Submitting takes EDITOR, OWNER or BACKUP_OWNER on the asset and contributor on its space")
        yield* transaction(
          Effect.gen(function* () {
            const asset = (yield* repo.lockAsset(assetId))!
            if (asset.lockVersion !== input.lockVersion) return yield* new LockVersionConflict({ detail: `The draft is at lockVersion ${asset.lockVersion}` })
            const open = yield* repo.openReview(assetId)
            const step = transition("draft", open ? "OPEN_REVIEW" : "NO_OPEN_REVIEW", "SUBMIT")
            if (!step.ok) return yield* new ReviewAlreadyOpen({ detail: "A review of this asset is in progress; resolve it before submitting again" })
            const revision = yield* insertRevision(caller, asset, input.changeNote)
            const policy = yield* policies.effective(asset.knowledgeSpaceId)
            const review = yield* repo.insertReview(assetId, revision.id, revision.digest, policy.policyVersion, policy.requiredApprovals, caller.userId)
            yield* refreshStates(assetId)
            yield* audit.record(caller, {
              action: "asset.submit",
              resourceType: "asset",
              resourceId: assetId,
              details: { revisionId: revision.id, sequence: revision.sequence, digest: revision.digest, reviewId: review.id, policyVersion: policy.policyVersion }
            })
          })
        )
        return yield* present(caller, assetId)
      })

    /** The draft as a new revision (its content and digest never change afterwards). */
    const insertRevision = (caller: Principal, asset: AssetRow, changeNote: string) =>
      Effect.gen(function* () {
        const content: DraftContent = { title: asset.title, summary: asset.summary, classification: asset.classification, schemaVersion: asset.schemaVersion, payload: asset.payload }
        const sequence = (yield* repo.nextRevisionSequence(asset.id)).next
        return yield* repo.insertRevision(asset.id, sequence, content, contentDigest(content), changeNote, caller.userId)
      })

    /** A semantic version greater than every earlier release's, or why not. */
    const checkVersion = (assetId: string, versionLabel: string) =>
      Effect.gen(function* () {
        if (semver.valid(versionLabel) !== versionLabel) {
          return yield* new InvalidVersionLabel({ detail: "versionLabel must be a semantic version such as 1.0.0", errors: [{ path: "versionLabel", message: "must be a semantic version (MAJOR.MINOR.PATCH)" }] })
        }
        const earlier = yield* repo.releases(assetId)
        const blocking = earlier.find((release) => !semver.gt(versionLabel, release.versionLabel))
        if (blocking) return yield* new VersionNotGreater({ detail: `${quoteInput(versionLabel, 60)} is not greater than the earlier release ${blocking.versionLabel}` })
      })

    /** The assets the caller may see; viewers see only assets with a release, with the latest release's title. */
    const list = (caller: Principal, filter: { readonly q?: string | undefined; readonly type?: AssetRow["type"] | undefined }) =>
      Effect.gen(function* () {
        const visible = yield* reader.predicate(caller)
        const curating = new Set((yield* evaluator.spacesWith(caller, "curator")).map((space) => space.id))
        const reviewer = holds(caller, "assets.review")
        const found = yield* repo.list(caller.organizationId, visible, caller.userId, filter)
        return found.flatMap((row) => {
          const governance = row.callerRoles.length > 0 || reviewer || curating.has(row.knowledgeSpaceId)
          if (!governance && row.releaseCount === 0) return []
          return [{
            id: row.id,
            type: row.type,
            namespace: row.namespace,
            slug: row.slug,
            title: governance ? row.title : row.releaseTitle ?? row.title,
            summary: governance ? row.summary : row.releaseSummary ?? row.summary,
            knowledgeSpaceId: row.knowledgeSpaceId,
            portfolioState: row.portfolioState,
            ownerUserId: row.ownerUserId,
            sharingState: row.sharingState,
            updatedAt: row.updatedAt
          }]
        })
      })

    /** The resolver the access explanation and the audit trail's labels use for ASSET resources. */
    const resolveForAccess = (organizationId: string, id: string) =>
      Effect.map(repo.assetOfOrganization(organizationId, id), (asset) =>
        asset && {
          id: asset.id,
          type: "ASSET" as const,
          label: asset.title,
          contextLabel: `${asset.namespace}/${asset.slug}`,
          knowledgeSpaceId: asset.knowledgeSpaceId,
          classification: asset.classification,
          aclKeys: null
        })

    return { list, resolveForAccess, create, updateDraft, submit, present, refreshStates, insertRevision, checkVersion, transaction, withinClearance }
  }),
  dependencies: [AssetsRepo.Default, AssetReader.Default, AccessEvaluator.Default, Audit.Default, SpacePolicies.Default]
}) {}
