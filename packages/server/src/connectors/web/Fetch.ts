import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http"
import https from "node:https"
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib"
import { checkOutboundUrl, guardedLookup, type OutboundPolicy, outboundRefusal } from "../../outbound/Guard"

export interface FetchOptions {
  readonly headers: Readonly<Record<string, string>>
  readonly timeoutMs: number
  /** Bytes of the (decompressed) body; a larger response is abandoned. */
  readonly maxBytes: number
  /** Which loopback/private hosts may be reached (the shared outbound guard; WebConfig.webPolicy). */
  readonly policy: OutboundPolicy
  /** Whether a redirect may go to this URL (WEB: only within the configured prefixes). */
  readonly followsTo: (url: URL) => boolean
  readonly maxRedirects?: number
  /** Whether the body of a 2xx answer with these headers is wanted; when not, it is not downloaded (`unwanted`). */
  readonly wants?: (headers: IncomingHttpHeaders) => boolean
  /** False: a redirect is answered as it is (status and Location), for the caller to queue its target. */
  readonly followRedirects?: boolean
  /** Aborts the request (the crawl was interrupted). */
  readonly signal?: AbortSignal | undefined
}

export interface Fetched {
  readonly _tag: "Response"
  readonly status: number
  /** The URL that answered, after redirects. */
  readonly url: URL
  readonly headers: IncomingHttpHeaders
  readonly body: Uint8Array
  /** The answer was a 2xx whose body `wants` declined: it was not read. */
  readonly unwanted: boolean
}

export type FetchErrorCode = "ADDRESS_NOT_ALLOWED" | "TIMEOUT" | "TOO_LARGE" | "UNREACHABLE" | "REDIRECT_NOT_FOLLOWED" | "TOO_MANY_REDIRECTS"

export interface FetchFailure {
  readonly _tag: "Failure"
  readonly code: FetchErrorCode
  readonly message: string
}

class Refused extends Error {
  constructor(readonly code: FetchErrorCode, message: string) {
    super(message)
  }
}

const decoded = (response: IncomingMessage) => {
  const encoding = String(response.headers["content-encoding"] ?? "").trim().toLowerCase()
  if (encoding === "gzip" || encoding === "x-gzip") return response.pipe(createGunzip())
  if (encoding === "deflate") return response.pipe(createInflate())
  if (encoding === "br") return response.pipe(createBrotliDecompress())
  return response
}

/** One request, no redirects followed: the status, headers and the body (read only for 2xx answers). */
const once = (url: URL, method: "GET", options: FetchOptions, signal: AbortSignal) =>
  new Promise<{ status: number; headers: IncomingHttpHeaders; body: Uint8Array; unwanted: boolean }>((resolve, reject) => {
    const checked = checkOutboundUrl(url, options.policy)
    if (!checked.ok) return reject(new Refused("ADDRESS_NOT_ALLOWED", checked.message))
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
    const client = url.protocol === "https:" ? https : http
    const request = client.request(url, {
      method,
      headers: { "accept-encoding": "gzip, deflate, br", ...options.headers },
      lookup: guardedLookup(options.policy, port),
      signal
    }, (response) => {
      const status = response.statusCode ?? 0
      if (status < 200 || status >= 300) {
        response.resume()
        return resolve({ status, headers: response.headers, body: new Uint8Array(), unwanted: false })
      }
      if (options.wants && !options.wants(response.headers)) {
        response.destroy()
        return resolve({ status, headers: response.headers, body: new Uint8Array(), unwanted: true })
      }
      const declared = Number(response.headers["content-length"])
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy()
        return reject(new Refused("TOO_LARGE", `the response is ${declared} bytes, over the ${options.maxBytes}-byte limit`))
      }
      const parts: Array<Buffer> = []
      let size = 0
      const body = decoded(response)
      body.on("data", (chunk: Buffer) => {
        size += chunk.byteLength
        if (size > options.maxBytes) {
          response.destroy()
          body.destroy()
          reject(new Refused("TOO_LARGE", `the response is over the ${options.maxBytes}-byte limit`))
        } else parts.push(chunk)
      })
      body.on("end", () => resolve({ status, headers: response.headers, body: new Uint8Array(Buffer.concat(parts)), unwanted: false }))
      body.on("error", reject)
      response.on("error", reject)
    })
    request.on("error", reject)
    request.end()
  })

/**
 * A GET with the SSRF guard on every hop (IP literals checked before connecting, names after resolving),
 * redirects followed only where `followsTo` admits them, and the time and size bounded. Never throws.
 */
export const fetchUrl = async (target: URL, options: FetchOptions): Promise<Fetched | FetchFailure> => {
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, options.timeoutMs)
  const stop = () => controller.abort()
  options.signal?.addEventListener("abort", stop)
  try {
    let url = target
    for (let hop = 0; ; hop++) {
      const reply = await once(url, "GET", options, controller.signal)
      const location = reply.headers.location
      if ([301, 302, 303, 307, 308].includes(reply.status) && typeof location === "string" && options.followRedirects !== false) {
        if (hop >= (options.maxRedirects ?? 5)) return { _tag: "Failure", code: "TOO_MANY_REDIRECTS", message: `${target.href}: more than ${options.maxRedirects ?? 5} redirects` }
        let next: URL
        try {
          next = new URL(location, url)
        } catch {
          return { _tag: "Failure", code: "REDIRECT_NOT_FOLLOWED", message: `${url.href} redirects to an invalid URL` }
        }
        if ((next.protocol !== "http:" && next.protocol !== "https:") || !options.followsTo(next)) {
          return { _tag: "Failure", code: "REDIRECT_NOT_FOLLOWED", message: `${url.href} redirects to ${next.origin}${next.pathname}, outside the crawl` }
        }
        url = next
        continue
      }
      return { _tag: "Response", status: reply.status, url, headers: reply.headers, body: reply.body, unwanted: reply.unwanted }
    }
  } catch (error) {
    if (error instanceof Refused) return { _tag: "Failure", code: error.code, message: `${target.href}: ${error.message}` }
    const cause = (error as { cause?: unknown }).cause
    if (cause instanceof Refused) return { _tag: "Failure", code: cause.code, message: `${target.href}: ${cause.message}` }
    const refused = outboundRefusal(error)
    if (refused) return { _tag: "Failure", code: "ADDRESS_NOT_ALLOWED", message: `${target.href}: ${refused.message}` }
    if (timedOut) return { _tag: "Failure", code: "TIMEOUT", message: `${target.href}: no complete answer within ${options.timeoutMs} ms` }
    return { _tag: "Failure", code: "UNREACHABLE", message: `${target.href}: ${(error as Error).message ?? String(error)}` }
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener("abort", stop)
  }
}

/** A header's single value. */
export const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}
