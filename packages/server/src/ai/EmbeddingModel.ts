import { APICallError } from "ai"
import { Chunk, type ConfigError, Duration, Effect, Either, Layer, Option, Redacted, Ref } from "effect"
import { createHash } from "node:crypto"
import { checkEmbeddings, providerMessageOf, retryAfterMsOf } from "./EmbeddingAnswers"
import { EmbeddingError, type EmbeddingErrorCode } from "./EmbeddingError"
import { type EmbeddingEndpoint, type EmbeddingEndpointOptions, EmbeddingSettings } from "./EmbeddingSettings"
import { GatewayCallError, gatewayFetch, transportCause } from "./GatewayFetch"
import { embeddingModel } from "./Providers"

/** Providers such as nomic-embed-text or e5 embed questions and passages differently (see the prefixes in the settings). */
export type EmbeddingPurpose = "document" | "query"

export interface EmbeddingModelInfo {
  /** "openai" or "openai-compatible". */
  readonly provider: string
  readonly model: string
  readonly dimensions: number
  /**
   * Identifies the vector space: vectors stored under one profile key are comparable with each other and
   * with query vectors of the same key. Changing the model, the dimensions or the document prefix changes
   * it (stored vectors then need embedding again); changing the URL or the key does not.
   */
  readonly profileKey: string
}

export interface EmbeddingModelShape {
  /** None when no embedding model is configured: Lore then searches lexically only. */
  readonly info: Option.Option<EmbeddingModelInfo>
  /**
   * One unit-length vector per text, in order (cosine similarity = dot product). Empty or blank texts get
   * a zero vector without being sent. Fails with EMBEDDING_NOT_CONFIGURED when `info` is none.
   */
  readonly embed: (texts: ReadonlyArray<string>, purpose: EmbeddingPurpose) => Effect.Effect<ReadonlyArray<Float32Array>, EmbeddingError>
  /** `embed`, with the input tokens the provider reported (`usage.prompt_tokens`, 0 when it reports none). */
  readonly embedCounted: (texts: ReadonlyArray<string>, purpose: EmbeddingPurpose) => Effect.Effect<EmbeddedTexts, EmbeddingError>
}

export interface EmbeddedTexts {
  readonly vectors: ReadonlyArray<Float32Array>
  readonly inputTokens: number
}

/** The input tokens the provider reported (OpenAI's `usage.prompt_tokens`), 0 when it reports none. */
const tokensOf = (tokens: number | undefined): number =>
  typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0 ? Math.round(tokens) : 0

export const embeddingProfileKey = (endpoint: Pick<EmbeddingEndpoint, "model" | "dimensions" | "documentPrefix">): string => {
  const base = `${endpoint.model}@${endpoint.dimensions}`
  if (endpoint.documentPrefix === "") return base
  return `${base}+${createHash("sha256").update(endpoint.documentPrefix).digest("hex").slice(0, 8)}`
}

const notConfiguredError = new EmbeddingError({
  code: "EMBEDDING_NOT_CONFIGURED",
  retryable: false,
  message: "No embedding model is configured: set LORE_EMBEDDING_URL, LORE_EMBEDDING_MODEL and LORE_EMBEDDING_DIMENSIONS."
})

const notConfigured: EmbeddingModelShape = {
  info: Option.none(),
  embed: (texts) => (texts.length === 0 ? Effect.succeed([]) : notConfiguredError),
  embedCounted: (texts) => (texts.length === 0 ? Effect.succeed({ vectors: [], inputTokens: 0 }) : notConfiguredError)
}

/** Whether requests carry `dimensions`; a provider that rejects it is asked without it from then on. */
interface Wire {
  readonly sendDimensions: boolean
}

interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
}

/** A client for one endpoint (the environment's, or an admin gateway's for a route). */
export const makeClient = (endpoint: EmbeddingEndpoint) =>
  Effect.gen(function* () {
    const wireRef = yield* Ref.make<Wire>({ sendDimensions: true })
    // The provider library speaks the protocol; Lore's fetch refuses redirects. Retries and the deadline are
    // this client's own (below), so the fetch neither retries nor times out by itself.
    const model = embeddingModel({
      protocol: endpoint.apiKeyHeader === "api-key" ? "AZURE_OPENAI_COMPATIBLE" : "OPENAI_COMPATIBLE",
      baseUrl: endpoint.url,
      apiKey: Option.getOrUndefined(Option.map(endpoint.apiKey, Redacted.value)),
      fetch: gatewayFetch({ attempts: 1 })
    }, endpoint.model)
    const embeddingsUrl = new URL(endpoint.url)
    embeddingsUrl.pathname = `${embeddingsUrl.pathname}/embeddings`
    const shownUrl = (() => {
      const url = new URL(endpoint.url)
      url.username = ""
      url.password = ""
      return url.toString()
    })()
    const where = `the embedding provider at ${shownUrl} (model ${endpoint.model})`
    const Where = `The embedding provider at ${shownUrl} (model ${endpoint.model})`
    const fail = (
      code: EmbeddingErrorCode,
      retryable: boolean,
      message: string,
      extra: { status?: number; providerMessage?: string | undefined; retryAfterMs?: number | undefined } = {}
    ) =>
      new EmbeddingError({
        code,
        retryable,
        message,
        ...(extra.status === undefined ? {} : { status: extra.status }),
        ...(extra.providerMessage === undefined ? {} : { providerMessage: extra.providerMessage }),
        ...(extra.retryAfterMs === undefined ? {} : { retryAfterMs: extra.retryAfterMs })
      })

    /** A failed answer (status, headers, body) as the error a caller can act on. */
    const refused = (answer: Answer): EmbeddingError => {
      const { status } = answer
      if (status >= 200 && status < 300) {
        return fail("EMBEDDING_INVALID_RESPONSE", false, `${Where} answered ${status} with something that is not an embeddings answer: ${JSON.stringify(answer.text.slice(0, 100))}. Check that LORE_EMBEDDING_URL points at an OpenAI-compatible API (Lore POSTs to ${embeddingsUrl}).`, { status })
      }
      const providerMessage = providerMessageOf(answer.text)
      const said = providerMessage === undefined ? "" : `: ${providerMessage.replace(/[.\s]+$/, "")}`
      const extra = { status, providerMessage, retryAfterMs: retryAfterMsOf(answer.headers) }
      if (status === 401 || status === 403) {
        const keyHint = Option.isSome(endpoint.apiKey)
          ? "Check that LORE_EMBEDDING_API_KEY is a valid key with access to this model."
          : "No API key is set: set LORE_EMBEDDING_API_KEY."
        return fail("EMBEDDING_UNAUTHORIZED", false, `${Where} refused the request (${status}${said}). ${keyHint}`, extra)
      }
      if (status === 429) {
        const wait = extra.retryAfterMs === undefined ? "" : ` It asked to retry after ${Math.ceil(extra.retryAfterMs / 1000)} s.`
        return fail("EMBEDDING_RATE_LIMITED", true, `${Where} is rate limiting Lore (429${said}).${wait} Wait, or raise the account's rate limit or quota.`, extra)
      }
      if (status === 408 || status === 409 || status >= 500) {
        return fail("EMBEDDING_UNAVAILABLE", true, `${Where} failed with ${status}${said}. It may be overloaded, restarting or still loading the model.`, extra)
      }
      if (status === 404) {
        return fail("EMBEDDING_REJECTED", false, `${Where} answered 404${said}. Check that LORE_EMBEDDING_URL is the API base including /v1 (Lore POSTs to ${embeddingsUrl}) and that the server has the model "${endpoint.model}" (LORE_EMBEDDING_MODEL).`, extra)
      }
      if (status >= 400) {
        return fail("EMBEDDING_REJECTED", false, `${Where} rejected the request (${status}${said}). Check LORE_EMBEDDING_MODEL and LORE_EMBEDDING_DIMENSIONS; an input may also be too long for the model.`, extra)
      }
      return fail("EMBEDDING_INVALID_RESPONSE", false, `${Where} answered with status ${status}, not an embeddings answer. Check LORE_EMBEDDING_URL (Lore POSTs to ${embeddingsUrl}).`, extra)
    }

    const timeoutSeconds = Math.round(endpoint.requestTimeoutMs / 100) / 10
    /** What went wrong with one request: the provider's answer, or no answer at all. */
    const failureOf = (error: unknown): EmbeddingError => {
      const tooLarge = [error, (error as { cause?: unknown } | null)?.cause].find((candidate) => candidate instanceof GatewayCallError && candidate.reason === "TOO_LARGE")
      if (tooLarge) return fail("EMBEDDING_INVALID_RESPONSE", false, `${Where} answered more than Lore reads: ${(tooLarge as Error).message}. Lower the batch size or check the model.`)
      if (APICallError.isInstance(error) && error.statusCode !== undefined) {
        return refused({ status: error.statusCode, headers: error.responseHeaders ?? {}, text: error.responseBody ?? error.message })
      }
      const cause = error instanceof GatewayCallError || APICallError.isInstance(error) || error instanceof TypeError ? transportCause(error) : String(error)
      return fail("EMBEDDING_UNAVAILABLE", true, `Could not reach ${where}: ${cause}. Check that it is running and that LORE_EMBEDDING_URL is right.`)
    }

    const postOnce = (inputs: ReadonlyArray<string>, wire: Wire) =>
      Effect.tryPromise({
        try: (abortSignal) => model.doEmbed({
          values: [...inputs],
          abortSignal,
          ...(wire.sendDimensions ? { providerOptions: { openaiCompatible: { dimensions: endpoint.dimensions } } } : {})
        }),
        catch: failureOf
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(endpoint.requestTimeoutMs),
          onTimeout: () =>
            fail("EMBEDDING_TIMEOUT", true, `${Where} did not answer within ${timeoutSeconds} s. It may be overloaded or still loading the model.`)
        }),
        Effect.flatMap((answer) =>
          Either.match(checkEmbeddings(answer.embeddings, answer.response?.body, { count: inputs.length, dimensions: endpoint.dimensions }), {
            onRight: (vectors): Effect.Effect<EmbeddedTexts, EmbeddingError> => Effect.succeed({ vectors, inputTokens: tokensOf(answer.usage?.tokens) }),
            onLeft: (reason) => {
              const sizeHint = /dimensions, expected/.test(reason)
                ? ` Set LORE_EMBEDDING_DIMENSIONS to the model's size, or use a model that supports the "dimensions" parameter.`
                : ""
              return Effect.fail(fail("EMBEDDING_INVALID_RESPONSE", false, `${Where} gave an answer Lore cannot use: ${reason}.${sizeHint}`))
            }
          }))
      )

    /** "Equal jitter": half the exponential delay, plus a random part of the other half. */
    const backoffMs = (retry: number) => {
      const ceiling = Math.min(endpoint.maxRetryDelayMs, endpoint.retryBaseDelayMs * 2 ** Math.min(retry, 20))
      return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2)
    }

    const withRetries = <A>(attempt: Effect.Effect<A, EmbeddingError>): Effect.Effect<A, EmbeddingError> => {
      const loop = (retry: number): Effect.Effect<A, EmbeddingError> =>
        Effect.catchAll(attempt, (error) => {
          if (!error.retryable) return Effect.fail(error)
          const delay = error.retryAfterMs ?? backoffMs(retry)
          // A Retry-After above the bound is left to the caller (the job queue), not waited out here.
          if (retry >= endpoint.maxRetries || delay > endpoint.maxRetryDelayMs) {
            const tries = retry === 0 ? "" : ` (gave up after ${retry + 1} attempts)`
            return Effect.fail(new EmbeddingError({ ...errorFields(error), message: `${error.message}${tries}` }))
          }
          return Effect.logWarning(`${error.code}: retrying in ${delay} ms (retry ${retry + 1} of ${endpoint.maxRetries})`).pipe(
            Effect.zipRight(Effect.sleep(Duration.millis(delay))),
            Effect.zipRight(Effect.suspend(() => loop(retry + 1)))
          )
        })
      return loop(0)
    }

    /** A provider that says it does not take `dimensions` is asked again without it, and from then on. */
    const adapt = (wire: Wire, error: EmbeddingError): Wire | undefined => {
      if (error.code !== "EMBEDDING_REJECTED" || (error.status !== 400 && error.status !== 422)) return undefined
      if (wire.sendDimensions && /dimension/i.test(error.providerMessage ?? "")) return { sendDimensions: false }
      return undefined
    }

    const embedBatch = (inputs: ReadonlyArray<string>): Effect.Effect<EmbeddedTexts, EmbeddingError> =>
      Effect.gen(function* () {
        const wire = yield* Ref.get(wireRef)
        const outcome = yield* Effect.either(withRetries(postOnce(inputs, wire)))
        if (Either.isRight(outcome)) return outcome.right
        const adapted = adapt(wire, outcome.left)
        if (adapted === undefined) return yield* outcome.left
        yield* Effect.logWarning(`${Where} rejected the request (${outcome.left.providerMessage}); asking again without the dimensions parameter`)
        yield* Ref.set(wireRef, adapted)
        return yield* embedBatch(inputs)
      })

    const embedCounted = (texts: ReadonlyArray<string>, purpose: EmbeddingPurpose) =>
      Effect.gen(function* () {
        const prefix = purpose === "query" ? endpoint.queryPrefix : endpoint.documentPrefix
        const positions: Array<number> = []
        texts.forEach((text, position) => {
          if (text.trim() !== "") positions.push(position)
        })
        const batches = Chunk.chunksOf(Chunk.unsafeFromArray(positions), endpoint.batchSize)
        const answered = yield* Effect.forEach(batches, (batch) => embedBatch(Chunk.toReadonlyArray(batch).map((position) => prefix + texts[position]!)), {
          concurrency: endpoint.concurrency
        })
        const vectors: Array<Float32Array> = texts.map(() => new Float32Array(endpoint.dimensions))
        let next = 0
        let inputTokens = 0
        for (const batch of answered) {
          inputTokens += batch.inputTokens
          for (const vector of batch.vectors) vectors[positions[next++]!] = vector
        }
        return { vectors: vectors as ReadonlyArray<Float32Array>, inputTokens }
      }).pipe(Effect.withSpan("EmbeddingModel.embed", { attributes: { purpose, inputs: texts.length, model: endpoint.model } }))

    return {
      info: Option.some({ provider: endpoint.provider, model: endpoint.model, dimensions: endpoint.dimensions, profileKey: embeddingProfileKey(endpoint) }),
      embed: (texts: ReadonlyArray<string>, purpose: EmbeddingPurpose) => Effect.map(embedCounted(texts, purpose), (embedded) => embedded.vectors),
      embedCounted
    } satisfies EmbeddingModelShape
  })

const errorFields = (error: EmbeddingError) => ({
  code: error.code,
  message: error.message,
  retryable: error.retryable,
  ...(error.status === undefined ? {} : { status: error.status }),
  ...(error.providerMessage === undefined ? {} : { providerMessage: error.providerMessage }),
  ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs })
})

/**
 * The embedding model, over the OpenAI-compatible `POST {url}/embeddings` (see EmbeddingSettings), spoken by
 * the AI SDK's openai-compatible provider through Lore's fetch. Inputs
 * go in batches of `batchSize`; each request has a timeout and is retried on 408/409/429/5xx, connection
 * failures and timeouts with exponential backoff, honoring Retry-After up to `maxRetryDelayMs`. Every
 * answer is checked (count, indices, dimensions, finite numbers) and its vectors L2-normalized.
 *
 * `Default` needs EmbeddingSettings; `fromEnv` and
 * `fromSettings(options)` provide the settings too.
 */
export class EmbeddingModel extends Effect.Service<EmbeddingModel>()("lore/EmbeddingModel", {
  effect: Effect.gen(function* () {
    const settings = yield* EmbeddingSettings
    if (Option.isNone(settings.endpoint)) return notConfigured
    const configured: EmbeddingModelShape = yield* makeClient(settings.endpoint.value)
    return configured
  })
}) {
  /** Configured from LORE_EMBEDDING_* (see EmbeddingSettings.fromEnv). */
  static readonly fromEnv: Layer.Layer<EmbeddingModel, ConfigError.ConfigError> = Layer.provide(EmbeddingModel.Default, EmbeddingSettings.fromEnv)
  /** Configured in code (tests, in-process servers); with no options, not configured. */
  static readonly fromSettings = (options?: EmbeddingEndpointOptions): Layer.Layer<EmbeddingModel> =>
    Layer.provide(EmbeddingModel.Default, EmbeddingSettings.layer(options))
}
