import { Schema } from "effect"

/** What Lore asks a model to do; each has its own route to a gateway and model. */
export const Workload = Schema.Literal(
  "ASSISTANT_CHAT",
  "PROMPT_EXECUTION",
  "KEYWORD_PLANNING",
  "GRAPH_EXTRACTION",
  "QUERY_EMBEDDING",
  "DOCUMENT_EMBEDDING"
).annotations({ identifier: "AiWorkload" })
export type Workload = typeof Workload.Type

export const isEmbeddingWorkload = (workload: Workload) => workload === "QUERY_EMBEDDING" || workload === "DOCUMENT_EMBEDDING"

/** The provider a gateway talks to (the contract's `PROVIDER` stands for these vendor names). */
export const GatewayPreset = Schema.Literal("OPENAI", "AZURE_OPENAI", "ANTHROPIC", "GEMINI", "OPENAI_COMPATIBLE", "LOCAL").annotations({
  identifier: "GatewayPreset"
})
export type GatewayPreset = typeof GatewayPreset.Type

/**
 * Who runs the models: the vendor's own API (DIRECT_PROVIDER, as the contract lists it), a cloud platform
 * reselling them (Azure), a server the organization runs itself (vLLM, Ollama, LM Studio, LiteLLM), or Lore.
 */
export const GatewayCategory = Schema.Literal("DIRECT_PROVIDER", "CLOUD_PLATFORM", "SELF_HOSTED", "BUILT_IN").annotations({
  identifier: "GatewayCategory"
})
export type GatewayCategory = typeof GatewayCategory.Type

/**
 * The wire protocol: the OpenAI API (bearer key; Gemini's OpenAI endpoint and self-hosted servers speak it
 * too), Azure OpenAI's v1 API (the same requests with an `api-key` header), Anthropic's Messages API
 * (`x-api-key`, `anthropic-version`), or LOCAL (in process, no network).
 */
export const GatewayProtocol = Schema.Literal("OPENAI_COMPATIBLE", "AZURE_OPENAI_COMPATIBLE", "ANTHROPIC_COMPATIBLE", "LOCAL").annotations({
  identifier: "GatewayProtocol"
})
export type GatewayProtocol = typeof GatewayProtocol.Type

export const ReasoningEffort = Schema.Literal("NONE", "MINIMAL", "LOW", "MEDIUM", "HIGH").annotations({ identifier: "ProviderReasoningEffort" })
export type ReasoningEffort = typeof ReasoningEffort.Type

/** Where a gateway comes from: Lore itself, the server's LORE_EMBEDDING_* settings, or an administrator. */
export const GatewaySource = Schema.Literal("BUILT_IN", "ENVIRONMENT", "ADMIN").annotations({ identifier: "GatewaySource" })
export type GatewaySource = typeof GatewaySource.Type

/** Where a workload's effective route comes from: Lore's default (LOCAL), LORE_EMBEDDING_*, or an administrator. */
export const RouteSource = Schema.Literal("DEFAULT", "ENVIRONMENT", "ADMIN").annotations({ identifier: "AiRouteSource" })
export type RouteSource = typeof RouteSource.Type

/** Why a gateway test failed (CREDENTIAL_UNREADABLE: the stored key was sealed under another server key). */
export const GatewayTestError = Schema.Literal("UNAUTHORIZED", "RATE_LIMITED", "UNREACHABLE", "TIMEOUT", "BAD_RESPONSE", "CREDENTIAL_UNREADABLE").annotations({
  identifier: "GatewayTestErrorCode"
})
export type GatewayTestError = typeof GatewayTestError.Type

/** The built-in offline gateway's fixed id (documented in docs/decisions.md). */
export const LOCAL_GATEWAY_ID = "00000000-0000-4000-a000-00000000000a"
/** The id of the read-only gateway made from LORE_EMBEDDING_* (present only when those are set). */
export const ENVIRONMENT_GATEWAY_ID = "00000000-0000-4000-a000-00000000000e"
