import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Body, created, IntegerParam, Query, Timestamp } from "../domain/Schemas"
import { requires } from "../domain/Security"
import { AiVersionConflict, GatewayInUse, GatewayKeyTaken, GatewayNotEditable, GatewayNotFound, GatewayTestFailed, InvalidGateway, InvalidRoute, InvalidUsagePeriod } from "./Errors"
import { GatewayCategory, GatewayPreset, GatewayProtocol, GatewaySource, GatewayTestError, ReasoningEffort, RouteSource, Workload } from "./Model"

export const ProviderPreset = Schema.Struct({
  preset: GatewayPreset,
  displayName: Schema.String,
  vendorName: Schema.String,
  category: GatewayCategory,
  protocol: GatewayProtocol,
  defaultBaseUrl: Schema.String,
  baseUrlEditable: Schema.Boolean,
  supportsProviderReasoningEffort: Schema.Boolean,
  supportsEmbeddings: Schema.Boolean
}).annotations({ identifier: "ProviderPreset" })

export const AssistantModel = Schema.Struct({
  id: Schema.UUID,
  modelId: Schema.String,
  displayName: Schema.String
}).annotations({ identifier: "AssistantModel" })

export const Gateway = Schema.Struct({
  id: Schema.UUID,
  gatewayKey: Schema.String,
  displayName: Schema.String,
  preset: GatewayPreset,
  category: GatewayCategory,
  protocol: GatewayProtocol,
  supportsProviderReasoningEffort: Schema.Boolean,
  baseUrl: Schema.String,
  requestTimeoutSeconds: Schema.Int,
  enabled: Schema.Boolean,
  version: Schema.Int,
  credentialSet: Schema.Boolean.annotations({ description: "Whether an API key is stored; the key itself is write-only and never returned" }),
  credentialSetByUserId: Schema.NullOr(Schema.UUID),
  credentialSetAt: Schema.NullOr(Timestamp),
  assistantModels: Schema.Array(AssistantModel),
  source: GatewaySource,
  editable: Schema.Boolean.annotations({ description: "False for the built-in LOCAL gateway and the one set by LORE_EMBEDDING_*" })
}).annotations({ identifier: "Gateway" })

const GatewayKey = Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9-]{0,62}$/)).annotations({ description: "lowercase letters, digits and dashes" })
const DisplayName = Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))
const BaseUrl = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000)).annotations({
  description: "The API base including its version path, e.g. https://api.openai.com/v1; defaults to the preset's"
})
const TimeoutSeconds = Schema.Int.pipe(Schema.between(1, 600)).annotations({ description: "Seconds to wait for the first byte of an answer (default 60)" })
const ApiKey = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096)).annotations({ description: "Write-only: stored encrypted, never returned" })

const gatewayFields = {
  gatewayKey: GatewayKey,
  displayName: DisplayName,
  preset: GatewayPreset,
  baseUrl: Schema.optional(BaseUrl),
  requestTimeoutSeconds: Schema.optional(TimeoutSeconds),
  enabled: Schema.optional(Schema.Boolean),
  supportsProviderReasoningEffort: Schema.optional(Schema.Boolean)
}

export const CreateGateway = Body(gatewayFields).annotations({ identifier: "CreateGateway" })

export const UpdateGateway = Body({
  displayName: Schema.optional(DisplayName),
  baseUrl: Schema.optional(BaseUrl),
  requestTimeoutSeconds: Schema.optional(TimeoutSeconds),
  enabled: Schema.optional(Schema.Boolean),
  supportsProviderReasoningEffort: Schema.optional(Schema.Boolean),
  version: Schema.Int.annotations({ description: "The version read; a stale one is 409 VERSION_CONFLICT" })
}).annotations({ identifier: "UpdateGateway", description: "Fields left out keep their value" })

export const SetGatewayCredential = Body({ apiKey: ApiKey }).annotations({ identifier: "SetGatewayCredential" })

export const TestUnsavedGateway = Body({
  ...gatewayFields,
  gatewayKey: Schema.optional(GatewayKey),
  displayName: Schema.optional(DisplayName),
  apiKey: Schema.optional(ApiKey)
}).annotations({ identifier: "TestUnsavedGateway" })

export const AssistantModelInput = Schema.Struct({
  id: Schema.optional(Schema.UUID),
  modelId: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  displayName: DisplayName
}).annotations({ identifier: "AssistantModelInput" })

export const AssistantModels = Schema.Array(AssistantModelInput).pipe(Schema.maxItems(100)).annotations({
  parseOptions: { onExcessProperty: "error", errors: "all" }
})

export const GatewayTest = Schema.Struct({
  authenticated: Schema.Boolean,
  models: Schema.Array(Schema.Struct({ id: Schema.String, displayName: Schema.String })),
  errorCode: Schema.NullOr(GatewayTestError),
  errorMessage: Schema.NullOr(Schema.String).annotations({ description: "What went wrong, in words; never the API key" }),
  durationMillis: Schema.Int
}).annotations({ identifier: "GatewayTest" })

export const AiRoute = Schema.Struct({
  workload: Workload,
  gatewayKey: Schema.String,
  gatewayProfileId: Schema.UUID,
  modelId: Schema.String,
  providerReasoningEffort: Schema.optional(ReasoningEffort),
  dimensions: Schema.optional(Schema.Int).annotations({ description: "The vector size of an embedding route (added)" }),
  source: RouteSource,
  editable: Schema.Boolean,
  version: Schema.Int.annotations({ description: "0 while the workload has no admin route (send 0 to create one)" }),
  lifecycleNote: Schema.optional(Schema.String)
}).annotations({ identifier: "AiRoute" })

export const SetRoute = Body({
  gatewayProfileId: Schema.UUID,
  modelId: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  providerReasoningEffort: Schema.optional(ReasoningEffort),
  dimensions: Schema.optional(Schema.Int.pipe(Schema.between(1, 16_000))).annotations({
    description: "Required for QUERY_EMBEDDING and DOCUMENT_EMBEDDING to a gateway other than LOCAL: the size of the model's vectors (added)"
  }),
  version: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "The route's version as read (0 when it has no admin route yet)" }),
  force: Schema.optional(Schema.Boolean).annotations({
    description: "Route to the gateway even if its test fails (added; default false: a failing test answers 422 GATEWAY_TEST_FAILED)"
  })
}).annotations({ identifier: "SetRoute" })

export const Reembedding = Schema.Struct({
  generation: Schema.Int,
  embeddingProvider: Schema.String,
  embeddingModel: Schema.String,
  gatewayKey: Schema.String,
  dimensions: Schema.Int,
  chunksEmbedded: Schema.Int,
  chunksTotal: Schema.Int,
  jobId: Schema.NullOr(Schema.String),
  jobStatus: Schema.NullOr(Schema.String).annotations({ description: "QUEUED, RUNNING, ... of the durable job that embeds the chunks" }),
  startedAt: Timestamp
}).annotations({ identifier: "Reembedding" })

export const IndexSettings = Schema.Struct({
  embeddingProvider: Schema.String,
  embeddingModel: Schema.String,
  dimensions: Schema.Int,
  distanceMetric: Schema.String,
  managementMode: Schema.String,
  editable: Schema.Boolean,
  lifecycleNote: Schema.String,
  generation: Schema.NullOr(Schema.Int).annotations({ description: "The embedding generation search uses; null when search is lexical (added)" }),
  reembedding: Schema.NullOr(Reembedding).annotations({ description: "The re-embedding in progress, if any (added)" })
}).annotations({ identifier: "IndexSettings" })

const UsageTotals = {
  calls: Schema.Int,
  failedCalls: Schema.Int,
  inputTokens: Schema.Int,
  outputTokens: Schema.Int,
  durationMillis: Schema.Int
}

export const AiUsage = Schema.Struct({
  since: Timestamp,
  until: Timestamp,
  totals: Schema.Struct(UsageTotals),
  byDay: Schema.Array(Schema.Struct({ day: Schema.String.annotations({ description: "UTC day, YYYY-MM-DD" }), ...UsageTotals })),
  byWorkload: Schema.Array(Schema.Struct({ workload: Workload, ...UsageTotals })),
  byGateway: Schema.Array(Schema.Struct({ gatewayKey: Schema.String, ...UsageTotals })),
  byModel: Schema.Array(Schema.Struct({ gatewayKey: Schema.String, modelId: Schema.String, ...UsageTotals }))
}).annotations({ identifier: "AiUsage", description: "Model calls in [since, until): LOCAL's are counted too, with zero tokens" })

const UsageQuery = Query({
  since: Schema.optional(Timestamp).annotations({ description: "Start, inclusive (default: 30 days before until)" }),
  until: Schema.optional(Timestamp).annotations({ description: "End, exclusive (default: now)" })
})

const GatewayPath = Schema.Struct({ profileId: Schema.UUID })
const WorkloadPath = Schema.Struct({ workload: Workload })
const VersionQuery = Query({ version: Schema.optional(IntegerParam(0, 2_147_483_647)) })

export class AiAdminApi extends HttpApiGroup.make("adminAi")
  .add(HttpApiEndpoint.get("listProviders", "/admin/ai/providers").addSuccess(Schema.Array(ProviderPreset)).pipe(requires("ai.manage")))
  .add(HttpApiEndpoint.get("listGateways", "/admin/ai/gateways").addSuccess(Schema.Array(Gateway)).pipe(requires("ai.manage")))
  .add(
    HttpApiEndpoint.post("createGateway", "/admin/ai/gateways")
      .setPayload(CreateGateway)
      .addSuccess(created(Gateway))
      .addError(GatewayKeyTaken)
      .addError(InvalidGateway)
      .pipe(requires("ai.manage"))
  )
  .add(
    HttpApiEndpoint.post("testUnsavedGateway", "/admin/ai/gateways/test")
      .setPayload(TestUnsavedGateway)
      .addSuccess(GatewayTest)
      .addError(InvalidGateway)
      .pipe(requires("ai.manage"))
  )
  .add(
    HttpApiEndpoint.put("updateGateway", "/admin/ai/gateways/:profileId")
      .setPath(GatewayPath)
      .setPayload(UpdateGateway)
      .addSuccess(Gateway)
      .addError(GatewayNotFound)
      .addError(GatewayNotEditable)
      .addError(AiVersionConflict)
      .addError(InvalidGateway)
      .pipe(requires("ai.manage"))
  )
  .add(
    HttpApiEndpoint.del("deleteGateway", "/admin/ai/gateways/:profileId")
      .setPath(GatewayPath)
      .setUrlParams(VersionQuery)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(GatewayNotFound)
      .addError(GatewayNotEditable)
      .addError(GatewayInUse)
      .addError(AiVersionConflict)
      .pipe(requires("ai.manage"))
  )
  .add(
    HttpApiEndpoint.put("setGatewayCredential", "/admin/ai/gateways/:profileId/credential")
      .setPath(GatewayPath)
      .setPayload(SetGatewayCredential)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(GatewayNotFound)
      .addError(GatewayNotEditable)
      .pipe(requires("ai.manage"))
  )
  .add(
    HttpApiEndpoint.put("setAssistantModels", "/admin/ai/gateways/:profileId/assistant-models")
      .setPath(GatewayPath)
      .setPayload(AssistantModels)
      .addSuccess(Schema.Array(AssistantModel))
      .addError(GatewayNotFound)
      .addError(GatewayNotEditable)
      .addError(InvalidGateway)
      .pipe(requires("ai.manage"))
  )
  .add(
    HttpApiEndpoint.post("testGateway", "/admin/ai/gateways/:profileId/test")
      .setPath(GatewayPath)
      .addSuccess(GatewayTest)
      .addError(GatewayNotFound)
      .pipe(requires("ai.manage"))
  )
  .add(HttpApiEndpoint.get("listRoutes", "/admin/ai/routes").addSuccess(Schema.Array(AiRoute)).pipe(requires("ai.manage")))
  .add(
    HttpApiEndpoint.put("setRoute", "/admin/ai/routes/:workload")
      .setPath(WorkloadPath)
      .setPayload(SetRoute)
      .addSuccess(AiRoute)
      .addError(GatewayNotFound)
      .addError(InvalidRoute)
      .addError(GatewayTestFailed)
      .addError(AiVersionConflict)
      .pipe(requires("ai.manage"))
  )
  .add(
    HttpApiEndpoint.del("resetRoute", "/admin/ai/routes/:workload")
      .setPath(WorkloadPath)
      .setUrlParams(VersionQuery)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(AiVersionConflict)
      .pipe(requires("ai.manage"))
  )
  .add(HttpApiEndpoint.get("getIndexSettings", "/admin/ai/index-settings").addSuccess(IndexSettings).pipe(requires("ai.manage")))
  .add(
    HttpApiEndpoint.get("getAiUsage", "/admin/ai/usage")
      .setUrlParams(UsageQuery)
      .addSuccess(AiUsage)
      .addError(InvalidUsagePeriod)
      .pipe(requires("ai.manage"))
  )
  .annotate(OpenApi.Title, "Administration: AI")
  .annotate(OpenApi.Description, "AI gateways and their write-only credentials, provider presets, workload routes, the search index's embedding settings and model usage") {}
