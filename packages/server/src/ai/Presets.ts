import type { GatewayCategory, GatewayPreset, GatewayProtocol, Workload } from "./Model"

export interface ProviderPreset {
  readonly preset: GatewayPreset
  readonly displayName: string
  readonly vendorName: string
  readonly category: GatewayCategory
  readonly protocol: GatewayProtocol
  readonly defaultBaseUrl: string
  readonly baseUrlEditable: boolean
  readonly supportsProviderReasoningEffort: boolean
  readonly supportsEmbeddings: boolean
}

/**
 * The providers Lore knows. Base URLs include the API version path; Lore appends `/models`,
 * `/chat/completions`, `/embeddings` or `/messages`. Every base URL but LOCAL's is editable: proxies,
 * regional endpoints (EU data residency) and gateways such as LiteLLM sit in front of the same protocol.
 */
export const providerPresets: ReadonlyArray<ProviderPreset> = [
  {
    preset: "OPENAI", displayName: "OpenAI", vendorName: "OpenAI", category: "DIRECT_PROVIDER", protocol: "OPENAI_COMPATIBLE",
    defaultBaseUrl: "https://api.openai.com/v1", baseUrlEditable: true, supportsProviderReasoningEffort: true, supportsEmbeddings: true
  },
  {
    preset: "AZURE_OPENAI", displayName: "Azure OpenAI", vendorName: "Microsoft", category: "CLOUD_PLATFORM", protocol: "AZURE_OPENAI_COMPATIBLE",
    defaultBaseUrl: "https://YOUR-RESOURCE.openai.azure.com/openai/v1", baseUrlEditable: true, supportsProviderReasoningEffort: true, supportsEmbeddings: true
  },
  {
    preset: "ANTHROPIC", displayName: "Anthropic", vendorName: "Anthropic", category: "DIRECT_PROVIDER", protocol: "ANTHROPIC_COMPATIBLE",
    defaultBaseUrl: "https://api.anthropic.com/v1", baseUrlEditable: true, supportsProviderReasoningEffort: true, supportsEmbeddings: false
  },
  {
    preset: "GEMINI", displayName: "Google Gemini (OpenAI-compatible endpoint)", vendorName: "Google", category: "DIRECT_PROVIDER",
    protocol: "OPENAI_COMPATIBLE", defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta/openai", baseUrlEditable: true,
    supportsProviderReasoningEffort: true, supportsEmbeddings: true
  },
  {
    preset: "OPENAI_COMPATIBLE", displayName: "OpenAI-compatible server (vLLM, Ollama, LM Studio, LiteLLM)", vendorName: "Self-hosted",
    category: "SELF_HOSTED", protocol: "OPENAI_COMPATIBLE", defaultBaseUrl: "http://127.0.0.1:11434/v1", baseUrlEditable: true,
    supportsProviderReasoningEffort: false, supportsEmbeddings: true
  },
  {
    preset: "LOCAL", displayName: "Lore local (offline)", vendorName: "Lore", category: "BUILT_IN", protocol: "LOCAL",
    defaultBaseUrl: "local:", baseUrlEditable: false, supportsProviderReasoningEffort: false, supportsEmbeddings: false
  }
]

export const presetOf = (preset: GatewayPreset): ProviderPreset => providerPresets.find((candidate) => candidate.preset === preset)!

/**
 * What the LOCAL gateway runs for each workload: an extractive answerer (quotes and cites the retrieved
 * passages), deterministic keyword planning, a rule-based graph extractor, and no embeddings (lexical search).
 */
export const localModels: Record<Workload, { readonly modelId: string; readonly displayName: string }> = {
  ASSISTANT_CHAT: { modelId: "lore-extractive", displayName: "Lore extractive answers (offline)" },
  PROMPT_EXECUTION: { modelId: "lore-extractive", displayName: "Lore extractive answers (offline)" },
  KEYWORD_PLANNING: { modelId: "lore-keywords", displayName: "Lore keyword planning (offline)" },
  GRAPH_EXTRACTION: { modelId: "lore-rules", displayName: "Lore rule-based extraction (offline)" },
  QUERY_EMBEDDING: { modelId: "lore-lexical", displayName: "No embeddings: lexical search" },
  DOCUMENT_EMBEDDING: { modelId: "lore-lexical", displayName: "No embeddings: lexical search" }
}

/** LOCAL's assistant model, with a fixed id like the gateway's. */
export const localAssistantModel = { id: "00000000-0000-4000-a000-0000000000a1", ...localModels.ASSISTANT_CHAT, toolCalling: false }
