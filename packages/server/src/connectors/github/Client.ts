import { createAppAuth } from "@octokit/auth-app"
import { throttling } from "@octokit/plugin-throttling"
import { Octokit } from "@octokit/rest"
import Bottleneck from "bottleneck"
import { createHash } from "node:crypto"
import type { LoreSettings } from "../../Config"
import { guardedFetch, outboundPolicy } from "../../outbound/Guard"
import { fetchFailureCode, MAX_VENDOR_JSON_BYTES, readBoundedBody, VendorError, vendorStatusCode } from "../VendorHttp"
import { type GitHubConfig, type GitHubCredential, githubEndpoints } from "./Config"

/** Why a GitHub request gave nothing usable: the status when GitHub answered (401, 403, 404, 5xx), else 0. */
export class GitHubError extends VendorError {}

// plugin-throttling adds behaviour, not methods: the class keeps Octokit's type (and declarations stay portable).
const ThrottledOctokit: typeof Octokit = Octokit.plugin(throttling)

export interface GitHubClient {
  readonly octokit: Octokit
  readonly rest: Octokit["rest"]
  /** A GraphQL query at the GraphQL endpoint (an answer with `errors` fails). */
  readonly graphql: <A>(query: string, variables: Record<string, unknown>) => Promise<A>
  readonly counters: { tokensMinted: number; throttled: number }
  readonly endpoints: { readonly rest: string; readonly graphql: string }
}

const NULL_BODY = new Set([101, 204, 205, 304])
const MAX_THROTTLE_RETRIES = 3
const MAX_THROTTLE_WAIT_SECONDS = 60

/**
 * The guarded fetch with every body read within MAX_VENDOR_JSON_BYTES before Octokit sees it (Octokit would read
 * any size): a larger answer is cut off and fails TOO_LARGE.
 */
const boundedFetch = (fetch: typeof globalThis.fetch): typeof globalThis.fetch =>
  (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init)
    const bytes = await readBoundedBody(response, MAX_VENDOR_JSON_BYTES)
    if (bytes === null) throw new GitHubError(response.status, "TOO_LARGE", "GitHub's answer is too large")
    return new Response(NULL_BODY.has(response.status) || bytes.byteLength === 0 ? null : (bytes as unknown as BodyInit), { status: response.status, statusText: response.statusText, headers: response.headers })
  }) as typeof globalThis.fetch

/** GraphQL queries one at a time per installation, without plugin-throttling's 1 s spacing meant for writes. */
const graphqlQueue = new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 })

/** App authentications kept between crawl steps, so an installation token (an hour) serves many steps. */
const appAuths = new Map<string, ReturnType<typeof createAppAuth>>()
const MAX_APP_AUTHS = 50

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined }

/** An error Octokit threw (a RequestError, perhaps around the fetch's own) as a GitHubError with a stable code. */
export const githubErrorOf = (error: unknown): GitHubError => {
  if (error instanceof GitHubError) return error
  const cause = (error as { cause?: unknown })?.cause
  if (cause instanceof GitHubError) return cause
  if (cause !== undefined && (cause as { code?: string })?.code === "ADDRESS_NOT_ALLOWED") return new GitHubError(0, "ADDRESS_NOT_ALLOWED", "The GitHub address is not allowed")
  if ((error as { code?: string })?.code === "ADDRESS_NOT_ALLOWED") return new GitHubError(0, "ADDRESS_NOT_ALLOWED", "The GitHub address is not allowed")
  const status = Number((error as { status?: number })?.status ?? 0)
  if (status === 304) return new GitHubError(304, "NOT_MODIFIED", "Not modified")
  if (status === 500 && cause !== undefined) {
    const code = fetchFailureCode(cause)
    return new GitHubError(0, code, code === "ADDRESS_NOT_ALLOWED" ? "The GitHub address is not allowed" : "GitHub could not be reached")
  }
  if (status > 0) return new GitHubError(status, status === 403 && /rate limit/i.test(String((error as Error).message)) ? "RATE_LIMITED" : vendorStatusCode(status), `GitHub answered ${status}`)
  return new GitHubError(0, "SOURCE_ERROR", `GitHub's answer could not be used: ${String((error as Error)?.message ?? error).slice(0, 200)}`)
}

/**
 * Octokit (REST and GraphQL) over the shared outbound guard: its `request.fetch` is Lore's guarded fetch (bodies
 * bounded), its base URL the configured GitHub Enterprise Server root or github.com's (replaced only by
 * LORE_CONNECTOR_BASE_URLS). An App installation is authenticated by @octokit/auth-app (an RS256 JWT exchanged
 * for an installation token, re-minted before it expires and once after a 401); primary and secondary rate limits
 * are waited out by @octokit/plugin-throttling (at most 3 times, at most 60 s each).
 */
const makeClient = (config: GitHubConfig, credential: GitHubCredential, settings: LoreSettings): GitHubClient => {
  const endpoints = githubEndpoints(config, settings)
  const fetch = boundedFetch(guardedFetch(outboundPolicy(settings), { maxRedirects: 3, timeoutMs: 60_000 }))
  const counters = { tokensMinted: 0, throttled: 0 }
  const id = createHash("sha256").update(endpoints.rest).update(JSON.stringify(credential)).digest("hex").slice(0, 24)
  // The kept authentication holds its fetch: it serves only the same addresses under the same guard policy.
  const authKey = createHash("sha256").update(id).update(JSON.stringify(settings.allowedPrivateHosts)).digest("hex")
  const retryOrGive = (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) => {
    counters.throttled++
    return retryCount < MAX_THROTTLE_RETRIES && retryAfter <= MAX_THROTTLE_WAIT_SECONDS
  }
  const octokit = new ThrottledOctokit({
    baseUrl: endpoints.rest,
    request: { fetch },
    log: quiet,
    userAgent: "lore-connector",
    throttle: { id, write: graphqlQueue, onRateLimit: retryOrGive, onSecondaryRateLimit: retryOrGive }
  })

  let auth: (refresh: boolean) => Promise<string>
  if (credential.kind === "TOKEN") {
    auth = async () => credential.token
  } else {
    let appAuth = appAuths.get(authKey)
    if (!appAuth) {
      // The token exchange goes through its own Octokit (same guarded fetch, no auth hook of ours).
      const bare = new Octokit({ baseUrl: endpoints.rest, request: { fetch }, log: quiet, userAgent: "lore-connector" })
      appAuth = createAppAuth({ appId: credential.appId, privateKey: credential.privateKeyPem, installationId: credential.installationId, request: bare.request })
      if (appAuths.size >= MAX_APP_AUTHS) appAuths.delete(appAuths.keys().next().value!)
      appAuths.set(authKey, appAuth)
    }
    const installation = appAuth
    auth = async (refresh) => {
      const before = Date.now()
      const result = await installation({ type: "installation", refresh })
      if (refresh || Date.parse(result.createdAt) >= before - 1000) counters.tokensMinted++
      return result.token
    }
  }
  octokit.hook.wrap("request", async (request, options) => {
    for (let attempt = 0; ; attempt++) {
      let token: string
      try {
        token = await auth(attempt > 0)
      } catch (error) {
        throw githubErrorOf(error)
      }
      try {
        options.headers.authorization = `token ${token}`
        return await request(options)
      } catch (error) {
        const failure = githubErrorOf(error)
        // An installation token expired or revoked early: mint a new one, once; a fine-grained token has no second.
        if (failure.status === 401 && credential.kind === "APP" && attempt === 0) continue
        throw failure
      }
    }
  })

  const graphql = <A>(query: string, variables: Record<string, unknown>): Promise<A> =>
    octokit.graphql<A>({ ...variables, query, url: endpoints.graphql }).catch((error: unknown) => {
      const errors = (error as { errors?: ReadonlyArray<{ type?: string; message?: string }> }).errors
      if (errors) throw new GitHubError(200, errors.some((e) => e.type === "FORBIDDEN") ? "PERMISSION_DENIED" : errors.some((e) => e.type === "NOT_FOUND") ? "NOT_FOUND" : "SOURCE_ERROR", `GitHub GraphQL: ${String(errors[0]?.message ?? "error").slice(0, 200)}`)
      throw githubErrorOf(error)
    })

  return { octokit, rest: octokit.rest, graphql, counters, endpoints }
}


/** Clients kept between crawl steps (their connections, token and rate-limit queues), per credential, config and guard policy. */
const clients = new Map<string, GitHubClient>()
const MAX_CLIENTS = 20

export const githubClient = (config: GitHubConfig, credential: GitHubCredential, settings: LoreSettings): GitHubClient => {
  const key = createHash("sha256")
    .update(JSON.stringify([config.baseUrl, githubEndpoints(config, settings), credential, settings.allowedPrivateHosts]))
    .digest("hex")
  const kept = clients.get(key)
  if (kept) return kept
  const client = makeClient(config, credential, settings)
  if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value!)
  clients.set(key, client)
  return client
}

/** A failure as an attempt records it; `fatal` when the whole step cannot go on (credential, address, outage). */
export const failureOf = (error: unknown, fallback = "CRAWL_FAILED") => {
  const failure = error instanceof GitHubError ? error : (error as { status?: unknown })?.status !== undefined || (error as { cause?: unknown })?.cause !== undefined ? githubErrorOf(error) : null
  return failure
    ? { code: failure.code, message: failure.message, fatal: failure.code === "AUTHENTICATION_FAILED" || failure.code === "ADDRESS_NOT_ALLOWED" || failure.code === "SOURCE_UNREACHABLE" }
    : { code: fallback, message: String((error as Error)?.message ?? error).slice(0, 300), fatal: false }
}
