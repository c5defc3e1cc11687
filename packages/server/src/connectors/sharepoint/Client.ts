import type { LoreSettings } from "../../Config"
import { guardedFetch, outboundPolicy } from "../../outbound/Guard"
import { graphResource, tokenSource, TokenError, vendorOrigins } from "./Auth"
import { personalHostOf, type SharePointConfig, type SharePointCredential } from "./Config"
import { fetchFailureCode, readBoundedBody, vendorFailureOf, readVendorJson, VendorError, vendorStatusCode, waitedOutThrottling } from "../VendorHttp"

/** Why a Graph or SharePoint REST request gave nothing usable: the status when one answered, else 0. */
export class SharePointError extends VendorError {}

/** Graph's 410 on a delta link: the token expired and the drive is walked in full. */
const codeOf = (status: number) => (status === 410 ? "RESYNC_REQUIRED" : vendorStatusCode(status))

/**
 * Microsoft Graph (v1.0) and SharePoint REST over the shared outbound guard, with app-only certificate tokens:
 * requests only to Graph's origin (an `@odata.nextLink` elsewhere is refused), to the configured sharepointHost and to
 * its personal-sites host (`-my`, where OneDrives live), each SharePoint host with a token for itself as resource;
 * 429 and 503 waited out by Retry-After (capped); a 401 answered with a new token once before it counts as revoked.
 */
export const sharePointClient = (config: SharePointConfig, credential: SharePointCredential, settings: LoreSettings) => {
  const fetch = guardedFetch(outboundPolicy(settings), { maxRedirects: 3, timeoutMs: 60_000 })
  const graphBase = vendorOrigins(settings).graph
  const graphOrigin = new URL(graphBase).origin
  const token = tokenSource(config, credential, settings, fetch)
  const personalHost = personalHostOf(config.sharepointHost, settings)
  const graphResourceName = graphResource(settings)
  const counters = { tokensRefreshed: 0 }

  const graphUrl = (pathOrLink: string) => {
    const url = pathOrLink.startsWith("http://") || pathOrLink.startsWith("https://") ? new URL(pathOrLink) : new URL(graphBase + pathOrLink)
    if (url.origin !== graphOrigin) throw new SharePointError(0, "ADDRESS_NOT_ALLOWED", "Graph gave a link to another host")
    return url
  }

  /** `resource`: "graph", or the SharePoint origin the request goes to (the token's audience is that host). */
  const request = async (url: URL, resource: "graph" | string, accept: string): Promise<Response> => {
    let unauthorized = 0
    for (let attempt = 0; ; attempt++) {
      let bearer: string
      try {
        bearer = await token(resource === "graph" ? graphResourceName : resource, unauthorized > 0)
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

  /** Whether SharePoint REST may be asked at this origin: sharepointHost, or its personal-sites (`-my`) host. */
  const isSharePointOrigin = (origin: string) => origin === config.sharepointHost || (personalHost !== null && origin === personalHost)

  /**
   * A SharePoint REST path (`/sites/eng/_api/web/...`) on sharepointHost, or on `origin` when it is the
   * personal-sites host (a OneDrive's site groups), answered without OData metadata.
   */
  const sharepoint = async <A>(path: string, origin = config.sharepointHost): Promise<A> => {
    if (!isSharePointOrigin(origin)) throw new SharePointError(0, "ADDRESS_NOT_ALLOWED", "Not a SharePoint host")
    const url = new URL(origin + path)
    if (url.origin !== origin) throw new SharePointError(0, "ADDRESS_NOT_ALLOWED", "Not a SharePoint path")
    return readJson<A>(await request(url, origin, "application/json;odata=nometadata"))
  }

  /** A file's bytes from Graph (`/content`, which redirects to a pre-authenticated download); null past maxBytes. */
  const bytes = async (path: string, maxBytes: number): Promise<Uint8Array | null> => {
    const response = await request(graphUrl(path), "graph", "*/*")
    return readBoundedBody(response, maxBytes)
  }

  return { graph, sharepoint, isSharePointOrigin, bytes, counters }
}

export type SharePointClient = ReturnType<typeof sharePointClient>

/** A failure as an attempt records it (VendorHttp.ts). */
export const failureOf = vendorFailureOf
