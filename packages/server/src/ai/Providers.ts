import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import type { EmbeddingModelV3, LanguageModelV3 } from "@ai-sdk/provider"
import type { GatewayProtocol } from "./Model"

/** What a provider library needs to reach one gateway: where, with which key, through Lore's fetch. */
export interface ProviderConnection {
  readonly protocol: Exclude<GatewayProtocol, "LOCAL">
  /** The API base including its version path (`.../v1`, Azure's `.../openai/v1`), maybe with a query string. */
  readonly baseUrl: string
  readonly apiKey: string | undefined
  readonly fetch: typeof globalThis.fetch
}

/** The base URL without its query string, and that query as parameters (Azure's `api-version`). */
const splitQuery = (baseUrl: string) => {
  const url = new URL(baseUrl)
  const queryParams = Object.fromEntries(url.searchParams)
  url.search = ""
  url.hash = ""
  return { baseURL: url.toString().replace(/\/+$/, ""), queryParams }
}

/**
 * The chat-completions provider for OpenAI, Azure OpenAI's v1 API (the same requests, the key in `api-key`
 * instead of a bearer token), Gemini's OpenAI endpoint and self-hosted servers (vLLM, Ollama, LM Studio,
 * LiteLLM). Structured output is asked as `json_schema` (all of them take it), and streams report usage.
 */
const openAiCompatible = (connection: ProviderConnection) => {
  const { baseURL, queryParams } = splitQuery(connection.baseUrl)
  const azure = connection.protocol === "AZURE_OPENAI_COMPATIBLE"
  return createOpenAICompatible({
    name: "lore",
    baseURL,
    ...(Object.keys(queryParams).length > 0 ? { queryParams } : {}),
    ...(connection.apiKey === undefined ? {} : azure ? { headers: { "api-key": connection.apiKey } } : { apiKey: connection.apiKey }),
    includeUsage: true,
    supportsStructuredOutputs: true,
    fetch: connection.fetch
  })
}

/** The provider option key the chat-completions provider reads (besides `openaiCompatible`). */
export const OPENAI_COMPATIBLE_OPTIONS = "lore"

/** The gateway's chat model: Anthropic's Messages API, or chat completions. */
export const chatModel = (connection: ProviderConnection, modelId: string): LanguageModelV3 =>
  connection.protocol === "ANTHROPIC_COMPATIBLE"
    ? createAnthropic({
        baseURL: splitQuery(connection.baseUrl).baseURL,
        // Never the ANTHROPIC_API_KEY of the server's environment: a gateway without a key sends none (Lore's fetch drops the empty header).
        apiKey: connection.apiKey ?? "",
        fetch: connection.fetch
      }).messages(modelId)
    : openAiCompatible(connection).chatModel(modelId)

/** The gateway's embedding model (`POST {base}/embeddings`); Anthropic has none. */
export const embeddingModel = (connection: ProviderConnection, modelId: string): EmbeddingModelV3 =>
  openAiCompatible(connection).embeddingModel(modelId)
