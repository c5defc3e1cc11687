import { outboundPolicy, guardedFetch } from "../../outbound/Guard"
import type { LoreSettings } from "../../Config"
import { authorizationOf, type ConfluenceConfig, type ConfluenceCredential } from "./Config"
import { readBoundedBody } from "../../outbound/Bodies"

/** Why a request to Confluence gave nothing usable: the status when it answered (401, 403, 404, 5xx), else 0. */
export class ConfluenceError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

const MAX_JSON_BYTES = 32 * 1024 * 1024
const MAX_RETRIES = 4
const MAX_RETRY_AFTER_MS = 30_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Confluence's REST API (v1, which Cloud and Data Center both speak) over the shared outbound guard: every request
 * to the configured site only (a `_links.next` or download link elsewhere is refused), 429 and 503 waited out by
 * Retry-After (capped), a 401 retried once (a token that was just rotated on the site's side, or a proxy's hiccup)
 * before it counts as revoked.
 */
export const confluenceClient = (config: ConfluenceConfig, credential: ConfluenceCredential, settings: LoreSettings) => {
  const fetch = guardedFetch(outboundPolicy(settings), { maxRedirects: 3, timeoutMs: 60_000 })
  const base = new URL(config.baseUrl + "/")
  const authorization = authorizationOf(credential)

  /** A path under the site (`/rest/api/...`), or a link Confluence gave (`_links.next`: relative to the site's context path). */
  const urlOf = (pathOrLink: string) => {
    const url = pathOrLink.startsWith("http://") || pathOrLink.startsWith("https://")
      ? new URL(pathOrLink)
      : new URL(pathOrLink.startsWith(base.pathname) && base.pathname !== "/" ? pathOrLink : base.pathname.replace(/\/$/, "") + pathOrLink, base)
    if (url.origin !== base.origin) throw new ConfluenceError(0, "ADDRESS_NOT_ALLOWED", "Confluence gave a link to another site")
    return url
  }

  const request = async (pathOrLink: string, accept = "application/json"): Promise<Response> => {
    const url = urlOf(pathOrLink)
    let unauthorized = 0
    for (let attempt = 0; ; attempt++) {
      let response: Response
      try {
        response = await fetch(url, { headers: { authorization, accept } })
      } catch (error) {
        const code = (error as { code?: string }).code === "ADDRESS_NOT_ALLOWED" ? "ADDRESS_NOT_ALLOWED" : "SOURCE_UNREACHABLE"
        throw new ConfluenceError(0, code, code === "ADDRESS_NOT_ALLOWED" ? "The Confluence address is not allowed" : "Confluence could not be reached")
      }
      if ((response.status === 429 || response.status === 503) && attempt < MAX_RETRIES) {
        await response.body?.cancel().catch(() => undefined)
        const seconds = Number(response.headers.get("retry-after"))
        await sleep(Math.min(MAX_RETRY_AFTER_MS, Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000 * 2 ** attempt))
        continue
      }
      if (response.status === 401 && unauthorized++ === 0) {
        await response.body?.cancel().catch(() => undefined)
        continue
      }
      if (response.ok) return response
      await response.body?.cancel().catch(() => undefined)
      const code = response.status === 401 ? "AUTHENTICATION_FAILED" : response.status === 403 ? "PERMISSION_DENIED" : response.status === 404 ? "NOT_FOUND" : response.status === 429 ? "RATE_LIMITED" : "SOURCE_ERROR"
      throw new ConfluenceError(response.status, code, `Confluence answered ${response.status} for ${url.pathname}`)
    }
  }

  const json = async <A>(pathOrLink: string): Promise<A> => {
    const response = await request(pathOrLink)
    const length = Number(response.headers.get("content-length") ?? 0)
    if (length > MAX_JSON_BYTES) throw new ConfluenceError(response.status, "TOO_LARGE", "Confluence's answer is too large")
    const text = await response.text()
    if (text.length > MAX_JSON_BYTES) throw new ConfluenceError(response.status, "TOO_LARGE", "Confluence's answer is too large")
    try {
      return JSON.parse(text) as A
    } catch {
      throw new ConfluenceError(response.status, "SOURCE_ERROR", "Confluence's answer is not JSON")
    }
  }

  const bytes = async (pathOrLink: string, maxBytes: number): Promise<Uint8Array | null> => {
    const response = await request(pathOrLink, "*/*")
    return readBoundedBody(response, maxBytes)
  }

  return { json, bytes, urlOf }
}

export type ConfluenceClient = ReturnType<typeof confluenceClient>
