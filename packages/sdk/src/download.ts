import type { FetchResult } from "./response"
import { unwrap } from "./response"

/** A document's original bytes, as the server stored them. */
export interface DownloadedFile {
  readonly bytes: Uint8Array
  /** The Content-Type the server sent (the media type Lore detected at upload). */
  readonly mediaType: string
  /** From Content-Disposition (`filename*` preferred, so non-ASCII names survive). */
  readonly fileName: string | undefined
}

/** The file name of a Content-Disposition header (RFC 6266: `filename*=UTF-8''...` wins over `filename`). */
export const fileNameFrom = (header: string | null): string | undefined => {
  if (!header) return undefined
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header)
  if (extended) {
    try {
      return decodeURIComponent(extended[2]!.trim())
    } catch {
      // malformed percent-encoding: fall back to the plain parameter
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header)
  return plain ? (plain[1]?.replace(/\\(.)/g, "$1") ?? plain[2]!.trim()) : undefined
}

/** Reads a binary answer (openapi-fetch with `parseAs: "arrayBuffer"`), or throws the LoreApiError. */
export const download = async (call: Promise<FetchResult<ArrayBuffer>>): Promise<DownloadedFile & { readonly response: Response }> => {
  const result = await call
  const buffer = await unwrap(Promise.resolve(result))
  const headers = result.response.headers
  return {
    bytes: new Uint8Array(buffer ?? new ArrayBuffer(0)),
    mediaType: headers.get("content-type") ?? "application/octet-stream",
    fileName: fileNameFrom(headers.get("content-disposition")),
    response: result.response
  }
}
