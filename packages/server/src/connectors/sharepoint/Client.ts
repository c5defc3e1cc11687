import type { LoreSettings } from "../../Config"
import { guardedFetch, outboundPolicy } from "../../outbound/Guard"
import { graphResource, tokenSource, TokenError, vendorOrigins } from "./Auth"
import type { SharePointConfig, SharePointCredential } from "./Config"
import { fetchFailureCode, readBoundedBody, vendorFailureOf, readVendorJson, VendorError, vendorStatusCode, waitedOutThrottling } from "../VendorHttp"

/** Why a Graph or SharePoint REST request gave nothing usable: the status when one answered, else 0. */
export class SharePointError extends VendorError {}

/** Graph's 410 on a delta link: the token expired and the drive is walked in full. */
const codeOf = (status: number) => (status === 410 ? "RESYNC_REQUIRED" : vendorStatusCode(status))

/**
 * Microsoft Graph (v1.0) and SharePoint REST over the shared outbound guard, with app-only certificate tokens:
 * requests only to Graph's origin (an `@odata.nextLink` elsewhere is refused) and to the configured sharepointHost;
 * 429 and 503 waited out by Retry-After (capped); a 401 answered with a new token once before it counts as revoked.
 */
export const sharePointClient = (config: SharePointConfig, credential: SharePointCredential, settings: LoreSettings) => {
  const fetch = guardedFetch(outboundPolicy(settings), { maxRedirects: 3, timeoutMs: 60_000 })
  const graphBase = vendorOrigins(settings).graph
  const graphOrigin = new URL(graphBase).origin
  const token = tokenSource(config, credential, settings, fetch)
  const resources = { graph: graphResource(settings), sharepoint: config.sharepointHost }
  const counters = { tokensRefreshed: 0 }

  const graphUrl = (pathOrLink: string) => {
    const url = pathOrLink.startsWith("http://") || pathOrLink.startsWith("https://") ? new URL(pathOrLink) : new URL(graphBase + pathOrLink)
    if (url.origin !== graphOrigin) throw new SharePointError(0, "ADDRESS_NOT_ALLOWED", "Graph gave a link to another host")
    return url
  }

  const request = async (url: URL, resource: "graph" | "sharepoint", accept: string): Promise<Response> => {
    let unauthorized = 0
    for (let attempt = 0; ; attempt++) {
      let bearer: string
      try {
        bearer = await token(resources[resource], unauthorized > 0)
      } catch (error) {
        const tokenError = error instanceof TokenError ? error : new TokenError("AUTHENTICATION_FAILED", "No token")
        throw new SharePointError(tokenError.code === "AUTHENTICATION_FAILED" ? 401 : 0, tokenError.code, tokenError.message)
      }
      let response: Response
      try {
        response = await fetch(url, { headers: { authorization: `Bearer ${bearer}`, accept } })
      } catch (error) {
        const code = fetchFailureCode(error)
        throw new SharePointError(0, code, code === "ADDRESS_NOT_ALLOWED" ? `${url.host} is not an allowed address` : `${url.host} could not be reached`)
      }
      if (await waitedOutThrottling(response, attempt)) continue
      if (response.status === 401 && unauthorized++ === 0) {
        // The token expired or was revoked early: ask Entra for a new one, once.
        await response.body?.cancel().catch(() => undefined)
        counters.tokensRefreshed++
        continue
      }
      if (response.ok) return response
      await response.body?.cancel().catch(() => undefined)
      throw new SharePointError(response.status, codeOf(response.status), `${resource === "graph" ? "Graph" : "SharePoint"} answered ${response.status} for ${url.pathname.slice(0, 200)}`)
    }
  }

  const readJson = <A>(response: Response): Promise<A> =>
    readVendorJson<A>(response, (code) => new SharePointError(response.status, code, code === "TOO_LARGE" ? "The answer is too large" : "The answer is not JSON"))

  /** A Graph path (`/v1.0/...`) or a link Graph gave (`@odata.nextLink`, `@odata.deltaLink`). */
  const graph = async <A>(pathOrLink: string): Promise<A> => readJson<A>(await request(graphUrl(pathOrLink), "graph", "application/json"))

  /** A SharePoint REST path on sharepointHost (`/sites/eng/_api/web/...`), answered without OData metadata. */
  const sharepoint = async <A>(path: string): Promise<A> => {
    const url = new URL(config.sharepointHost + path)
    if (url.origin !== config.sharepointHost) throw new SharePointError(0, "ADDRESS_NOT_ALLOWED", "Not a SharePoint path")
    return readJson<A>(await request(url, "sharepoint", "application/json;odata=nometadata"))
  }

  /** A file's bytes from Graph (`/content`, which redirects to a pre-authenticated download); null past maxBytes. */
  const bytes = async (path: string, maxBytes: number): Promise<Uint8Array | null> => {
    const response = await request(graphUrl(path), "graph", "*/*")
    return readBoundedBody(response, maxBytes)
  }

  return { graph, sharepoint, bytes, counters }
}

export type SharePointClient = ReturnType<typeof sharePointClient>

/** A failure as an attempt records it (VendorHttp.ts). */
export const failureOf = vendorFailureOf
