import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Body, Timestamp } from "../domain/Schemas"
import { authenticated } from "../domain/Security"
import { Availability } from "./Api"
import { AssetNotFound, InvalidVariables, PackItemInaccessible, PackItemNotFound, ReleaseNotFound, ReleaseWithdrawn, WrongAssetType } from "./Errors"
import { PackItemKind, PackPurpose, WorkInstructionBody } from "./Payloads"

export const WorkInstruction = Schema.Struct({
  assetId: Schema.UUID,
  releaseId: Schema.UUID,
  releaseDigest: Schema.String,
  title: Schema.String,
  versionLabel: Schema.String,
  instruction: WorkInstructionBody,
  acknowledged: Schema.Boolean,
  acknowledgedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "WorkInstruction" })

const itemFields = {
  key: Schema.String,
  title: Schema.String,
  required: Schema.Boolean,
  order: Schema.Int,
  kind: PackItemKind,
  resourceId: Schema.UUID.annotations({ description: "The asset (ASSET_RELEASE) or knowledge asset (KNOWLEDGE_VERSION)" }),
  pinnedVersionId: Schema.NullOr(Schema.UUID).annotations({ description: "The release, or the knowledge version (null when the caller cannot read it)" }),
  versionLabel: Schema.NullOr(Schema.String).annotations({ description: "null when the caller cannot read the item" }),
  availability: Schema.NullOr(Availability).annotations({ description: "null when the caller cannot read the item" }),
  accessible: Schema.Boolean.annotations({ description: "The caller may read the item and it is available; only accessible items can be completed" })
}

export const PackDefinitionItem = Schema.Struct(itemFields).annotations({ identifier: "PackDefinitionItem" })
export const PackItem = Schema.Struct({ ...itemFields, completed: Schema.Boolean, completedAt: Schema.NullOr(Timestamp) }).annotations({ identifier: "PackItem" })

const packHeader = {
  packAssetId: Schema.UUID,
  packReleaseId: Schema.UUID,
  releaseDigest: Schema.String,
  title: Schema.String,
  versionLabel: Schema.String,
  purpose: PackPurpose,
  audience: Schema.String,
  expectedOutcome: Schema.String
}

export const PackDefinition = Schema.Struct({
  ...packHeader,
  prerequisites: Schema.Array(Schema.String),
  completionCriteria: Schema.Array(Schema.String),
  reviewDate: Schema.String,
  owner: Schema.String.annotations({ description: "The owner's name" }),
  ownerUserId: Schema.UUID,
  accessGap: Schema.Boolean.annotations({ description: "Some item is withdrawn or not readable by the caller" }),
  items: Schema.Array(PackDefinitionItem)
}).annotations({ identifier: "PackDefinition" })

export const PackJourneyStatus = Schema.Literal("IN_PROGRESS", "COMPLETED").annotations({ identifier: "PackJourneyStatus" })

export const PackJourney = Schema.Struct({
  assignmentId: Schema.UUID,
  ...packHeader,
  status: PackJourneyStatus,
  accessGap: Schema.Boolean,
  completedAccessibleItems: Schema.Int,
  items: Schema.Array(PackItem),
  startedAt: Timestamp,
  completedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "PackJourney" })

export const PromptRender = Schema.Struct({
  assetId: Schema.UUID,
  releaseId: Schema.UUID,
  releaseDigest: Schema.String,
  systemInstruction: Schema.String,
  userPrompt: Schema.String,
  sensitiveVariables: Schema.Array(Schema.String),
  inputShapeDigest: Schema.String.annotations({ description: "sha256 of the input's shape (variable names, types, supplied or not), never of values" })
}).annotations({ identifier: "PromptRender" })

export const RenderBody = Body({
  variables: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) })
}).annotations({ identifier: "PromptVariables" })
export const ProgressBody = Body({ completed: Schema.Boolean }).annotations({ identifier: "PackProgressInput" })

const ReleasePath = Schema.Struct({ assetId: Schema.UUID, releaseId: Schema.UUID })

export class AssetDeliveryApi extends HttpApiGroup.make("assetDelivery")
  .add(
    HttpApiEndpoint.get("getWorkInstruction", "/assets/:assetId/releases/:releaseId/work-instruction")
      .setPath(ReleasePath)
      .addSuccess(WorkInstruction)
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(WrongAssetType)
      .addError(ReleaseWithdrawn)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("acknowledgeWorkInstruction", "/assets/:assetId/releases/:releaseId/work-instruction/acknowledgements")
      .setPath(ReleasePath)
      .addSuccess(WorkInstruction)
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(WrongAssetType)
      .addError(ReleaseWithdrawn)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getPackDefinition", "/assets/:assetId/releases/:releaseId/pack-definition")
      .setPath(ReleasePath)
      .addSuccess(PackDefinition)
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(WrongAssetType)
      .addError(ReleaseWithdrawn)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getPackJourney", "/assets/:assetId/releases/:releaseId/pack-journey")
      .setPath(ReleasePath)
      .addSuccess(PackJourney)
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(WrongAssetType)
      .addError(ReleaseWithdrawn)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.put("setPackProgress", "/assets/:assetId/releases/:releaseId/pack-progress/:itemKey")
      .setPath(Schema.Struct({ assetId: Schema.UUID, releaseId: Schema.UUID, itemKey: Schema.String.pipe(Schema.maxLength(100)) }))
      .setPayload(ProgressBody)
      .addSuccess(PackJourney)
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(WrongAssetType)
      .addError(ReleaseWithdrawn)
      .addError(PackItemNotFound)
      .addError(PackItemInaccessible)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("renderPrompt", "/asset-delivery/:assetId/releases/:releaseId/prompt-render")
      .setPath(ReleasePath)
      .setPayload(RenderBody)
      .addSuccess(PromptRender)
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(WrongAssetType)
      .addError(ReleaseWithdrawn)
      .addError(InvalidVariables)
      .pipe(authenticated)
  )
  .annotate(OpenApi.Title, "Asset delivery")
  .annotate(OpenApi.Description, "Released assets for the people who use them: work instructions, capability packs, prompt rendering") {}
