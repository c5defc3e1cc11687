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

const newBoundary = () => {
  const random = new Uint8Array(16)
  globalThis.crypto.getRandomValues(random)
  return `----LoreFormBoundary${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`
}

const sizeOf = (source: UploadSource, declared: number | undefined) =>
  source instanceof Uint8Array ? source.byteLength : source instanceof Blob ? source.size : declared

/** The file's bytes as a stream; a Uint8Array is sliced so progress moves in steps of 64 KiB. */
const toStream = (source: UploadSource): ReadableStream<Uint8Array> => {
  if (source instanceof Blob) return source.stream()
  if (!(source instanceof Uint8Array)) return source
  let offset = 0
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= source.byteLength) return controller.close()
        controller.enqueue(source.subarray(offset, offset + CHUNK))
        offset += CHUNK
      }
    },
    { highWaterMark: 0 }
  )
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
    `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.fileName)}"\r\n` +
      `Content-Type: ${mediaType}\r\n\r\n`
  )
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`)
  const total = sizeOf(file.source, file.size)
  const contentType = `multipart/form-data; boundary=${boundary}`

  if (!file.streaming) {
    const content = file.source instanceof Blob ? file.source : file.source instanceof Uint8Array ? new Blob([new Uint8Array(file.source)]) : await readAll(file.source)
    return { body: new Blob([head, content, tail]), contentType, total: total ?? content.size }
  }

  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  let stage: "head" | "file" | "tail" = "head"
  let sent = 0
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (stage === "head") {
          stage = "file"
          file.onProgress?.(0, total)
          return controller.enqueue(head)
        }
        if (stage === "file") {
          reader ??= toStream(file.source).getReader()
          const next = await reader.read()
          if (!next.done) {
            sent += next.value.byteLength
            controller.enqueue(next.value)
            return file.onProgress?.(sent, total)
          }
          stage = "tail"
        }
        controller.enqueue(tail)
        controller.close()
      },
      async cancel(reason) {
        // An aborted upload lets go of its source (closes the file, for a stream from disk).
        await (reader ?? (file.source instanceof ReadableStream ? file.source : undefined))?.cancel(reason)
      }
    },
    { highWaterMark: 0 }
  )
  return { body, contentType, total }
}
