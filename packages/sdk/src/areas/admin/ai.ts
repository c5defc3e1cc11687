import type { LoreFetchClient } from "../../fetchClient"
import { unwrap, unwrapEmpty } from "../../response"
import type {
  AiRoute,
  AiUsage,
  AiWorkload,
  AssistantModel,
  AssistantModelInput,
  CreateGateway,
  Gateway,
  GatewayTest,
  IndexSettings,
  ProviderPreset,
  SetRoute,
  TestUnsavedGateway,
  UpdateGateway
} from "../../generated/openapi"

/**
 * AI administration (`ai.manage`): provider presets, gateways with write-only credentials, which workload
 * runs on which gateway and model, and the search index's embedding settings. The built-in LOCAL gateway
 * (offline) and the one the server's LORE_EMBEDDING_* make are listed with `editable: false`.
 */
export class AdminAiArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** The providers Lore knows, with their protocol and default base URL. */
  providers(): Promise<Array<ProviderPreset>> {
    return unwrap(this.client.GET("/api/admin/ai/providers"))
  }

  gateways(): Promise<Array<Gateway>> {
    return unwrap(this.client.GET("/api/admin/ai/gateways"))
  }

  createGateway(input: CreateGateway): Promise<Gateway> {
    return unwrap(this.client.POST("/api/admin/ai/gateways", { body: input }))
  }

  /** Fields left out keep their value; `version` is the one read (409 VERSION_CONFLICT when stale). */
  updateGateway(profileId: string, input: UpdateGateway): Promise<Gateway> {
    return unwrap(this.client.PUT("/api/admin/ai/gateways/{profileId}", { params: { path: { profileId } }, body: input }))
  }

  /** 409 GATEWAY_IN_USE while a route uses it; `version` (optional) guards against deleting a gateway changed since read. */
  deleteGateway(profileId: string, version?: number): Promise<void> {
    const query = version === undefined ? {} : { version }
    return unwrapEmpty(this.client.DELETE("/api/admin/ai/gateways/{profileId}", { params: { path: { profileId }, query } }))
  }

  /** Write-only: the key is encrypted at rest and never returned; the gateway shows credentialSet, by whom and when. */
  setCredential(profileId: string, apiKey: string): Promise<void> {
    return unwrapEmpty(this.client.PUT("/api/admin/ai/gateways/{profileId}/credential", { params: { path: { profileId } }, body: { apiKey } }))
  }

  /** Replaces the models the assistant offers on this gateway. */
  setAssistantModels(profileId: string, models: Array<AssistantModelInput>): Promise<Array<AssistantModel>> {
    return unwrap(this.client.PUT("/api/admin/ai/gateways/{profileId}/assistant-models", { params: { path: { profileId } }, body: models }))
  }

  /** Lists the provider's models with the stored key: `authenticated`, `models`, or an `errorCode`. */
  testGateway(profileId: string): Promise<GatewayTest> {
    return unwrap(this.client.POST("/api/admin/ai/gateways/{profileId}/test", { params: { path: { profileId } } }))
  }

  /** Tests settings before saving them; `apiKey` is used for this call only. */
  testUnsavedGateway(input: TestUnsavedGateway): Promise<GatewayTest> {
    return unwrap(this.client.POST("/api/admin/ai/gateways/test", { body: input }))
  }

  /** Every workload's effective route and where it comes from (DEFAULT, ENVIRONMENT, ADMIN). */
  routes(): Promise<Array<AiRoute>> {
    return unwrap(this.client.GET("/api/admin/ai/routes"))
  }

  /**
   * `version` is the route's as read: 0 while it has no admin route. The embedding workloads need `dimensions`.
   * Changing DOCUMENT_EMBEDDING queues a re-embedding (the route's lifecycleNote says so; follow it with `indexSettings()`).
   */
  setRoute(workload: AiWorkload, input: SetRoute): Promise<AiRoute> {
    return unwrap(this.client.PUT("/api/admin/ai/routes/{workload}", { params: { path: { workload } }, body: input }))
  }

  /** Returns the workload to its default (the environment's embeddings, or LOCAL). */
  resetRoute(workload: AiWorkload, version?: number): Promise<void> {
    const query = version === undefined ? {} : { version }
    return unwrapEmpty(this.client.DELETE("/api/admin/ai/routes/{workload}", { params: { path: { workload }, query } }))
  }

  /** The embedding generation search ranks with, and `reembedding`: the one being built, with its progress and job. */
  indexSettings(): Promise<IndexSettings> {
    return unwrap(this.client.GET("/api/admin/ai/index-settings"))
  }

  /** Model calls, tokens and time by day, workload, gateway and model in [since, until) (default: the last 30 days). */
  usage(period: { readonly since?: Date | string; readonly until?: Date | string } = {}): Promise<AiUsage> {
    const iso = (value: Date | string) => (typeof value === "string" ? value : value.toISOString())
    const query = { ...(period.since === undefined ? {} : { since: iso(period.since) }), ...(period.until === undefined ? {} : { until: iso(period.until) }) }
    return unwrap(this.client.GET("/api/admin/ai/usage", { params: { query } }))
  }
}
