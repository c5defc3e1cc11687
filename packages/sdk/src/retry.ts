import { LoreApiError } from "./errors"
import { sleep } from "./runtime"

export interface RetryOptions {
  /** How many times to retry after the first attempt (default 3). */
  readonly retries?: number
  /** First backoff step; doubles each attempt, with full jitter (default 250 ms). */
  readonly baseDelayMs?: number
  /** Upper bound for any single wait, including a server's Retry-After (default 30 s). */
  readonly maxDelayMs?: number
}

export type FetchLike = (request: Request) => Promise<Response>

// Only methods that are safe to repeat: a POST or PATCH that timed out may already have taken effect.
const idempotent = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"])
const retryableStatus = new Set([429, 502, 503, 504])

/** Milliseconds to wait according to a Retry-After header (delta-seconds or HTTP date), if it says anything. */
export const retryAfterMs = (header: string | null, now = Date.now()): number | undefined => {
  if (!header) return undefined
  const value = header.trim()
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

const isAbort = (error: unknown, request: Request) =>
  request.signal?.aborted || (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"))

/**
 * Wraps a fetch: idempotent requests are retried on 429/502/503/504 and on network failures with
 * exponential backoff and full jitter, honoring Retry-After. Any failure to get a response becomes a
 * LoreApiError with status 0 (except an abort, which the caller asked for and gets back unchanged).
 */
export const withRetry = (fetch: FetchLike, options: RetryOptions | false = {}): FetchLike => {
  const retries = options === false ? 0 : Math.max(0, options.retries ?? 3)
  const baseDelayMs = options === false ? 0 : options.baseDelayMs ?? 250
  const maxDelayMs = options === false ? 0 : options.maxDelayMs ?? 30_000
  const backoff = (attempt: number) => Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt)

  return async (request) => {
    const attempts = idempotent.has(request.method.toUpperCase()) ? retries + 1 : 1
    for (let attempt = 0; ; attempt++) {
      const last = attempt + 1 >= attempts
      // A body can be read once: keep the original intact for the next attempt.
      const sent = last ? request : request.clone()
      let response: Response
      try {
        response = await fetch(sent)
      } catch (error) {
        if (isAbort(error, request)) throw error
        if (last) throw LoreApiError.network(error, request)
        await sleep(backoff(attempt), request.signal)
        continue
      }
      if (last || !retryableStatus.has(response.status)) return response
      const hinted = retryAfterMs(response.headers.get("retry-after"))
      await response.body?.cancel().catch(() => undefined) // free the connection
      await sleep(Math.min(maxDelayMs, hinted ?? backoff(attempt)), request.signal)
    }
  }
}
