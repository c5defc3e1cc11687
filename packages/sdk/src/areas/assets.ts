import type { LoreFetchClient } from "../fetchClient"
import { unwrap, unwrapEmpty } from "../response"
import { AssetToolsArea } from "./assetTools"
import { SkillsArea } from "./skills"
import { assetPayload } from "../payload"
import type {
  Asset,
  AssetFeedbackPage,
  AssetPolicy,
  AssetPolicyInput,
  AssetSummary,
  AssetType,
  CreateAsset,
  DirectReleaseInput,
  DraftUpdate,
  OrphanedAsset,
  PackDefinition,
  PackJourney,
  PromptRender,
  ReleaseInput,
  ReviewDecisionInput,
  RevisionDiff,
  RoleAssignmentInput,
  Submission,
  Withdrawal,
  WorkInstruction
} from "../generated/openapi"

/**
 * Governed assets: prompt templates, work instructions and capability packs, from draft through review to
 * immutable releases. Every write answers the whole Asset as the caller may see it. A draft write or a
 * submission sends the draft's `lockVersion` (409 LOCK_VERSION_CONFLICT when stale).
 */
export class AssetsArea {
  /** The assistant's tools over released assets. */
  readonly tools: AssetToolsArea
  /** Agent Skills packages: inspection, upload, releases, manifests, packages, activation, repository import. */
  readonly skills: SkillsArea
  /** An asset's payload text as its type's body (PromptTemplateBody, ...) and back: typed only, the server validates. */
  readonly payload = assetPayload

  constructor(private readonly client: LoreFetchClient) {
    this.tools = new AssetToolsArea(client)
    this.skills = new SkillsArea(client)
  }

  /** The assets the caller may see, optionally matching `q` (namespace, slug, title, summary) and of one type. */
  list(query: { q?: string; type?: AssetType } = {}): Promise<Array<AssetSummary>> {
    return unwrap(this.client.GET("/api/assets", { params: { query } }))
  }

  create(input: CreateAsset): Promise<Asset> {
    return unwrap(this.client.POST("/api/assets", { body: input }))
  }

  get(assetId: string): Promise<Asset> {
    return unwrap(this.client.GET("/api/assets/{assetId}", { params: { path: { assetId } } }))
  }

  /** Deletes an asset that was never released (its OWNER or BACKUP_OWNER); 409 ASSET_HAS_RELEASES once released. */
  delete(assetId: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/assets/{assetId}", { params: { path: { assetId } } }))
  }

  /** Feedback on the asset's releases, newest first, a page at a time (owners and the space's curators). */
  feedback(assetId: string, query: { releaseId?: string; cursor?: string } = {}): Promise<AssetFeedbackPage> {
    return unwrap(this.client.GET("/api/assets/{assetId}/feedback", { params: { path: { assetId }, query } }))
  }

  updateDraft(assetId: string, input: DraftUpdate): Promise<Asset> {
    return unwrap(this.client.PUT("/api/assets/{assetId}/draft", { params: { path: { assetId } }, body: input }))
  }

  /** Freezes the draft as a revision and opens its review. */
  submit(assetId: string, input: Submission): Promise<Asset> {
    return unwrap(this.client.POST("/api/assets/{assetId}/submissions", { params: { path: { assetId } }, body: input }))
  }

  /** APPROVE, REQUEST_CHANGES or REJECT the review `reviewCaseId` (the Review's id). */
  decide(assetId: string, reviewCaseId: string, input: ReviewDecisionInput): Promise<Asset> {
    return unwrap(this.client.POST("/api/assets/{assetId}/reviews/{reviewCaseId}/decisions", { params: { path: { assetId, reviewCaseId } }, body: input }))
  }

  /** Releases an approved revision under a semver label greater than every earlier release. */
  release(assetId: string, input: ReleaseInput): Promise<Asset> {
    return unwrap(this.client.POST("/api/assets/{assetId}/releases", { params: { path: { assetId } }, body: input }))
  }

  /** Releases the draft without review, where the space's asset policy allows it. */
  directRelease(assetId: string, input: DirectReleaseInput): Promise<Asset> {
    return unwrap(this.client.POST("/api/assets/{assetId}/direct-releases", { params: { path: { assetId } }, body: input }))
  }

  withdraw(assetId: string, input: Withdrawal): Promise<Asset> {
    return unwrap(this.client.POST("/api/assets/{assetId}/withdrawal", { params: { path: { assetId } }, body: input }))
  }

  /** Governance admins (assets.govern): withdraws at once and notifies the owners through the audit trail. */
  emergencyWithdraw(assetId: string, input: Withdrawal): Promise<Asset> {
    return unwrap(this.client.POST("/api/assets/{assetId}/emergency-withdrawal", { params: { path: { assetId } }, body: input }))
  }

  assignRole(assetId: string, input: RoleAssignmentInput): Promise<Asset> {
    return unwrap(this.client.POST("/api/assets/{assetId}/role-assignments", { params: { path: { assetId } }, body: input }))
  }

  /** Ends a role assignment now (it stays listed, with its validUntil). */
  endRole(assetId: string, assignmentId: string): Promise<Asset> {
    return unwrap(this.client.DELETE("/api/assets/{assetId}/role-assignments/{assignmentId}", { params: { path: { assetId, assignmentId } } }))
  }

  /** What a revision changes against the release before it. */
  diff(assetId: string, revisionId: string): Promise<RevisionDiff> {
    return unwrap(this.client.GET("/api/assets/{assetId}/revisions/{revisionId}/diff", { params: { path: { assetId, revisionId } } }))
  }

  policy(knowledgeSpaceId: string): Promise<AssetPolicy> {
    return unwrap(this.client.GET("/api/asset-policies/{knowledgeSpaceId}", { params: { path: { knowledgeSpaceId } } }))
  }

  setPolicy(knowledgeSpaceId: string, input: AssetPolicyInput): Promise<AssetPolicy> {
    return unwrap(this.client.PUT("/api/asset-policies/{knowledgeSpaceId}", { params: { path: { knowledgeSpaceId } }, body: input }))
  }

  /** The assets a user's deactivation would orphan (users.manage). */
  orphanedBy(userId: string): Promise<Array<OrphanedAsset>> {
    return unwrap(this.client.GET("/api/admin/users/{userId}/orphaned-assets", { params: { path: { userId } } }))
  }

  // ---- delivery of released versions (410 RELEASE_WITHDRAWN once withdrawn) ----

  workInstruction(assetId: string, releaseId: string): Promise<WorkInstruction> {
    return unwrap(this.client.GET("/api/assets/{assetId}/releases/{releaseId}/work-instruction", { params: { path: { assetId, releaseId } } }))
  }

  /** Records that the caller has read the work instruction (idempotent). */
  acknowledge(assetId: string, releaseId: string): Promise<WorkInstruction> {
    return unwrap(this.client.POST("/api/assets/{assetId}/releases/{releaseId}/work-instruction/acknowledgements", { params: { path: { assetId, releaseId } } }))
  }

  packDefinition(assetId: string, releaseId: string): Promise<PackDefinition> {
    return unwrap(this.client.GET("/api/assets/{assetId}/releases/{releaseId}/pack-definition", { params: { path: { assetId, releaseId } } }))
  }

  /** The caller's journey through a pack release (started on first use). */
  packJourney(assetId: string, releaseId: string): Promise<PackJourney> {
    return unwrap(this.client.GET("/api/assets/{assetId}/releases/{releaseId}/pack-journey", { params: { path: { assetId, releaseId } } }))
  }

  /** Marks an item done (or not); only accessible items can be completed (403 PACK_ITEM_INACCESSIBLE). */
  packProgress(assetId: string, releaseId: string, itemKey: string, completed: boolean): Promise<PackJourney> {
    return unwrap(this.client.PUT("/api/assets/{assetId}/releases/{releaseId}/pack-progress/{itemKey}", { params: { path: { assetId, releaseId, itemKey } }, body: { completed } }))
  }

  /** Renders a released prompt template; sensitive values are never logged or stored by the server. */
  renderPrompt(assetId: string, releaseId: string, variables: Record<string, unknown>): Promise<PromptRender> {
    return unwrap(this.client.POST("/api/asset-delivery/{assetId}/releases/{releaseId}/prompt-render", { params: { path: { assetId, releaseId } }, body: { variables } }))
  }
}
