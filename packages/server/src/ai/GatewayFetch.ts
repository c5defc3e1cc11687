/**
 * The `fetch` Lore hands to the AI SDK's providers, so that Lore's own rules hold whichever library speaks the
 * protocol: redirects are never followed (a key in `api-key` or `x-api-key` would travel to wherever one
 * points), no response within the gateway's timeout (the first byte, then each next chunk of a body) is
 * TIMEOUT, and 429, 5xx and failed connections are retried with backoff (Retry-After when the provider sends
 * one) only until a response starts, so a stream that has reached the caller is never sent twice.
 */

const MAX_RETRY_WAIT_MS = 30_000
/** The most a provider's answer may be (a whole answer, or a stream in total): a hostile one cannot fill memory. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024
const CREDENTIAL_HEADERS = ["authorization", "api-key", "x-api-key"]

/** Why a call failed before any answer Lore could read: nothing within the timeout, or no connection at all. */
export class GatewayCallError extends Error {
  override readonly name = "GatewayCallError"
  constructor(readonly reason: "TIMEOUT" | "UNREACHABLE" | "TOO_LARGE", message: string) {
    super(message)
  }
}

/** The request headers with every credential-bearing one shown as `[redacted]`, for logs. */
export const redactHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) =>
    CREDENTIAL_HEADERS.includes(name.toLowerCase()) ? [name, "[redacted]"] : [name, value]))

/** The wait Retry-After asks for (seconds or an HTTP date), else exponential backoff from 250 ms. */
export const retryDelayMs = (retryAfter: string | null, attempt: number) => {
  if (retryAfter !== null) {
    const seconds = Number(retryAfter)
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now()
    if (Number.isFinite(ms)) return Math.min(MAX_RETRY_WAIT_MS, Math.max(0, ms))
  }
  return Math.min(MAX_RETRY_WAIT_MS, 250 * 2 ** attempt)
}

/** The innermost cause of a transport failure, e.g. "connect ECONNREFUSED 127.0.0.1:9". */
export const transportCause = (error: unknown): string => {
  let current: unknown = error
  let text = String(error)
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const { message, code } = current as { message?: unknown; code?: unknown }
    if (typeof message === "string" && message !== "") text = typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message
    current = (current as { cause?: unknown }).cause
  }
  return text
}

export interface GatewayFetchOptions {
  /** No response (first byte), and then no next chunk of its body, within this: TIMEOUT. Undefined: no limit here. */
  readonly timeoutMs?: number | undefined
  /** Attempts for a request answered 429, 5xx or not at all (1: no retry). */
  readonly attempts: number
  /** The most an answer may be (default MAX_ANSWER_BYTES). */
  readonly maxBytes?: number
  /** Called once per call with the URL and the headers, credentials redacted (for the call log). */
  readonly onRequest?: (url: string, headers: Record<string, string>) => void
}

const sleep = (ms: number, signal: AbortSignal | null | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener("abort", () => {
      clearTimeout(timer)
      resolve()
    }, { once: true })
  })

/** Races `promise` against `timeoutMs`: rejects with TIMEOUT first, then aborts what it waited for. */
const within = <A>(promise: Promise<A>, timeoutMs: number | undefined, abort: AbortController, what: string): Promise<A> => {
  if (timeoutMs === undefined) return promise
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new GatewayCallError("TIMEOUT", `No ${what} within ${Math.round(timeoutMs / 100) / 10}s`))
      abort.abort()
    }, timeoutMs)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** The response with a body whose every chunk must come within the timeout, and that stops at `maxBytes`. */
const guardedBody = (response: Response, timeoutMs: number | undefined, maxBytes: number, abort: AbortController): Response => {
  if (response.body === null) return response
  const reader = response.body.getReader()
  let received = 0
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await within(reader.read(), timeoutMs, abort, "chunk")
        if (done) return controller.close()
        received += value.byteLength
        if (received > maxBytes) {
          abort.abort()
          return controller.error(new GatewayCallError("TOO_LARGE", `The answer is larger than ${maxBytes} bytes`))
        }
        controller.enqueue(value)
      } catch (error) {
        controller.error(error)
      }
    },
    cancel(reason) {
      abort.abort()
      return reader.cancel(reason).catch(() => undefined)
    }
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

const headersOf = (init: RequestInit | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  new Headers(init?.headers).forEach((value, name) => {
    // A provider library sends `x-api-key: ""` for a gateway without a key; a keyless server wants none.
    if (!(CREDENTIAL_HEADERS.includes(name) && value.trim() === "")) headers[name] = value
  })
  return headers
}

export const gatewayFetch = (options: GatewayFetchOptions): typeof globalThis.fetch =>
  (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.toString() : input.url
    const headers = headersOf(init)
    options.onRequest?.(url, redactHeaders(headers))
    const caller = init?.signal
    for (let attempt = 0; ; attempt++) {
      const abort = new AbortController()
      if (caller?.aborted) abort.abort()
      caller?.addEventListener("abort", () => abort.abort(), { once: true })
      let response: Response
      try {
        response = await within(fetch(url, { ...init, headers, redirect: "manual", signal: abort.signal }), options.timeoutMs, abort, "response")
      } catch (error) {
        if (error instanceof GatewayCallError || caller?.aborted) throw error
        if (attempt + 1 < options.attempts) {
          await sleep(retryDelayMs(null, attempt), caller)
          continue
        }
        throw new GatewayCallError("UNREACHABLE", `Cannot reach ${new URL(url).host}: ${transportCause(error)}`)
      }
      const retryable = response.status === 429 || response.status >= 500
      if (retryable && attempt + 1 < options.attempts && !caller?.aborted) {
        await response.body?.cancel().catch(() => undefined)
        await sleep(retryDelayMs(response.headers.get("retry-after"), attempt), caller)
        continue
      }
      return guardedBody(response, options.timeoutMs, options.maxBytes ?? MAX_ANSWER_BYTES, abort)
    }
  }) as typeof globalThis.fetch
