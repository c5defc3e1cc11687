import type { Middleware } from "openapi-fetch"
import { streamedBodies } from "./credentials"
import { LoreApiError } from "./errors"
import { multipartBody, type UploadProgress, type UploadSource } from "./multipart"
import { isBrowser, sleep } from "./runtime"

/** What every upload method takes besides its own parameters. */
export interface FileUploadOptions {
  readonly file: UploadSource
  /** Required unless `file` is a File. */
  readonly fileName?: string | undefined
  readonly mediaType?: string | undefined
  /** The byte count, when known, as the progress total. */
  readonly size?: number | undefined
  readonly onProgress?: UploadProgress | undefined
  readonly signal?: AbortSignal | undefined
}

const markStreamed: Middleware = {
  onRequest: ({ request }) => {
    streamedBodies.add(request)
  }
}

/**
 * A file encoded as multipart/form-data (part `file`) for an upload operation: `init` goes into openapi-fetch's
 * POST beside the operation's params, and `sent` reports the last progress once the request is answered.
 * Outside browsers the body is streamed with progress; browsers (no streamed request bodies over HTTP/1.1) send
 * one Blob and report progress when it is done.
 */
export const encodedUpload = async <Payload>(operation: string, options: FileUploadOptions) => {
  const fileName = options.fileName ?? (typeof File !== "undefined" && options.file instanceof File ? options.file.name : undefined)
  if (!fileName) throw LoreApiError.invalidArgument(`${operation}: \`fileName\` is required unless \`file\` is a File`)
  const streaming = !isBrowser()
  const { body, contentType, total } = await multipartBody({
    field: "file", source: options.file, fileName, mediaType: options.mediaType, size: options.size,
    onProgress: options.onProgress, signal: options.signal, streaming
  })
  return {
    init: {
      // The body is already encoded: openapi-fetch must pass it through, with our boundary.
      body: body as unknown as Payload,
      bodySerializer: (encoded: Payload) => encoded,
      headers: { "content-type": contentType },
      signal: options.signal,
      // Node's fetch needs `duplex` to send a ReadableStream; harmless elsewhere.
      ...(streaming ? { duplex: "half" as const, middleware: [markStreamed] } : {})
    },
    sent: <T>(answer: T): T => {
      if (!streaming && total !== undefined) options.onProgress?.(total, total)
      return answer
    }
  }
}

export interface SettleOptions<T> {
  /** Default 1000 ms. */
  readonly intervalMs?: number | undefined
  /** Default 10 minutes; then WAIT_TIMEOUT. */
  readonly timeoutMs?: number | undefined
  readonly signal?: AbortSignal | undefined
  /** Called with each new status. */
  readonly onStatus?: ((current: T) => void) | undefined
}

/** Polls `read` until `settled` says its status is final; rejects with the signal's reason on abort. */
export const pollUntilSettled = async <T extends { readonly status: string }>(
  what: string,
  read: () => Promise<T>,
  settled: (status: T["status"]) => boolean,
  options: SettleOptions<T>
): Promise<T> => {
  const intervalMs = options.intervalMs ?? 1000
  const timeoutMs = options.timeoutMs ?? 10 * 60_000
  const deadline = Date.now() + timeoutMs
  let previous: string | undefined
  for (;;) {
    options.signal?.throwIfAborted()
    const current = await read()
    if (current.status !== previous) options.onStatus?.(current)
    previous = current.status
    if (settled(current.status)) return current
    const left = deadline - Date.now()
    if (left <= 0) throw LoreApiError.client("WAIT_TIMEOUT", "Timeout", `${what} was still ${current.status} after ${timeoutMs} ms`)
    await sleep(Math.min(intervalMs, left), options.signal)
  }
}
