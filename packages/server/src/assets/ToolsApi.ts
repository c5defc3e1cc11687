import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import { Body, created, Query, Timestamp } from "../domain/Schemas"
import { authenticated } from "../domain/Security"
import { ClassificationAboveClearance, NotAContributor } from "../knowledge/Errors"
import { Asset, AssetType, Availability, PortfolioState, SharingState } from "./Api"
import { PackJourney, PromptRender, ProgressBody, RenderBody, WorkInstruction } from "./DeliveryApi"
import {
  AssetNotFound, AssetSlugTaken, InvalidAssetContent, InvalidVariables, PackItemInaccessible, PackItemNotFound, PromptRunFailed, ReleaseNotFound,
  ReleaseWithdrawn, WrongAssetType
} from "./Errors"
import { PromptVariable } from "./Payloads"

const TraceId = Schema.UUID.annotations({ description: "Logged with the tool, asset and release: quote it when reporting a problem" })

export const PromptForm = Schema.Struct({
  traceId: TraceId,
  release: Schema.Struct({ assetId: Schema.UUID, releaseId: Schema.UUID, releaseDigest: Schema.String }),
  objective: Schema.String,
  audience: Schema.String,
  variables: Schema.Array(PromptVariable),
  outputContract: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  knowledgeRequirements: Schema.Array(Schema.String),
  knownLimitations: Schema.String
}).annotations({ identifier: "PromptForm" })

export const PromptRunCitation = Schema.Struct({
  chunkId: Schema.UUID,
  knowledgeAssetId: Schema.UUID,
  sourceRevisionId: Schema.UUID,
  title: Schema.String,
  startPage: Schema.NullOr(Schema.Int),
  endPage: Schema.NullOr(Schema.Int),
  heading: Schema.NullOr(Schema.String)
}).annotations({ identifier: "PromptRunCitation", description: "The contract's ToolCitation" })

export const PromptRunResult = Schema.Struct({
  runId: Schema.UUID,
  assetId: Schema.UUID,
  releaseId: Schema.UUID,
  releaseDigest: Schema.String,
  modelRoute: Schema.Struct({ gatewayId: Schema.String, modelId: Schema.String }),
  output: Schema.String,
  citations: Schema.Array(PromptRunCitation),
  durationMillis: Schema.Int
}).annotations({ identifier: "PromptRunResult" })

export const Recommendation = Schema.Struct({
  assetId: Schema.UUID,
  type: AssetType,
  namespace: Schema.String,
  slug: Schema.String,
  title: Schema.String,
  summary: Schema.String,
  knowledgeSpaceId: Schema.UUID,
  portfolioState: PortfolioState,
  sharingState: SharingState,
  releaseId: Schema.UUID,
  versionLabel: Schema.String,
  releaseDigest: Schema.String,
  availability: Availability,
  releasedAt: Timestamp
}).annotations({ identifier: "Recommendation" })

const traced = <F extends Schema.Struct.Fields>(identifier: string, fields: F) => Schema.Struct({ traceId: TraceId, ...fields }).annotations({ identifier })

export const ForkBody = Body({
  namespace: Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9._-]{0,62}$/)),
  slug: Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9-]{0,62}$/)),
  knowledgeSpaceId: Schema.optional(Schema.UUID)
}).annotations({ identifier: "ForkInput" })

/**
 * One vocabulary with message feedback: `sentiment` HELPFUL | UNHELPFUL. `rating` and NOT_HELPFUL are the
 * deprecated spellings of earlier clients, still accepted (NOT_HELPFUL means UNHELPFUL); one of the two is required.
 */
export const FeedbackBody = Body({
  sentiment: Schema.optional(
    Schema.Literal("HELPFUL", "UNHELPFUL", "NOT_HELPFUL").annotations({ identifier: "AssetFeedbackSentiment", description: "HELPFUL or UNHELPFUL (NOT_HELPFUL: deprecated alias of UNHELPFUL)" })
  ),
  rating: Schema.optional(
    Schema.Literal("HELPFUL", "NOT_HELPFUL", "UNHELPFUL").annotations({ identifier: "AssetFeedbackRating", description: "Deprecated: send sentiment" })
  ),
  comment: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(2000)), { default: () => "" })
}).pipe(
  Schema.filter((body) => body.sentiment !== undefined || body.rating !== undefined || { path: ["sentiment"], message: "is required (HELPFUL or UNHELPFUL)" })
).annotations({ identifier: "AssetFeedbackInput" })

/** The one sentiment of a feedback body, its deprecated spellings resolved. */
export const feedbackSentiment = (body: { readonly sentiment?: string | undefined; readonly rating?: string | undefined }): "HELPFUL" | "UNHELPFUL" =>
  (body.sentiment ?? body.rating) === "HELPFUL" ? "HELPFUL" : "UNHELPFUL"

const ReleasePath = Schema.Struct({ assetId: Schema.UUID, releaseId: Schema.UUID })
const T = "/assistant/tools/assets/:assetId/releases/:releaseId"

export class AssetToolsApi extends HttpApiGroup.make("assetTools")
  .add(
    HttpApiEndpoint.get("assetToolPromptForm", `${T}/prompt-form`).setPath(ReleasePath).addSuccess(PromptForm)
      .addError(AssetNotFound).addError(ReleaseNotFound).addError(WrongAssetType).addError(ReleaseWithdrawn).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("assetToolPromptRender", `${T}/prompt-render`).setPath(ReleasePath).setPayload(RenderBody)
      .addSuccess(traced("PromptRenderAnswer", { result: PromptRender }))
      .addError(AssetNotFound).addError(ReleaseNotFound).addError(WrongAssetType).addError(ReleaseWithdrawn).addError(InvalidVariables).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("assetToolPromptRun", `${T}/prompt-run`).setPath(ReleasePath).setPayload(RenderBody)
      .addSuccess(traced("PromptRunAnswer", { result: PromptRunResult }))
      .addError(AssetNotFound).addError(ReleaseNotFound).addError(WrongAssetType).addError(ReleaseWithdrawn).addError(InvalidVariables).addError(PromptRunFailed)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("assetToolWorkInstruction", `${T}/work-instruction`).setPath(ReleasePath)
      .addSuccess(traced("WorkInstructionAnswer", { instruction: WorkInstruction }))
      .addError(AssetNotFound).addError(ReleaseNotFound).addError(WrongAssetType).addError(ReleaseWithdrawn).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("assetToolPack", `${T}/pack`).setPath(ReleasePath)
      .addSuccess(traced("PackJourneyAnswer", { journey: PackJourney }))
      .addError(AssetNotFound).addError(ReleaseNotFound).addError(WrongAssetType).addError(ReleaseWithdrawn).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("assetToolStartPack", `${T}/pack`).setPath(ReleasePath)
      .addSuccess(traced("PackJourneyAnswer", { journey: PackJourney }))
      .addError(AssetNotFound).addError(ReleaseNotFound).addError(WrongAssetType).addError(ReleaseWithdrawn).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.put("assetToolPackItem", `${T}/pack/:itemKey`)
      .setPath(Schema.Struct({ assetId: Schema.UUID, releaseId: Schema.UUID, itemKey: Schema.String.pipe(Schema.maxLength(100)) }))
      .setPayload(ProgressBody)
      .addSuccess(traced("PackJourneyAnswer", { journey: PackJourney }))
      .addError(AssetNotFound).addError(ReleaseNotFound).addError(WrongAssetType).addError(ReleaseWithdrawn).addError(PackItemNotFound).addError(PackItemInaccessible)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("assetToolFork", `${T}/fork`).setPath(ReleasePath).setPayload(ForkBody)
      .addSuccess(created(traced("ForkAnswer", { asset: Asset })))
      .addError(AssetNotFound).addError(ReleaseNotFound).addError(WrongAssetType).addError(ReleaseWithdrawn)
      .addError(KnowledgeSpaceNotFound).addError(NotAContributor).addError(ClassificationAboveClearance).addError(AssetSlugTaken).addError(InvalidAssetContent)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("assetToolFeedback", `${T}/feedback`).setPath(ReleasePath).setPayload(FeedbackBody)
      .addSuccess(created(traced("FeedbackAnswer", { feedbackId: Schema.UUID })))
      .addError(AssetNotFound).addError(ReleaseNotFound)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("assetRecommendations", "/assistant/tools/asset-recommendations")
      .setUrlParams(Query({ q: Schema.optional(Schema.String.pipe(Schema.maxLength(500))), type: Schema.optional(AssetType) }))
      .addSuccess(traced("RecommendationsAnswer", { recommendations: Schema.Array(Recommendation) }))
      .pipe(authenticated)
  )
  .annotate(OpenApi.Title, "Assistant asset tools")
  .annotate(OpenApi.Description, "Tools the assistant (and other clients) use on released assets; every answer carries a logged traceId") {}
