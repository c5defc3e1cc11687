import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { LoreApi } from "../http/Api"
import { asCaller } from "../domain/Principal"
import { Assets } from "./Assets"
import { AssetDeletion } from "./Deletion"
import { AssetFeedback } from "./Feedback"
import { feedbackSentiment } from "./ToolsApi"
import { Delivery } from "./Delivery"
import { AssetTools } from "./Tools"
import { Governance } from "./Governance"
import { SpacePolicies } from "./SpacePolicies"

export const AssetsHttp = HttpApiBuilder.group(LoreApi, "assets", (handlers) =>
  Effect.gen(function* () {
    const assets = yield* Assets
    const governance = yield* Governance
    const policies = yield* SpacePolicies
    const deletion = yield* AssetDeletion
    const feedback = yield* AssetFeedback
    return handlers
      .handle("listAssets", ({ urlParams }) => asCaller((me) => assets.list(me, urlParams)))
      .handle("createAsset", ({ payload }) => asCaller((me) => assets.create(me, payload)))
      .handle("getAsset", ({ path }) => asCaller((me) => assets.present(me, path.assetId)))
      .handle("deleteAsset", ({ path }) => asCaller((me) => deletion.remove(me, path.assetId)))
      .handle("listAssetFeedback", ({ path, urlParams }) => asCaller((me) => feedback.list(me, path.assetId, urlParams)))
      .handle("updateAssetDraft", ({ path, payload }) => asCaller((me) => assets.updateDraft(me, path.assetId, payload)))
      .handle("submitAsset", ({ path, payload }) => asCaller((me) => assets.submit(me, path.assetId, payload)))
      .handle("assignAssetRole", ({ path, payload }) => asCaller((me) => governance.assignRole(me, path.assetId, payload)))
      .handle("endAssetRole", ({ path }) => asCaller((me) => governance.endRole(me, path.assetId, path.assignmentId)))
      .handle("decideReview", ({ path, payload }) => asCaller((me) => governance.decide(me, path.assetId, path.reviewCaseId, payload)))
      .handle("releaseAsset", ({ path, payload }) => asCaller((me) => governance.release(me, path.assetId, payload)))
      .handle("directReleaseAsset", ({ path, payload }) => asCaller((me) => governance.directRelease(me, path.assetId, payload)))
      .handle("withdrawRelease", ({ path, payload }) => asCaller((me) => governance.withdraw(me, path.assetId, payload, false)))
      .handle("emergencyWithdrawRelease", ({ path, payload }) => asCaller((me) =>
        // The emergency path checks no asset role (assets.govern was checked by the endpoint).
        governance.withdraw(me, path.assetId, payload, true).pipe(Effect.catchTag("AssetRoleRequired", Effect.die))))
      .handle("getRevisionDiff", ({ path }) => asCaller((me) => governance.diff(me, path.assetId, path.revisionId)))
      .handle("getAssetPolicy", ({ path }) => asCaller((me) => policies.get(me, path.knowledgeSpaceId)))
      .handle("setAssetPolicy", ({ path, payload }) => asCaller((me) => policies.set(me, path.knowledgeSpaceId, payload)))
      .handle("listOrphanedAssets", ({ path }) => asCaller((me) => governance.orphanedBy(me, path.userId)))
  })
)

export const AssetDeliveryHttp = HttpApiBuilder.group(LoreApi, "assetDelivery", (handlers) =>
  Effect.gen(function* () {
    const delivery = yield* Delivery
    return handlers
      .handle("getWorkInstruction", ({ path }) => asCaller((me) => delivery.workInstruction(me, path.assetId, path.releaseId)))
      .handle("acknowledgeWorkInstruction", ({ path }) => asCaller((me) => delivery.acknowledge(me, path.assetId, path.releaseId)))
      .handle("getPackDefinition", ({ path }) => asCaller((me) => delivery.packDefinition(me, path.assetId, path.releaseId)))
      .handle("getPackJourney", ({ path }) => asCaller((me) => delivery.packJourney(me, path.assetId, path.releaseId)))
      .handle("setPackProgress", ({ path, payload }) => asCaller((me) => delivery.packProgress(me, path.assetId, path.releaseId, path.itemKey, payload.completed)))
      .handle("renderPrompt", ({ path, payload }) => asCaller((me) => delivery.render(me, path.assetId, path.releaseId, payload.variables)))
  })
)

export const AssetToolsHttp = HttpApiBuilder.group(LoreApi, "assetTools", (handlers) =>
  Effect.gen(function* () {
    const tools = yield* AssetTools
    return handlers
      .handle("assetToolPromptForm", ({ path }) => asCaller((me) => tools.promptForm(me, path.assetId, path.releaseId)))
      .handle("assetToolPromptRender", ({ path, payload }) => asCaller((me) => tools.promptRender(me, path.assetId, path.releaseId, payload.variables)))
      .handle("assetToolPromptRun", ({ path, payload }) => asCaller((me) => tools.promptRun(me, path.assetId, path.releaseId, payload.variables)))
      .handle("assetToolWorkInstruction", ({ path }) => asCaller((me) => tools.workInstruction(me, path.assetId, path.releaseId)))
      .handle("assetToolPack", ({ path }) => asCaller((me) => tools.pack(me, path.assetId, path.releaseId)))
      .handle("assetToolStartPack", ({ path }) => asCaller((me) => tools.pack(me, path.assetId, path.releaseId)))
      .handle("assetToolPackItem", ({ path, payload }) => asCaller((me) => tools.packItem(me, path.assetId, path.releaseId, path.itemKey, payload.completed)))
      .handle("assetToolFork", ({ path, payload }) => asCaller((me) => tools.fork(me, path.assetId, path.releaseId, payload)))
      .handle("assetToolFeedback", ({ path, payload }) =>
        asCaller((me) => tools.feedback(me, path.assetId, path.releaseId, { sentiment: feedbackSentiment(payload), comment: payload.comment })))
      .handle("assetRecommendations", ({ urlParams }) => asCaller((me) => tools.recommendations(me, urlParams)))
  })
)
