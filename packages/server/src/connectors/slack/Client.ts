import { LogLevel, type Logger, WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError, WebClient } from "@slack/web-api"
import type { LoreSettings } from "../../Config"
import { guardedFetch, outboundPolicy } from "../../outbound/Guard"
import { fetchFailureCode, MAX_VENDOR_JSON_BYTES, readBoundedBody, VendorError, vendorFailureOf, vendorStatusCode, waitedOutThrottling } from "../VendorHttp"
import type { SlackCredential } from "./Config"

/** Slack's Web API root: fixed, replaced only by the server setting LORE_CONNECTOR_BASE_URLS (`slack`). */
export const SLACK_API = "https://slack.com/api"

/** Why a Slack call gave nothing usable: the HTTP status (or what Slack's `error` amounts to), else 0. */
export class SlackError extends VendorError {
  constructor(status: number, code: string, message: string, readonly slackError: string | null = null) {
    super(status, code, message)
  }
}

/**
 * Slack's per-method tiers (requests a minute each method may take per workspace; bursts allowed): a method that
 * answered 429 keeps to its tier's pace for the rest of the client's life, and waits out the Retry-After first.
 * conversations.history and .replies are Tier 3 for internal apps (Slack gives non-Marketplace distributed apps
 * Tier 1 and 15 messages a call: docs/connectors/slack.md).
 */
export const METHOD_TIERS: Readonly<Record<string, number>> = {
  "auth.test": 4,
  "conversations.list": 2,
  "conversations.info": 3,
  "conversations.members": 4,
  "conversations.history": 3,
  "conversations.replies": 3,
  "users.list": 2
}
const PER_MINUTE: Readonly<Record<number, number>> = { 1: 1, 2: 20, 3: 50, 4: 100 }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Spacing per method after Slack throttled it: Retry-After first, then its tier's pace. */
export class TierPacer {
  private readonly pausedUntil = new Map<string, number>()
  private readonly paced = new Map<string, number>()
  private readonly last = new Map<string, number>()

  async before(method: string): Promise<void> {
    const now = Date.now()
    const paused = this.pausedUntil.get(method) ?? 0
    const interval = this.paced.get(method)
    const next = Math.max(paused, interval === undefined ? 0 : (this.last.get(method) ?? 0) + interval)
    if (next > now) await sleep(next - now)
    this.last.set(method, Date.now())
  }

  throttled(method: string, retryAfterSeconds: number): void {
    const seconds = Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0 ? Math.min(retryAfterSeconds, 30) : 1
    this.pausedUntil.set(method, Date.now() + seconds * 1000)
    this.paced.set(method, Math.ceil(60_000 / (PER_MINUTE[METHOD_TIERS[method] ?? 3] ?? 50)))
  }
}

const AUTH_ERRORS = new Set(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired", "org_login_required"])
const DENIED_ERRORS = new Set(["missing_scope", "not_allowed_token_type", "access_denied", "no_permission", "ekm_access_denied", "team_access_not_granted"])
const MISSING_ERRORS = new Set(["channel_not_found", "not_in_channel", "thread_not_found", "user_not_found"])

/** Slack's `ok: false` answer as an error: its `error` string says whether the token, a scope or the channel is at fault. */
const platformError = (method: string, data: { readonly error?: unknown; readonly needed?: unknown }) => {
  const error = typeof data.error === "string" && /^[a-z_]{1,60}$/.test(data.error) ? data.error : "unknown_error"
  const needed = typeof data.needed === "string" && /^[a-z:._, ]{1,200}$/.test(data.needed) ? ` (needs ${data.needed})` : ""
  if (AUTH_ERRORS.has(error)) return new SlackError(401, "AUTHENTICATION_FAILED", `Slack refused the token (${error}) on ${method}`, error)
  if (DENIED_ERRORS.has(error)) return new SlackError(403, "PERMISSION_DENIED", `Slack answered ${error} on ${method}${needed}`, error)
  if (MISSING_ERRORS.has(error)) return new SlackError(404, "NOT_FOUND", `Slack answered ${error} on ${method}`, error)
  if (error === "ratelimited") return new SlackError(429, "RATE_LIMITED", `Slack throttled ${method}`, error)
  return new SlackError(200, "SOURCE_ERROR", `Slack answered ${error} on ${method}`, error)
}

const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined
}

/**
 * Slack's own Web API client (@slack/web-api 8, which speaks fetch) on Lore's outbound guard: every request goes to
 * the Web API root (Slack's, or LORE_CONNECTOR_BASE_URLS `slack`) through the guarded fetch, throttling (429, 503) is
 * waited out here by Retry-After (capped, a few times) and paces the method by its tier, bodies are read within
 * MAX_VENDOR_JSON_BYTES. The client's own retries are off: what it would retry has been retried below it.
 */
export const slackClient = (credential: SlackCredential, settings: LoreSettings) => {
  const root = (settings.connectorBaseUrls.slack ?? SLACK_API).replace(/\/+$/, "")
  const origin = new URL(root).origin
  const guarded = guardedFetch(outboundPolicy(settings), { maxRedirects: 3, timeoutMs: 60_000 })
  const pacer = new TierPacer()
  const counters = { requests: 0, throttled: 0 }

  const fetch = async (input: string | URL, init?: { method?: string; headers?: Record<string, string>; body?: string | FormData; signal?: AbortSignal }): Promise<Response> => {
    const url = new URL(String(input))
    const method = url.pathname.split("/").pop() ?? ""
    if (url.origin !== origin) throw new SlackError(0, "ADDRESS_NOT_ALLOWED", "Slack's client asked for another host")
    for (let attempt = 0; ; attempt++) {
      await pacer.before(method)
      counters.requests++
      let response: Response
      try {
        response = await guarded(url, { method: init?.method ?? "POST", headers: init?.headers ?? {}, ...(init?.body !== undefined ? { body: init.body } : {}), ...(init?.signal ? { signal: init.signal } : {}) })
      } catch (error) {
        const code = fetchFailureCode(error)
        throw new SlackError(0, code, code === "ADDRESS_NOT_ALLOWED" ? `${url.host} is not an allowed address` : `${url.host} could not be reached`)
      }
      if (response.status === 429) {
        counters.throttled++
        pacer.throttled(method, Number(response.headers.get("retry-after")))
      }
      if (await waitedOutThrottling(response, attempt)) continue
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined)
        throw new SlackError(response.status, vendorStatusCode(response.status), `Slack answered ${response.status} on ${method.slice(0, 60)}`)
      }
      const body = await readBoundedBody(response, MAX_VENDOR_JSON_BYTES)
      if (body === null) throw new SlackError(response.status, "TOO_LARGE", `Slack's answer to ${method.slice(0, 60)} is too large`)
      return new Response(body as Uint8Array<ArrayBuffer>, { status: response.status, headers: response.headers })
    }
  }

  const web = new WebClient(credential.token, {
    slackApiUrl: `${root}/`,
    fetch: fetch as never,
    logger: silentLogger,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    allowAbsoluteUrls: false
  })

  /** One Web API call through the client's typed methods; every failure a SlackError. */
  const call = async <R>(method: string, run: (client: WebClient) => Promise<R>): Promise<R> => {
    try {
      return await run(web)
    } catch (error) {
      if (error instanceof SlackError) throw error
      if (error instanceof WebAPIRequestError) {
        if (error.original instanceof SlackError) throw error.original
        throw new SlackError(0, "SOURCE_UNREACHABLE", `Slack could not be reached on ${method}`)
      }
      if (error instanceof WebAPIPlatformError) throw platformError(method, error.data)
      if (error instanceof WebAPIHTTPError) throw new SlackError(error.statusCode, vendorStatusCode(error.statusCode), `Slack answered ${error.statusCode} on ${method}`)
      if (error instanceof WebAPIRateLimitedError) throw new SlackError(429, "RATE_LIMITED", `Slack throttled ${method}`)
      throw new SlackError(0, "SOURCE_ERROR", `Slack's answer to ${method} could not be read`)
    }
  }

  return { call, counters }
}

export type SlackClient = ReturnType<typeof slackClient>

/** A failure as an attempt records it (VendorHttp.ts). */
export const failureOf = vendorFailureOf
