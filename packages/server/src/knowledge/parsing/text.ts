/** Text decoding shared by detection and the text-based parsers. */

export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be"

export const sniffEncoding = (bytes: Uint8Array): { readonly encoding: TextEncodingName; readonly bomLength: number } => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8", bomLength: 3 }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", bomLength: 2 }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", bomLength: 2 }
  return { encoding: "utf-8", bomLength: 0 }
}

/** Decodes text; invalid sequences become U+FFFD rather than failing a whole upload. */
export const decodeText = (bytes: Uint8Array): string => {
  const { encoding, bomLength } = sniffEncoding(bytes)
  return new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(bomLength))
}

/**
 * True when the start of `bytes` (up to `limit`) is text: valid in its encoding and free of NULs
 * (UTF-16 is only accepted with a byte-order mark).
 */
export const looksLikeText = (bytes: Uint8Array, limit = 1024 * 1024): boolean => {
  const { encoding, bomLength } = sniffEncoding(bytes)
  const prefix = bytes.subarray(bomLength, Math.min(bytes.length, limit))
  if (encoding === "utf-8" && prefix.includes(0)) return false
  try {
    const text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(prefix, { stream: prefix.length < bytes.length - bomLength })
    return !text.includes("\u0000")
  } catch {
    return false
  }
}

const WORD = /\S+/g

export const countWords = (text: string): number => {
  let n = 0
  WORD.lastIndex = 0
  while (WORD.exec(text) !== null) n++
  return n
}

/** Collapses runs of whitespace to single spaces and trims. */
export const squash = (text: string): string => text.replace(/\s+/g, " ").trim()
