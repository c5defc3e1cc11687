/** Text decoding shared by detection and the text-based parsers. */

export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be"

export const sniffEncoding = (bytes: Uint8Array): { readonly encoding: TextEncodingName; readonly bomLength: number } => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8", bomLength: 3 }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", bomLength: 2 }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", bomLength: 2 }
  return { encoding: "utf-8", bomLength: 0 }
}

/**
 * Decodes text: UTF-8/UTF-16 by byte-order mark, else UTF-8, else (for legacy files saved by
 * older editors) Windows-1252, which maps every byte.
 */
export const decodeText = (bytes: Uint8Array): string => {
  const { encoding, bomLength } = sniffEncoding(bytes)
  const body = bytes.subarray(bomLength)
  if (encoding !== "utf-8" || bomLength > 0) return new TextDecoder(encoding, { ignoreBOM: true }).decode(body)
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body)
  } catch {
    return decodeWindows1252(body)
  }
}

// 0x80-0x9F in Windows-1252 (the rest is Latin-1). Node's own "windows-1252" decoder is really
// Latin-1 on some builds, so the table is here.
const CP1252_HIGH =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178"

const decodeWindows1252 = (bytes: Uint8Array): string => {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")
  return latin1.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!)
}

/**
 * True when the start of `bytes` could be text in a legacy 8-bit encoding: no NULs and almost no
 * control characters other than tab, line breaks and form feed.
 */
export const looksLikeLegacyText = (bytes: Uint8Array, limit = 1024 * 1024): boolean => {
  const end = Math.min(bytes.length, limit)
  let controls = 0
  for (let i = 0; i < end; i++) {
    const byte = bytes[i]!
    if (byte === 0) return false
    if (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 12 && byte !== 13) controls++
  }
  return controls <= end / 100
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
