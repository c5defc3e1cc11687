import { Config, ConfigError, Context, Effect, Either, Layer, Option, Redacted } from "effect"

/**
 * Where and how to reach an OpenAI-compatible `/v1/embeddings` endpoint.
 *
 * `url` is the API base INCLUDING its version path, as in the OpenAI SDK's `baseURL`: Lore POSTs to
 * `${url}/embeddings`. Examples: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama),
 * `http://127.0.0.1:1234/v1` (LM Studio), `http://127.0.0.1:8000/v1` (vLLM). To forgive the usual slips,
 * a bare origin (`http://127.0.0.1:11434`) gets `/v1` appended, and a trailing `/` or `/embeddings` is dropped.
 */
export interface EmbeddingEndpoint {
  /** Normalized base URL (no trailing slash); requests go to `${url}/embeddings`. */
  readonly url: string
  readonly model: string
  /**
   * Size of the vectors. Sent as `dimensions` in each request (models such as text-embedding-3-* shorten
   * their output to it; a provider that rejects the field is asked again without it) and checked in every
   * answer.
   */
  readonly dimensions: number
  readonly apiKey: Option.Option<Redacted.Redacted>
  /** How the key is sent: `Authorization: Bearer` (OpenAI and compatible servers) or Azure's `api-key` header. */
  readonly apiKeyHeader: "bearer" | "api-key"
  /** "openai" for api.openai.com, "openai-compatible" otherwise; reported in `EmbeddingModel.info`. */
  readonly provider: string
  /** Inputs per request. */
  readonly batchSize: number
  /** Requests in flight at once for one `embed` call. */
  readonly concurrency: number
  /** Deadline of one HTTP request, reading its answer included. */
  readonly requestTimeoutMs: number
  /** Retries of one request after a 408/409/429/5xx answer, a connection failure or a timeout. */
  readonly maxRetries: number
  /** First backoff delay; doubled on each retry, with jitter. */
  readonly retryBaseDelayMs: number
  /**
   * Longest wait before a retry. A Retry-After above it is not waited out: the call fails (retryable, with
   * `retryAfterMs`) so the job queue can schedule the next attempt instead of holding a worker.
   */
  readonly maxRetryDelayMs: number
  /** Prepended to each input by purpose (e.g. "search_query: " / "search_document: " for nomic-embed-text). */
  readonly queryPrefix: string
  readonly documentPrefix: string
}

export interface EmbeddingSettingsShape {
  /** None: no embedding model configured, Lore searches lexically only. */
  readonly endpoint: Option.Option<EmbeddingEndpoint>
}

export type EmbeddingEndpointOptions = Partial<Omit<EmbeddingEndpoint, "url" | "model" | "dimensions" | "apiKey" | "provider">> & {
  readonly url: string
  readonly model: string
  readonly dimensions: number
  readonly apiKey?: string | Redacted.Redacted
  readonly provider?: string
}

/**
 * Normalizes an embeddings base URL (see `EmbeddingEndpoint.url`); answers an error message for a URL that
 * is not http(s).
 */
export const normalizeEmbeddingUrl = (raw: string): Either.Either<string, string> => {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return Either.left(`"${raw}" is not a URL; expected e.g. http://127.0.0.1:11434/v1`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Either.left(`"${raw}" must be an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1`)
  }
  let path = url.pathname.replace(/\/+$/, "").replace(/\/embeddings$/, "")
  if (path === "") path = "/v1"
  url.pathname = path
  url.hash = ""
  // Keep a query string (Azure's api-version) but never a trailing slash before it.
  return Either.right(url.toString().replace(/\/(\?|$)/, "$1"))
}

const providerOf = (url: string) => (new URL(url).hostname === "api.openai.com" ? "openai" : "openai-compatible")

const defaults = {
  apiKeyHeader: "bearer",
  batchSize: 64,
  concurrency: 1,
  requestTimeoutMs: 30_000,
  maxRetries: 3,
  retryBaseDelayMs: 500,
  maxRetryDelayMs: 20_000,
  queryPrefix: "",
  documentPrefix: ""
} as const

const endpoint = (options: EmbeddingEndpointOptions): EmbeddingEndpoint => {
  const url = Either.getOrThrowWith(normalizeEmbeddingUrl(options.url), (message) => new Error(message))
  if (!Number.isInteger(options.dimensions) || options.dimensions <= 0) {
    throw new Error(`embedding dimensions must be a positive integer, got ${options.dimensions}`)
  }
  const { apiKey, ...rest } = options
  return {
    ...defaults,
    ...rest,
    url,
    provider: options.provider ?? providerOf(url),
    apiKey: apiKey === undefined || apiKey === "" ? Option.none() : Option.some(typeof apiKey === "string" ? Redacted.make(apiKey) : apiKey)
  }
}

/**
 * The embedding model Lore talks to, until admin-managed AI routes exist. `fromEnv` reads:
 *
 * - LORE_EMBEDDING_URL: base URL including `/v1` (unset or empty: no embeddings, lexical search only)
 * - LORE_EMBEDDING_MODEL: model name sent in each request (required with a URL)
 * - LORE_EMBEDDING_DIMENSIONS: vector size (required with a URL; vectors are stored at this size)
 * - LORE_EMBEDDING_API_KEY: sent as `Authorization: Bearer` when set
 */
export class EmbeddingSettings extends Context.Tag("lore/EmbeddingSettings")<EmbeddingSettings, EmbeddingSettingsShape>() {
  static readonly fromEnv = Layer.effect(
    EmbeddingSettings,
    Effect.gen(function* () {
      const rawUrl = yield* Config.string("LORE_EMBEDDING_URL").pipe(Config.withDefault(""))
      if (rawUrl.trim() === "") return EmbeddingSettings.disabled
      const url = yield* Either.match(normalizeEmbeddingUrl(rawUrl), {
        onLeft: (message) => Effect.fail(ConfigError.InvalidData(["LORE_EMBEDDING_URL"], message)),
        onRight: Effect.succeed
      })
      const required = <A>(config: Config.Config<A>, name: string, what: string) =>
        config.pipe(
          Effect.mapError((error) =>
            ConfigError.isMissingDataOnly(error)
              ? ConfigError.MissingData([name], `${name} is required when LORE_EMBEDDING_URL is set (${what})`)
              : error
          )
        )
      const model = yield* required(
        Config.nonEmptyString("LORE_EMBEDDING_MODEL"),
        "LORE_EMBEDDING_MODEL",
        "the model name, e.g. text-embedding-3-small or nomic-embed-text"
      )
      const dimensions = yield* required(
        Config.integer("LORE_EMBEDDING_DIMENSIONS").pipe(
          Config.validate({ message: "LORE_EMBEDDING_DIMENSIONS must be a positive integer", validation: (n) => n > 0 })
        ),
        "LORE_EMBEDDING_DIMENSIONS",
        "the size of the model's vectors, e.g. 1536 for text-embedding-3-small or 768 for nomic-embed-text"
      )
      const apiKey = yield* Config.option(Config.redacted("LORE_EMBEDDING_API_KEY"))
      return EmbeddingSettings.make({
        url,
        model,
        dimensions,
        apiKey: Option.getOrUndefined(Option.filter(apiKey, (key) => Redacted.value(key).length > 0))
      })
    })
  )

  /** No embedding model: Lore searches lexically only. */
  static readonly disabled: EmbeddingSettingsShape = { endpoint: Option.none() }

  /** Settings for tests and in-process servers, defaults filled in (throws on an invalid URL or size). */
  static readonly make = (options: EmbeddingEndpointOptions): EmbeddingSettingsShape => ({ endpoint: Option.some(endpoint(options)) })

  /** `Layer.succeed` of `make(options)`, or of `disabled` when given nothing. */
  static readonly layer = (options?: EmbeddingEndpointOptions) =>
    Layer.succeed(EmbeddingSettings, options === undefined ? EmbeddingSettings.disabled : EmbeddingSettings.make(options))
}
