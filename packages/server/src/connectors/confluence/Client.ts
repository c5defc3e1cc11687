import { outboundPolicy, guardedFetch } from "../../outbound/Guard"
import type { LoreSettings } from "../../Config"
import { authorizationOf, type ConfluenceConfig, type ConfluenceCredential } from "./Config"
import { fetchFailureCode, readBoundedBody, readVendorJson, VendorError, vendorStatusCode, waitedOutThrottling } from "../VendorHttp"

/** Why a request to Confluence gave nothing usable: the status when it answered (401, 403, 404, 5xx), else 0. */
export class ConfluenceError extends VendorError {}

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
        const code = fetchFailureCode(error)
        throw new ConfluenceError(0, code, code === "ADDRESS_NOT_ALLOWED" ? "The Confluence address is not allowed" : "Confluence could not be reached")
      }
      if (await waitedOutThrottling(response, attempt)) continue
      if (response.status === 401 && unauthorized++ === 0) {
        await response.body?.cancel().catch(() => undefined)
        continue
      }
      if (response.ok) return response
      await response.body?.cancel().catch(() => undefined)
      throw new ConfluenceError(response.status, vendorStatusCode(response.status), `Confluence answered ${response.status} for ${url.pathname}`)
    }
  }

  const json = async <A>(pathOrLink: string): Promise<A> => {
    const response = await request(pathOrLink)
    return readVendorJson<A>(response, (code) =>
      new ConfluenceError(response.status, code, code === "TOO_LARGE" ? "Confluence's answer is too large" : "Confluence's answer is not JSON"))
  }

  const bytes = async (pathOrLink: string, maxBytes: number): Promise<Uint8Array | null> => {
    const response = await request(pathOrLink, "*/*")
    return readBoundedBody(response, maxBytes)
  }

  return { json, bytes, urlOf }
}

export type ConfluenceClient = ReturnType<typeof confluenceClient>
