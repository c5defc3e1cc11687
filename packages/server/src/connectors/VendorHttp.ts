/**
 * What every connector's vendor client shares (connectors/atlassian/Client.ts for CONFLUENCE and JIRA, sharepoint/Client.ts): why a
 * request gave nothing usable, the codes for vendor statuses, waiting out throttling by Retry-After, and bodies
 * read within bounds. A new kind's client builds on these rather than writing them again.
 */

/** Why a vendor request gave nothing usable: the status when the vendor answered (401, 403, 404, 5xx), else 0. */
export class VendorError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

/** A vendor's JSON answer is read up to this size. */
export const MAX_VENDOR_JSON_BYTES = 32 * 1024 * 1024
const MAX_RETRIES = 4
const MAX_RETRY_AFTER_MS = 30_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The error code of a vendor status that is not retried. */
export const vendorStatusCode = (status: number) =>
  status === 401 ? "AUTHENTICATION_FAILED" : status === 403 ? "PERMISSION_DENIED" : status === 404 ? "NOT_FOUND" : status === 429 ? "RATE_LIMITED" : "SOURCE_ERROR"

/** Why a fetch threw: the outbound guard's refusal, or the vendor unreachable. */
export const fetchFailureCode = (error: unknown) =>
  (error as { code?: string }).code === "ADDRESS_NOT_ALLOWED" ? "ADDRESS_NOT_ALLOWED" as const : "SOURCE_UNREACHABLE" as const

/**
 * A throttled answer (429, 503) within the retry budget is discarded and waited out by its Retry-After (capped
 * at 30 s; exponential without one): true, and the caller sends again. Otherwise false, and nothing was read.
 */
export const waitedOutThrottling = async (response: Response, attempt: number): Promise<boolean> => {
  if ((response.status !== 429 && response.status !== 503) || attempt >= MAX_RETRIES) return false
  await response.body?.cancel().catch(() => undefined)
  return waitedOutRetryAfter(response.headers, attempt)
}

/**
 * For vendors that throttle with another status (Google's 403 `rateLimitExceeded`), once the kind has read the
 * answer and found it is throttling: within the retry budget, waits by Retry-After (capped; exponential without one)
 * and answers true; past it, false.
 */
export const waitedOutRetryAfter = async (headers: Headers, attempt: number): Promise<boolean> => {
  if (attempt >= MAX_RETRIES) return false
  const seconds = Number(headers.get("retry-after"))
  await sleep(Math.min(MAX_RETRY_AFTER_MS, Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000 * 2 ** attempt))
  return true
}

/** A JSON answer within MAX_VENDOR_JSON_BYTES; `fail` makes the kind's error (TOO_LARGE or SOURCE_ERROR). */
export const readVendorJson = async <A>(response: Response, fail: (code: "TOO_LARGE" | "SOURCE_ERROR") => Error): Promise<A> => {
  if (Number(response.headers.get("content-length") ?? 0) > MAX_VENDOR_JSON_BYTES) throw fail("TOO_LARGE")
  const text = await response.text()
  if (text.length > MAX_VENDOR_JSON_BYTES) throw fail("TOO_LARGE")
  try {
    return JSON.parse(text) as A
  } catch {
    throw fail("SOURCE_ERROR")
  }
}

/**
 * A response body read up to `maxBytes` (declared length checked first, then counted as it streams); null when
 * it is larger, and the rest is never downloaded. For files fetched from vendor APIs on a connection's behalf.
 */
export const readBoundedBody = async (response: Response, maxBytes: number): Promise<Uint8Array | null> => {
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    return null
  }
  const reader = response.body?.getReader()
  if (!reader) return new Uint8Array()
  const parts: Array<Uint8Array> = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined)
      return null
    }
    parts.push(value)
  }
  return Buffer.concat(parts)
}

/** A failure as an attempt records it; `fatal` when the whole step cannot go on (credential, address, outage). */
export const vendorFailureOf = (error: unknown, fallback = "CRAWL_FAILED") =>
  error instanceof VendorError
    ? { code: error.code, message: error.message, fatal: error.code === "AUTHENTICATION_FAILED" || error.code === "ADDRESS_NOT_ALLOWED" || error.code === "SOURCE_UNREACHABLE" }
    : { code: fallback, message: String((error as Error)?.message ?? error).slice(0, 300), fatal: false }

/** `work` over `items`, at most `limit` at once, results in the items' order. */
export const inParallel = async <A, B>(items: ReadonlyArray<A>, limit: number, work: (item: A) => Promise<B>): Promise<Array<B>> => {
  const results: Array<B> = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
