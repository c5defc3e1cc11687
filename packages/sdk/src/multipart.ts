/** What an upload can read its bytes from. */
export type UploadSource = Blob | ReadableStream<Uint8Array> | Uint8Array

/** Called as the file's bytes are taken by the HTTP stack: bytes of the file so far, and its size when known. */
export type UploadProgress = (sent: number, total: number | undefined) => void

export interface MultipartFile {
  /** The form field name (`file` for Lore's uploads). */
  readonly field: string
  readonly source: UploadSource
  readonly fileName: string
  /** Default: the Blob's own type, else guessed from the file name, else application/octet-stream. */
  readonly mediaType?: string | undefined
  /** The size of a stream source, when the caller knows it (a file on disk); reported as `total`. */
  readonly size?: number | undefined
  readonly onProgress?: UploadProgress | undefined
  /** The request's signal: on abort the source is released (Node's fetch would otherwise drain it). */
  readonly signal?: AbortSignal | undefined
  /** true: a ReadableStream body that reports progress as it is read (needs `duplex: "half"`). false: one Blob. */
  readonly streaming: boolean
}

export interface MultipartBody {
  readonly body: ReadableStream<Uint8Array> | Blob
  /** `multipart/form-data; boundary=...` */
  readonly contentType: string
  /** The file's size in bytes, when known. */
  readonly total: number | undefined
}

const CHUNK = 64 * 1024

const MEDIA_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  html: "text/html",
  htm: "text/html",
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  text: "text/plain",
  csv: "text/csv",
  json: "application/json"
}

/** A media type for a file name, from its extension (the server decides by content anyway). */
export const mediaTypeFor = (fileName: string): string => {
  const dot = fileName.lastIndexOf(".")
  return (dot > 0 && MEDIA_TYPES[fileName.slice(dot + 1).toLowerCase()]) || "application/octet-stream"
}

// As browsers encode names in multipart headers (WHATWG HTML, "multipart/form-data encoding algorithm").
const quoted = (value: string) => value.replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22")

/**
 * The filename parameter(s). Browsers send non-ASCII names as raw UTF-8, which some parsers (the
 * server's, for characters beyond Latin-1) cannot read, losing the file; so such names also go as an
 * RFC 5987 `filename*`, which parsers that know it prefer, after an ASCII `filename` for the rest.
 */
const fileNameParameters = (fileName: string) =>
  /^[\x20-\x7e]*$/.test(fileName)
    ? `filename="${quoted(fileName)}"`
    : `filename="${quoted(fileName.replace(/[^\x20-\x7e]/g, "_"))}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`

const newBoundary = () => {
  const random = new Uint8Array(16)
  globalThis.crypto.getRandomValues(random)
  return `----LoreFormBoundary${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`
}

const sizeOf = (source: UploadSource, declared: number | undefined) =>
  source instanceof Uint8Array ? source.byteLength : source instanceof Blob ? source.size : declared

/**
 * The file's bytes in pieces of at most 64 KiB, read only when asked for, so progress moves in small
 * steps (a Blob's own stream may hand over everything at once) and nothing is read ahead.
 */
const chunksOf = (source: UploadSource): { next: () => Promise<Uint8Array | undefined>; cancel: (reason: unknown) => Promise<void> } => {
  if (source instanceof Blob) {
    let offset = 0
    return {
      next: async () => {
        if (offset >= source.size) return undefined
        const piece = new Uint8Array(await source.slice(offset, offset + CHUNK).arrayBuffer())
        offset += piece.byteLength
        return piece
      },
      cancel: async () => undefined
    }
  }
  let pending: Uint8Array | undefined = source instanceof Uint8Array ? source : undefined
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  return {
    next: async () => {
      while (!pending?.byteLength) {
        if (source instanceof Uint8Array) return undefined
        reader ??= source.getReader()
        const read = await reader.read()
        if (read.done) return undefined
        pending = read.value
      }
      const piece = pending.subarray(0, CHUNK)
      pending = pending.subarray(piece.byteLength)
      return piece
    },
    cancel: async (reason) => {
      if (source instanceof ReadableStream) await (reader ?? source).cancel(reason)
    }
  }
}

const readAll = async (stream: ReadableStream<Uint8Array>): Promise<Blob> => {
  const parts: Array<Uint8Array<ArrayBuffer>> = []
  const reader = stream.getReader()
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(new Uint8Array(next.value))
  return new Blob(parts)
}

/**
 * A multipart/form-data body with one file part, built by hand so that it can be a stream: the file is
 * never held in memory, and progress is counted as the HTTP stack pulls bytes (highWaterMark 0, so
 * nothing is read ahead of the network). Without streaming (browsers), the body is one Blob.
 */
export const multipartBody = async (file: MultipartFile): Promise<MultipartBody> => {
  const boundary = newBoundary()
  const mediaType = file.mediaType || (file.source instanceof Blob && file.source.type) || mediaTypeFor(file.fileName)
  const encoder = new TextEncoder()
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; ${fileNameParameters(file.fileName)}\r\n` +
      `Content-Type: ${mediaType}\r\n\r\n`
  )
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`)
  const total = sizeOf(file.source, file.size)
  const contentType = `multipart/form-data; boundary=${boundary}`

  if (!file.streaming) {
    const content = file.source instanceof Blob ? file.source : file.source instanceof Uint8Array ? new Blob([new Uint8Array(file.source)]) : await readAll(file.source)
    return { body: new Blob([head, content, tail]), contentType, total: total ?? content.size }
  }

  const fileChunks = chunksOf(file.source)
  const signal = file.signal
  const release = () => void fileChunks.cancel(signal?.reason).catch(() => undefined)
  signal?.addEventListener("abort", release, { once: true })
  let stage: "head" | "file" | "tail" = "head"
  let sent = 0
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // Node's fetch keeps reading a body after an abort: end it here, or a large file is read for nothing.
        if (signal?.aborted) return controller.error(signal.reason)
        if (stage === "head") {
          stage = "file"
          file.onProgress?.(0, total)
          return controller.enqueue(head)
        }
        if (stage === "file") {
          const piece = await fileChunks.next()
          if (signal?.aborted) return controller.error(signal.reason) // not a short file: a cancelled one
          if (piece) {
            sent += piece.byteLength
            controller.enqueue(piece)
            return file.onProgress?.(sent, total)
          }
          stage = "tail"
        }
        controller.enqueue(tail)
        controller.close()
        signal?.removeEventListener("abort", release)
      },
      // An aborted upload lets go of its source (closes the file, for a stream from disk).
      cancel: (reason) => fileChunks.cancel(reason)
    },
    { highWaterMark: 0 }
  )
  return { body, contentType, total }
}
