import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { affected, exec, one, row, rows, Timestamp } from "../db/Rows"
import { Classification } from "../domain/Model"

/** The evaluator's access predicate bound to the caller, applied by each statement to the alias it needs. */
export type AccessPredicate = (alias: string) => Statement.Fragment

export const AssetRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  knowledgeSpaceId: Schema.String,
  type: Schema.Literal("PROMPT_TEMPLATE", "WORK_INSTRUCTION", "CAPABILITY_PACK", "SKILL"),
  namespace: Schema.String,
  slug: Schema.String,
  portfolioState: Schema.Literal("DRAFT_ONLY", "IN_REVIEW", "RELEASED", "WITHDRAWN"),
  sharingState: Schema.Literal("PRIVATE", "SHARED"),
  draftId: Schema.String,
  lockVersion: Schema.Number,
  title: Schema.String,
  summary: Schema.String,
  classification: Classification,
  schemaVersion: Schema.String,
  payload: Schema.String,
  editedBy: Schema.NullOr(Schema.String),
  createdBy: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
})
export type AssetRow = typeof AssetRow.Type

export const RevisionRow = Schema.Struct({
  id: Schema.String,
  assetId: Schema.String,
  sequence: Schema.Number,
  title: Schema.String,
  summary: Schema.String,
  classification: Classification,
  schemaVersion: Schema.String,
  payload: Schema.String,
  digest: Schema.String,
  changeNote: Schema.String,
  createdBy: Schema.NullOr(Schema.String),
  createdAt: Timestamp
})
export type RevisionRow = typeof RevisionRow.Type

export const ReviewRow = Schema.Struct({
  id: Schema.String,
  assetId: Schema.String,
  revisionId: Schema.String,
  revisionDigest: Schema.String,
  state: Schema.Literal("IN_REVIEW", "APPROVED", "CHANGES_REQUESTED", "REJECTED"),
  policyVersion: Schema.String,
  requiredApprovals: Schema.Number,
  requestedBy: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  resolvedAt: Schema.NullOr(Timestamp)
})
export type ReviewRow = typeof ReviewRow.Type

export const DecisionRow = Schema.Struct({
  reviewId: Schema.String,
  reviewerUserId: Schema.String,
  decision: Schema.Literal("APPROVE", "REQUEST_CHANGES", "REJECT"),
  comment: Schema.String,
  decidedAt: Timestamp
})

export const ReleaseRow = Schema.Struct({
  id: Schema.String,
  assetId: Schema.String,
  revisionId: Schema.String,
  sequence: Schema.Number,
  versionLabel: Schema.String,
  publicationMode: Schema.Literal("REVIEWED", "DIRECT"),
  title: Schema.String,
  summary: Schema.String,
  classification: Classification,
  schemaVersion: Schema.String,
  payload: Schema.String,
  digest: Schema.String,
  availability: Schema.Literal("AVAILABLE", "WITHDRAWN", "EMERGENCY_WITHDRAWN"),
  releasedBy: Schema.NullOr(Schema.String),
  releasedAt: Timestamp
})
export type ReleaseRow = typeof ReleaseRow.Type

export const AvailabilityRow = Schema.Struct({
  releaseId: Schema.String,
  availability: Schema.Literal("AVAILABLE", "WITHDRAWN", "EMERGENCY_WITHDRAWN"),
  reason: Schema.String,
  changedBy: Schema.NullOr(Schema.String),
  effectiveAt: Timestamp
})

export const AssignmentRow = Schema.Struct({
  id: Schema.String,
  assetId: Schema.String,
  principalType: Schema.String,
  principalId: Schema.String,
  role: Schema.Literal("OWNER", "BACKUP_OWNER", "EDITOR", "REVIEWER"),
  validFrom: Timestamp,
  validUntil: Schema.NullOr(Timestamp),
  assignedBy: Schema.NullOr(Schema.String),
  projectedAt: Timestamp,
  /** Whether the assigned user exists and is active (deactivated owners do not count as present). */
  principalActive: Schema.Boolean
})
export type AssignmentRow = typeof AssignmentRow.Type

export const PolicyRow = Schema.Struct({
  knowledgeSpaceId: Schema.String,
  requiredApprovals: Schema.Number,
  directReleaseAllowed: Schema.Boolean,
  version: Schema.Number
})

const Id = Schema.Struct({ id: Schema.String })
const Next = Schema.Struct({ next: Schema.Number })
const Approvals = Schema.Struct({ approvals: Schema.Number })
const UserState = Schema.Struct({ id: Schema.String, active: Schema.Boolean, name: Schema.String })
const SpaceOfOrg = Schema.Struct({ id: Schema.String })

export interface NewAsset {
  readonly organizationId: string
  readonly knowledgeSpaceId: string
  readonly type: string
  readonly namespace: string
  readonly slug: string
  readonly classificationRank: number
  readonly content: DraftContent
  readonly userId: string
  readonly forkedFromReleaseId?: string | null
}

export interface DraftContent {
  readonly title: string
  readonly summary: string
  readonly classification: Classification
  readonly schemaVersion: string
  readonly payload: string
}

/** SQL for governed assets: the asset with its draft, revisions, reviews, releases, roles and policies. */
export class AssetsRepo extends Effect.Service<AssetsRepo>()("lore/AssetsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const assetColumns = sql`a.id, a.organization_id, a.knowledge_space_id, a.type, a.namespace, a.slug, a.portfolio_state, a.sharing_state,
      a.draft_id, a.lock_version, a.title, a.summary, a.classification, a.schema_version, a.payload, a.edited_by, a.created_by,
      a.created_at, a.updated_at`
    const activeRole = (alias: string) => sql`(${sql(alias)}.valid_from <= now() AND (${sql(alias)}.valid_until IS NULL OR ${sql(alias)}.valid_until > now()))`

    const insertPolicy = row("assets.insertPolicy", PolicyRow, (spaceId: string, requiredApprovals: number, directReleaseAllowed: boolean, userId: string) => sql`
      INSERT INTO asset_policies (knowledge_space_id, required_approvals, direct_release_allowed, version, updated_by)
      VALUES (${spaceId}, ${requiredApprovals}, ${directReleaseAllowed}, 1, ${userId})
      ON CONFLICT (knowledge_space_id) DO NOTHING RETURNING *`)
    const updatePolicy = row("assets.updatePolicy", PolicyRow, (spaceId: string, requiredApprovals: number, directReleaseAllowed: boolean, version: number, userId: string) => sql`
      UPDATE asset_policies SET required_approvals = ${requiredApprovals}, direct_release_allowed = ${directReleaseAllowed}, version = version + 1,
        updated_by = ${userId}, updated_at = now()
      WHERE knowledge_space_id = ${spaceId} AND version = ${version} RETURNING *`)

    return {
      activeRole,

      insertAsset: row("assets.insert", Id, (input: NewAsset) => sql`
        INSERT INTO assets (organization_id, knowledge_space_id, type, namespace, slug, classification_rank, title, summary,
          classification, schema_version, payload, edited_by, created_by, forked_from_release_id)
        VALUES (${input.organizationId}, ${input.knowledgeSpaceId}, ${input.type}, ${input.namespace}, ${input.slug}, ${input.classificationRank},
          ${input.content.title}, ${input.content.summary}, ${input.content.classification}, ${input.content.schemaVersion}, ${input.content.payload},
          ${input.userId}, ${input.userId}, ${input.forkedFromReleaseId ?? null})
        ON CONFLICT (organization_id, namespace, slug) DO NOTHING
        RETURNING id`),

      /** The asset if the caller may see it by the evaluator's predicate (grant on its space, clearance). */
      visibleAsset: row("assets.visible", AssetRow, (organizationId: string, id: string, visible: AccessPredicate) => sql`
        SELECT ${assetColumns} FROM assets a WHERE a.organization_id = ${organizationId} AND a.id = ${id} AND ${visible("a")}`),

      /** Locks the asset's row for a lifecycle change (serializes submissions, decisions, releases). */
      /** Deletes an asset that has no release (its draft, revisions, reviews and roles go with it); the id when deleted. */
      deleteUnreleased: row("assets.deleteUnreleased", Id, (id: string) => sql`
        DELETE FROM assets a WHERE a.id = ${id} AND NOT EXISTS (SELECT 1 FROM asset_releases r WHERE r.asset_id = a.id)
        RETURNING a.id`),

      lockAsset: row("assets.lock", AssetRow, (id: string) => sql`SELECT ${assetColumns} FROM assets a WHERE a.id = ${id} FOR UPDATE`),

      list: rows("assets.list", Schema.Struct({
        ...AssetRow.fields,
        releaseTitle: Schema.NullOr(Schema.String),
        releaseSummary: Schema.NullOr(Schema.String),
        releaseCount: Schema.Number,
        callerRoles: Schema.Array(Schema.String),
        ownerUserId: Schema.NullOr(Schema.String)
      }), (organizationId: string, visible: AccessPredicate, callerId: string, filter: { q?: string | undefined; type?: string | undefined }) => sql`
        SELECT ${assetColumns}, r.title AS release_title, r.summary AS release_summary,
          (SELECT count(*)::int FROM asset_releases x WHERE x.asset_id = a.id) AS release_count,
          coalesce((SELECT array_agg(ra.role) FROM asset_role_assignments ra
            WHERE ra.asset_id = a.id AND ra.principal_id = ${callerId} AND ${activeRole("ra")}), '{}') AS caller_roles,
          (SELECT ra.principal_id FROM asset_role_assignments ra JOIN users u ON u.id::text = ra.principal_id AND u.active
            WHERE ra.asset_id = a.id AND ra.role = 'OWNER' AND ${activeRole("ra")} ORDER BY ra.projected_at LIMIT 1) AS owner_user_id
        FROM assets a
        LEFT JOIN LATERAL (SELECT title, summary FROM asset_releases x WHERE x.asset_id = a.id ORDER BY x.sequence DESC LIMIT 1) r ON true
        WHERE a.organization_id = ${organizationId} AND ${visible("a")}
          ${filter.type ? sql`AND a.type = ${filter.type}` : sql``}
          ${filter.q ? sql`AND (a.namespace || '/' || a.slug || ' ' || a.title || ' ' || a.summary || ' ' || coalesce(r.title, '') || ' ' || coalesce(r.summary, '')) ILIKE ${"%" + filter.q.replace(/[\\%_]/g, (c) => "\\" + c) + "%"}` : sql``}
        ORDER BY a.updated_at DESC, a.id`),

      updateDraft: row("assets.updateDraft", AssetRow, (id: string, lockVersion: number, content: DraftContent, classificationRank: number, userId: string) => sql`
        UPDATE assets a SET title = ${content.title}, summary = ${content.summary}, classification = ${content.classification},
          classification_rank = ${classificationRank}, schema_version = ${content.schemaVersion}, payload = ${content.payload},
          edited_by = ${userId}, lock_version = lock_version + 1, updated_at = now()
        WHERE a.id = ${id} AND a.lock_version = ${lockVersion}
        RETURNING ${assetColumns}`),

      setStates: exec((id: string, portfolioState: string, sharingState: string) =>
        sql`UPDATE assets SET portfolio_state = ${portfolioState}, sharing_state = ${sharingState}, updated_at = now() WHERE id = ${id}`),

      revisions: rows("assets.revisions", RevisionRow, (assetId: string) => sql`SELECT * FROM asset_revisions WHERE asset_id = ${assetId} ORDER BY sequence`),
      revision: row("assets.revision", RevisionRow, (assetId: string, id: string) => sql`SELECT * FROM asset_revisions WHERE asset_id = ${assetId} AND id = ${id}`),
      nextRevisionSequence: one("assets.nextRevision", Next, (assetId: string) =>
        sql`SELECT coalesce(max(sequence), 0)::int + 1 AS next FROM asset_revisions WHERE asset_id = ${assetId}`),
      insertRevision: one("assets.insertRevision", RevisionRow, (assetId: string, sequence: number, content: DraftContent, digest: string, changeNote: string, userId: string) => sql`
        INSERT INTO asset_revisions (asset_id, sequence, title, summary, classification, schema_version, payload, digest, change_note, created_by)
        VALUES (${assetId}, ${sequence}, ${content.title}, ${content.summary}, ${content.classification}, ${content.schemaVersion}, ${content.payload},
          ${digest}, ${changeNote}, ${userId})
        RETURNING *`),

      reviews: rows("assets.reviews", ReviewRow, (assetId: string) => sql`SELECT * FROM asset_reviews WHERE asset_id = ${assetId} ORDER BY created_at, id`),
      review: row("assets.review", ReviewRow, (assetId: string, id: string) => sql`SELECT * FROM asset_reviews WHERE asset_id = ${assetId} AND id = ${id}`),
      openReview: row("assets.openReview", ReviewRow, (assetId: string) => sql`SELECT * FROM asset_reviews WHERE asset_id = ${assetId} AND state = 'IN_REVIEW'`),
      latestReviewOf: row("assets.latestReviewOf", ReviewRow, (revisionId: string) =>
        sql`SELECT * FROM asset_reviews WHERE revision_id = ${revisionId} ORDER BY created_at DESC, id DESC LIMIT 1`),
      insertReview: one("assets.insertReview", ReviewRow, (assetId: string, revisionId: string, digest: string, policyVersion: string, requiredApprovals: number, userId: string) => sql`
        INSERT INTO asset_reviews (asset_id, revision_id, revision_digest, state, policy_version, required_approvals, requested_by)
        VALUES (${assetId}, ${revisionId}, ${digest}, 'IN_REVIEW', ${policyVersion}, ${requiredApprovals}, ${userId})
        RETURNING *`),
      resolveReview: exec((id: string, state: string) =>
        sql`UPDATE asset_reviews SET state = ${state}, resolved_at = CASE WHEN ${state} = 'IN_REVIEW' THEN NULL ELSE now() END WHERE id = ${id}`),
      decisions: rows("assets.decisions", DecisionRow, (assetId: string) => sql`
        SELECT d.* FROM asset_review_decisions d JOIN asset_reviews r ON r.id = d.review_id WHERE r.asset_id = ${assetId} ORDER BY d.decided_at`),
      /** false when the reviewer decided on this review already. */
      insertDecision: affected((reviewId: string, reviewerId: string, decision: string, comment: string) => sql`
        INSERT INTO asset_review_decisions (review_id, reviewer_user_id, decision, comment) VALUES (${reviewId}, ${reviewerId}, ${decision}, ${comment})
        ON CONFLICT DO NOTHING RETURNING review_id`),
      approvals: one("assets.approvals", Approvals, (reviewId: string) =>
        sql`SELECT count(*)::int AS approvals FROM asset_review_decisions WHERE review_id = ${reviewId} AND decision = 'APPROVE'`),

      releases: rows("assets.releases", ReleaseRow, (assetId: string) =>
        sql`SELECT id, asset_id, revision_id, sequence, version_label, publication_mode, title, summary, classification, schema_version, payload, digest,
          availability, released_by, released_at FROM asset_releases WHERE asset_id = ${assetId} ORDER BY sequence`),
      releaseOfRevision: row("assets.releaseOfRevision", Id, (revisionId: string) => sql`SELECT id FROM asset_releases WHERE revision_id = ${revisionId}`),
      insertRelease: one("assets.insertRelease", Id, (assetId: string, revision: RevisionRow, versionLabel: string, mode: string, classificationRank: number, userId: string) => sql`
        INSERT INTO asset_releases (asset_id, revision_id, sequence, version_label, publication_mode, title, summary, classification, classification_rank,
          schema_version, payload, digest, released_by)
        VALUES (${assetId}, ${revision.id}, (SELECT coalesce(max(sequence), 0) + 1 FROM asset_releases WHERE asset_id = ${assetId}), ${versionLabel}, ${mode},
          ${revision.title}, ${revision.summary}, ${revision.classification}, ${classificationRank}, ${revision.schemaVersion}, ${revision.payload},
          ${revision.digest}, ${userId})
        RETURNING id`),
      setAvailability: exec((releaseId: string, availability: string) => sql`UPDATE asset_releases SET availability = ${availability} WHERE id = ${releaseId}`),
      insertAvailabilityChange: exec((releaseId: string, availability: string, reason: string, userId: string | null) => sql`
        INSERT INTO asset_availability_changes (release_id, availability, reason, changed_by) VALUES (${releaseId}, ${availability}, ${reason}, ${userId})`),
      availabilityHistory: rows("assets.availability", AvailabilityRow, (assetId: string) => sql`
        SELECT c.release_id, c.availability, c.reason, c.changed_by, c.effective_at FROM asset_availability_changes c
        JOIN asset_releases r ON r.id = c.release_id WHERE r.asset_id = ${assetId} ORDER BY c.effective_at, c.id`),

      assignments: rows("assets.assignments", AssignmentRow, (assetId: string) => sql`
        SELECT ra.*, coalesce(u.active, false) AS principal_active FROM asset_role_assignments ra
        LEFT JOIN users u ON ra.principal_type = 'USER' AND u.id::text = ra.principal_id
        WHERE ra.asset_id = ${assetId} ORDER BY ra.projected_at, ra.id`),
      insertAssignment: exec((assetId: string, principalId: string, role: string, validFrom: Date | null, validUntil: Date | null, userId: string | null) => sql`
        INSERT INTO asset_role_assignments (asset_id, principal_type, principal_id, role, valid_from, valid_until, assigned_by)
        VALUES (${assetId}, 'USER', ${principalId}, ${role}, coalesce(${validFrom}::timestamptz, now()), ${validUntil}, ${userId})`),
      endAssignment: affected((assetId: string, id: string) => sql`
        UPDATE asset_role_assignments SET valid_until = now() WHERE asset_id = ${assetId} AND id = ${id}
          AND (valid_until IS NULL OR valid_until > now()) RETURNING id`),
      assignmentExists: affected((assetId: string, id: string) => sql`SELECT id FROM asset_role_assignments WHERE asset_id = ${assetId} AND id = ${id}`),

      policy: row("assets.policy", PolicyRow, (spaceId: string) => sql`SELECT * FROM asset_policies WHERE knowledge_space_id = ${spaceId}`),
      /** Writes the policy when `version` is the current one (0: none yet); answers undefined on a stale version. */
      setPolicy: (spaceId: string, requiredApprovals: number, directReleaseAllowed: boolean, version: number, userId: string) =>
        version === 0
          ? insertPolicy(spaceId, requiredApprovals, directReleaseAllowed, userId)
          : updatePolicy(spaceId, requiredApprovals, directReleaseAllowed, version, userId),
      spaceOfOrganization: row("assets.spaceOfOrganization", SpaceOfOrg, (organizationId: string, spaceId: string) =>
        sql`SELECT id FROM knowledge_spaces WHERE organization_id = ${organizationId} AND id = ${spaceId}`),

      /** An asset by id within the organization, without an access check: for the explanation's and audit's resolver only. */
      assetOfOrganization: row("assets.ofOrganization", AssetRow, (organizationId: string, id: string) =>
        sql`SELECT ${assetColumns} FROM assets a WHERE a.organization_id = ${organizationId} AND a.id = ${id}`),

      user: row("assets.user", UserState, (organizationId: string, userId: string) =>
        sql`SELECT id, active, name FROM users WHERE organization_id = ${organizationId} AND id = ${userId}`),

      /**
       * Assets the user holds OWNER or BACKUP_OWNER on (in the window) where no other active user does: they are
       * orphaned once the user is deactivated.
       */
      orphanedBy: rows("assets.orphanedBy", Schema.Struct({ assetId: Schema.String, namespace: Schema.String, slug: Schema.String, title: Schema.String, roles: Schema.Array(Schema.String) }),
        (organizationId: string, userId: string) => sql`
        SELECT a.id AS asset_id, a.namespace, a.slug, a.title, array_agg(DISTINCT ra.role) AS roles
        FROM assets a JOIN asset_role_assignments ra ON ra.asset_id = a.id
        WHERE a.organization_id = ${organizationId} AND ra.principal_id = ${userId} AND ra.role IN ('OWNER', 'BACKUP_OWNER') AND ${activeRole("ra")}
          AND NOT EXISTS (
            SELECT 1 FROM asset_role_assignments other JOIN users u ON u.id::text = other.principal_id AND u.active
            WHERE other.asset_id = a.id AND other.principal_id <> ${userId} AND other.role IN ('OWNER', 'BACKUP_OWNER') AND ${activeRole("other")})
        GROUP BY a.id, a.namespace, a.slug, a.title ORDER BY a.namespace, a.slug`)
    }
  })
}) {}
