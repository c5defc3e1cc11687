import { createSign } from "node:crypto"
import type { LoreSettings } from "../../Config"
import { guardedFetch, outboundPolicy } from "../../outbound/Guard"
import { fetchFailureCode, readBoundedBody, readVendorJson, VendorError, vendorStatusCode, waitedOutRetryAfter, waitedOutThrottling } from "../VendorHttp"
import type { ServiceAccountKey } from "./Config"

export const DRIVE_ORIGIN = "https://www.googleapis.com"
export const ADMIN_ORIGIN = "https://admin.googleapis.com"

/** What domain-wide delegation must grant the service account's client id (Admin console), no more. */
export const GOOGLE_SCOPES = [
  "https://www.googleapis.com/auth/drive.readonly",
  "https://www.googleapis.com/auth/admin.directory.group.readonly",
  "https://www.googleapis.com/auth/admin.directory.user.readonly"
] as const

/**
 * Why a Drive or Directory request gave nothing usable: the status when Google answered, else 0, and Google's own
 * reason (`insufficientFilePermissions`, `exportSizeLimitExceeded`, `invalid_grant`...) when it gave one.
 */
export class GoogleDriveError extends VendorError {
  constructor(status: number, code: string, message: string, readonly reason: string | null = null) {
    super(status, code, message)
  }
}

/** Drive's, the Directory's and the token URL: fixed, replaced only by LORE_CONNECTOR_BASE_URLS (`google-drive`, `google-admin`, `google-token`). */
export const googleOrigins = (settings: LoreSettings, key: ServiceAccountKey) => ({
  drive: settings.connectorBaseUrls["google-drive"] ?? DRIVE_ORIGIN,
  admin: settings.connectorBaseUrls["google-admin"] ?? ADMIN_ORIGIN,
  token: settings.connectorBaseUrls["google-token"] ?? key.token_uri
})

const MAX_TOKEN_RESPONSE = 64 * 1024
const MAX_ERROR_BODY = 64 * 1024

/**
 * The signed assertion of RFC 7523 as Google's token endpoint takes it for a service account with domain-wide
 * delegation: RS256 with the key's private key, `kid` its id, `sub` the user acted as, `aud` the key's token_uri.
 */
export const serviceAccountAssertion = (key: ServiceAccountKey, subject: string, now = Math.floor(Date.now() / 1000)) => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
  const signingInput = `${encode({ alg: "RS256", typ: "JWT", kid: key.private_key_id })}.${encode({
    iss: key.client_email,
    sub: subject,
    scope: GOOGLE_SCOPES.join(" "),
    aud: key.token_uri,
    iat: now,
    exp: now + 3600
  })}`
  return `${signingInput}.${createSign("RSA-SHA256").update(signingInput).sign(key.private_key).toString("base64url")}`
}

/** Google's reason in an error answer (`error.errors[0].reason`, or an OAuth `error`), for messages and decisions. */
const reasonOf = (text: string): string | null => {
  try {
    const body = JSON.parse(text) as { error?: string | { errors?: ReadonlyArray<{ reason?: string }>; status?: string } }
    if (typeof body.error === "string") return body.error.slice(0, 80)
    return (body.error?.errors?.[0]?.reason ?? body.error?.status ?? null)?.slice(0, 80) ?? null
  } catch {
    return null
  }
}

const THROTTLED = new Set(["rateLimitExceeded", "userRateLimitExceeded"])

/**
 * The Drive API v3 and the Admin SDK Directory API over the shared outbound guard (REST: Google's own clients send
 * through gaxios, which the guard cannot see), with tokens for the service account acting as a user (domain-wide
 * delegation), one per subject, kept until a minute before they expire. 429 and 503, and 403 `rateLimitExceeded`, are
 * waited out by Retry-After (capped); a 401 is answered with a new token once before it counts as revoked.
 */
export const googleDriveClient = (key: ServiceAccountKey, settings: LoreSettings) => {
  const fetch = guardedFetch(outboundPolicy(settings), { maxRedirects: 3, timeoutMs: 60_000 })
  const origins = googleOrigins(settings, key)
  const held = new Map<string, { readonly token: string; readonly until: number }>()
  const counters = { tokensRequested: 0 }

  const fail = (error: unknown, what: string): never => {
    const code = fetchFailureCode(error)
    throw new GoogleDriveError(0, code, code === "ADDRESS_NOT_ALLOWED" ? `${what} is not an allowed address` : `${what} could not be reached`)
  }

  const token = async (subject: string, fresh: boolean): Promise<string> => {
    const kept = held.get(subject)
    if (!fresh && kept && kept.until > Date.now()) return kept.token
    counters.tokensRequested++
    const body = new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: serviceAccountAssertion(key, subject) })
    let response: Response
    try {
      response = await fetch(origins.token, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body: body.toString() })
    } catch (error) {
      return fail(error, "Google's token URL")
    }
    const text = (await readBoundedBody(response, MAX_TOKEN_RESPONSE)) ?? new Uint8Array()
    const answer = Buffer.from(text).toString("utf8")
    if (!response.ok) {
      // invalid_grant (key deleted, subject unknown or suspended), unauthorized_client (delegation not granted for these scopes).
      const reason = reasonOf(answer)
      if (response.status === 400 || response.status === 401 || response.status === 403) {
        throw new GoogleDriveError(401, "AUTHENTICATION_FAILED", `Google refused a token for ${subject.slice(0, 120)} (${reason ?? response.status})`, reason)
      }
      throw new GoogleDriveError(response.status, vendorStatusCode(response.status), `Google's token URL answered ${response.status}`, reason)
    }
    let parsed: { access_token?: unknown; expires_in?: unknown }
    try {
      parsed = JSON.parse(answer) as typeof parsed
    } catch {
      throw new GoogleDriveError(0, "SOURCE_ERROR", "Google's token answer is not JSON")
    }
    if (typeof parsed.access_token !== "string" || parsed.access_token.length === 0 || parsed.access_token.length > 8192) throw new GoogleDriveError(401, "AUTHENTICATION_FAILED", "Google gave no token")
    const seconds = typeof parsed.expires_in === "number" && parsed.expires_in > 0 ? Math.min(parsed.expires_in, 3600) : 300
    held.set(subject, { token: parsed.access_token, until: Date.now() + seconds * 1000 - 60_000 })
    return parsed.access_token
  }

  const request = async (api: "drive" | "admin", subject: string, path: string, accept: string): Promise<Response> => {
    const url = new URL(origins[api] + path)
    let unauthorized = 0
    let resent = false
    for (let attempt = 0; ; attempt++) {
      const bearer = await token(subject, unauthorized > 0)
      let response: Response
      try {
        response = await fetch(url, { headers: { authorization: `Bearer ${bearer}`, accept } })
      } catch (error) {
        // A kept-alive connection the server closed as it was reused: these GETs are idempotent, so once more.
        if (fetchFailureCode(error) === "SOURCE_UNREACHABLE" && !resent) {
          resent = true
          continue
        }
        return fail(error, url.host)
      }
      if (await waitedOutThrottling(response, attempt)) continue
      if (response.status === 401 && unauthorized++ === 0) {
        // The token expired or was revoked early: ask for a new one, once.
        await response.body?.cancel().catch(() => undefined)
        held.delete(subject)
        continue
      }
      if (response.ok) return response
      const text = Buffer.from((await readBoundedBody(response, MAX_ERROR_BODY)) ?? new Uint8Array()).toString("utf8")
      const reason = reasonOf(text)
      if (response.status === 403 && reason !== null && THROTTLED.has(reason) && (await waitedOutRetryAfter(response.headers, attempt))) continue
      const code = response.status === 403 && reason !== null && THROTTLED.has(reason) ? "RATE_LIMITED" : response.status === 410 ? "RESYNC_REQUIRED" : vendorStatusCode(response.status)
      throw new GoogleDriveError(response.status, code, `${api === "drive" ? "Drive" : "the Directory"} answered ${response.status}${reason ? ` (${reason})` : ""} for ${url.pathname.slice(0, 200)}`, reason)
    }
  }

  /** A JSON answer of Drive (`/drive/v3/...`) or the Directory (`/admin/directory/v1/...`) as `subject`. */
  const json = async <A>(api: "drive" | "admin", subject: string, path: string): Promise<A> => {
    const response = await request(api, subject, path, "application/json")
    return readVendorJson<A>(response, (code) => new GoogleDriveError(response.status, code, code === "TOO_LARGE" ? "The answer is too large" : "The answer is not JSON"))
  }

  /** A file's bytes (`?alt=media`) or an export (`/export?mimeType=`) as `subject`; null past maxBytes (never read further). */
  const bytes = async (subject: string, path: string, maxBytes: number): Promise<Uint8Array | null> =>
    readBoundedBody(await request("drive", subject, path, "*/*"), maxBytes)

  return { json, bytes, counters, token: (subject: string) => token(subject, false) }
}

export type GoogleDriveClient = ReturnType<typeof googleDriveClient>

/** A failure as an attempt records it; `fatal` when the whole step cannot go on (credential, address, outage). */
export const failureOf = (error: unknown, fallback = "CRAWL_FAILED") =>
  error instanceof GoogleDriveError
    ? { code: error.code, message: error.message, fatal: error.code === "AUTHENTICATION_FAILED" || error.code === "ADDRESS_NOT_ALLOWED" || error.code === "SOURCE_UNREACHABLE" }
    : { code: fallback, message: String((error as Error)?.message ?? error).slice(0, 300), fatal: false }

const MAX_LIST_PAGES = 500

/** Every page of a Google collection (`nextPageToken`), streamed: at most MAX_LIST_PAGES pages. */
export async function* googlePages<A extends { nextPageToken?: string | null }>(
  next: (pageToken: string | null) => Promise<A>
): AsyncGenerator<A> {
  let token: string | null = null
  for (let pages = 0; pages < MAX_LIST_PAGES; pages++) {
    const page: A = await next(token)
    yield page
    token = page.nextPageToken ?? null
    if (!token) return
  }
}

export const withPageToken = (path: string, token: string | null) => (token ? `${path}&pageToken=${encodeURIComponent(token)}` : path)
