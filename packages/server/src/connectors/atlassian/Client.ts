import type { LoreSettings } from "../../Config"
import { guardedFetch, outboundPolicy } from "../../outbound/Guard"
import { fetchFailureCode, readBoundedBody, readVendorJson, type VendorError, vendorStatusCode, waitedOutThrottling } from "../VendorHttp"
import { type AtlassianCredential, authorizationOf } from "./Site"

/**
 * An Atlassian product's REST API (Confluence, Jira; Cloud and Data Center) over the shared outbound guard: every
 * request to the configured site only (a `_links.next`, `self` or download link elsewhere is refused), 429 and 503
 * waited out by Retry-After (capped), a 401 retried once (a token that was just rotated on the site's side, or a
 * proxy's hiccup) before it counts as revoked. `fail` makes the kind's own error (ConfluenceError, JiraError).
 */
export const atlassianClient = (
  baseUrl: string,
  credential: AtlassianCredential,
  settings: LoreSettings,
  product: string,
  fail: (status: number, code: string, message: string) => VendorError
) => {
  const fetch = guardedFetch(outboundPolicy(settings), { maxRedirects: 3, timeoutMs: 60_000 })
  const base = new URL(baseUrl + "/")
  const authorization = authorizationOf(credential)

  /** A path under the site (`/rest/api/...`), or a link the site gave (relative to its context path, or absolute). */
  const urlOf = (pathOrLink: string) => {
    const url = pathOrLink.startsWith("http://") || pathOrLink.startsWith("https://")
      ? new URL(pathOrLink)
      : new URL(pathOrLink.startsWith(base.pathname) && base.pathname !== "/" ? pathOrLink : base.pathname.replace(/\/$/, "") + pathOrLink, base)
    if (url.origin !== base.origin) throw fail(0, "ADDRESS_NOT_ALLOWED", `${product} gave a link to another site`)
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
        throw fail(0, code, code === "ADDRESS_NOT_ALLOWED" ? `The ${product} address is not allowed` : `${product} could not be reached`)
      }
      if (await waitedOutThrottling(response, attempt)) continue
      if (response.status === 401 && unauthorized++ === 0) {
        await response.body?.cancel().catch(() => undefined)
        continue
      }
      if (response.ok) return response
      await response.body?.cancel().catch(() => undefined)
      throw fail(response.status, vendorStatusCode(response.status), `${product} answered ${response.status} for ${url.pathname}`)
    }
  }

  const json = async <A>(pathOrLink: string): Promise<A> => {
    const response = await request(pathOrLink)
    return readVendorJson<A>(response, (code) =>
      fail(response.status, code, code === "TOO_LARGE" ? `${product}'s answer is too large` : `${product}'s answer is not JSON`))
  }

  const bytes = async (pathOrLink: string, maxBytes: number): Promise<Uint8Array | null> => {
    const response = await request(pathOrLink, "*/*")
    return readBoundedBody(response, maxBytes)
  }

  return { json, bytes, urlOf }
}

export type AtlassianClient = ReturnType<typeof atlassianClient>
