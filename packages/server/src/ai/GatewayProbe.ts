import { FetchHttpClient, Headers, HttpClient, HttpClientRequest } from "@effect/platform"
import { Duration, Effect, Either } from "effect"
import type { GatewayProtocol, GatewayTestError } from "./Model"
import { localModels } from "./Presets"

/** What a gateway test reports (GatewayTest on the wire). */
export interface GatewayTestResult {
  readonly authenticated: boolean
  readonly models: ReadonlyArray<{ readonly id: string; readonly displayName: string }>
  readonly errorCode: GatewayTestError | null
  readonly errorMessage: string | null
  readonly durationMillis: number
}

export interface ProbeTarget {
  readonly protocol: GatewayProtocol
  readonly baseUrl: string
  readonly requestTimeoutSeconds: number
  readonly apiKey: string | undefined
}

/** Anthropic's API version header; the models list has been stable under it. */
export const ANTHROPIC_VERSION = "2023-06-01"

/** `${base}/models`, keeping a query string such as Azure's api-version. */
export const modelsUrl = (baseUrl: string) => {
  const url = new URL(baseUrl)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/models`
  return url.toString()
}

/** The request headers that carry the key, by protocol (Azure's `api-key` like OpenAI's bearer token). */
export const authHeaders = (protocol: GatewayProtocol, apiKey: string | undefined): Record<string, string> => {
  if (apiKey === undefined) return protocol === "ANTHROPIC_COMPATIBLE" ? { "anthropic-version": ANTHROPIC_VERSION } : {}
  switch (protocol) {
    case "ANTHROPIC_COMPATIBLE":
      return { "x-api-key": apiKey, "anthropic-version": ANTHROPIC_VERSION }
    case "AZURE_OPENAI_COMPATIBLE":
      return { "api-key": apiKey }
    default:
      return { authorization: `Bearer ${apiKey}` }
  }
}

/** A provider's own words, shortened, with the key taken out wherever it might be quoted back. */
const providerWords = (text: string, apiKey: string | undefined) => {
  let said = text
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown }
    const message = typeof body.error === "string" ? body.error : body.error?.message ?? body.message
    if (typeof message === "string") said = message
  } catch {
    // not JSON: the text itself
  }
  if (apiKey !== undefined && apiKey.length > 0) said = said.split(apiKey).join("[redacted]")
  said = said.replace(/\s+/g, " ").trim()
  return said.length > 200 ? `${said.slice(0, 200)}...` : said
}

const transportCause = (error: unknown): string => {
  let current: unknown = error
  let text = String(error)
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const { message, code } = current as { message?: unknown; code?: unknown }
    if (typeof message === "string" && message !== "") text = typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message
    current = (current as { cause?: unknown }).cause
  }
  return text
}

/** Reads a models list: OpenAI-style `{data: [{id}]}` or Anthropic's `{data: [{id, display_name}]}`. */
const modelsOf = (text: string): Either.Either<GatewayTestResult["models"], string> => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return Either.left("the answer is not JSON")
  }
  const data = (body as { data?: unknown } | null)?.data
  if (!Array.isArray(data)) return Either.left("the answer has no data array of models")
  const models: Array<{ id: string; displayName: string }> = []
  for (const entry of data) {
    const { id, display_name: displayName } = (entry ?? {}) as { id?: unknown; display_name?: unknown }
    if (typeof id !== "string" || id === "") return Either.left("a model in the answer has no id")
    models.push({ id, displayName: typeof displayName === "string" && displayName !== "" ? displayName : id })
  }
  return Either.right(models)
}

/** LOCAL answers at once: it runs in process and needs no key. */
export const localTestResult: GatewayTestResult = {
  authenticated: true,
  models: [...new Map(Object.values(localModels).map((model) => [model.modelId, { id: model.modelId, displayName: model.displayName }])).values()],
  errorCode: null,
  errorMessage: null,
  durationMillis: 0
}

/**
 * Tests a gateway by listing its models (`GET {baseUrl}/models`, which every supported protocol has): it
 * proves the URL, the key and the protocol in one cheap call that spends no tokens.
 */
export class GatewayProbe extends Effect.Service<GatewayProbe>()("lore/GatewayProbe", {
  effect: Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    return {
      test: (target: ProbeTarget): Effect.Effect<GatewayTestResult> => {
        if (target.protocol === "LOCAL") return Effect.succeed(localTestResult)
        const started = Date.now()
        const url = modelsUrl(target.baseUrl)
        const shown = (() => {
          const safe = new URL(url)
          safe.username = ""
          safe.password = ""
          safe.search = ""
          return safe.toString()
        })()
        const done = (result: Omit<GatewayTestResult, "durationMillis">): GatewayTestResult => ({ ...result, durationMillis: Date.now() - started })
        const failed = (errorCode: GatewayTestError, errorMessage: string) => done({ authenticated: false, models: [], errorCode, errorMessage })
        const request = HttpClientRequest.get(url).pipe(HttpClientRequest.acceptJson, HttpClientRequest.setHeaders(authHeaders(target.protocol, target.apiKey)))
        return client.execute(request).pipe(
          Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, text }))),
          // Never follow a redirect: fetch would carry x-api-key and api-key (not only authorization) to wherever it points.
          Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
          // Azure's key header, redacted like authorization and x-api-key wherever the request is inspected or logged.
          Effect.locallyWith(Headers.currentRedactedNames, (names) => [...names, "api-key"]),
          Effect.timeoutFail({ duration: Duration.seconds(target.requestTimeoutSeconds), onTimeout: () => "timeout" as const }),
          Effect.match({
            onFailure: (error) =>
              error === "timeout"
                ? failed("TIMEOUT", `${shown} did not answer within ${target.requestTimeoutSeconds} s (requestTimeoutSeconds)`)
                : failed("UNREACHABLE", `Could not reach ${shown}: ${providerWords(transportCause(error), target.apiKey)}`),
            onSuccess: ({ status, text }) => {
              const said = providerWords(text, target.apiKey)
              if (status === 401 || status === 403) {
                const hint = target.apiKey === undefined ? " No API key is set: PUT one to the gateway's credential." : ""
                return failed("UNAUTHORIZED", `${shown} refused the key (${status}${said ? `: ${said}` : ""}).${hint}`)
              }
              if (status === 429) return failed("RATE_LIMITED", `${shown} is rate limiting (429${said ? `: ${said}` : ""})`)
              if (status >= 300 && status < 400) return failed("BAD_RESPONSE", `${shown} answered ${status}, a redirect, which Lore does not follow with a key; set the base URL to where it points`)
              if (status < 200 || status >= 300) return failed("BAD_RESPONSE", `${shown} answered ${status}${said ? `: ${said}` : ""}; check the base URL (it includes the version path, e.g. /v1)`)
              return Either.match(modelsOf(text), {
                onLeft: (reason) => failed("BAD_RESPONSE", `${shown} answered ${status} but ${reason}; check the base URL and the preset`),
                onRight: (models) => done({ authenticated: true, models, errorCode: null, errorMessage: null })
              })
            }
          })
        )
      }
    }
  }),
  dependencies: [FetchHttpClient.layer]
}) {}
