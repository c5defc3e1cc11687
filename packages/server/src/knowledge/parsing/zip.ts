import { Inflate } from "fflate"

/**
 * Just enough ZIP reading to (a) tell a DOCX from other zips and (b) refuse decompression bombs
 * BEFORE mammoth (JSZip) inflates anything: JSZip trusts the archive and only notices a lying size
 * after it has inflated the whole entry. fflate does the inflating; this file reads the central
 * directory (which fflate does not expose with offsets) and meters the output.
 */

export interface ZipEntry {
  readonly name: string
  readonly method: number
  readonly flags: number
  readonly compressedSize: number
  readonly uncompressedSize: number
  readonly localHeaderOffset: number
}

export class ZipError extends Error {
  constructor(
    readonly reason: "NOT_A_ZIP" | "TOO_LARGE" | "UNSUPPORTED",
    message: string
  ) {
    super(message)
  }
}

const EOCD_SIGNATURE = 0x06054b50
const CENTRAL_SIGNATURE = 0x02014b50
const LOCAL_SIGNATURE = 0x04034b50
const u16 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8)
const u32 = (b: Uint8Array, i: number) => (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0
const utf8 = new TextDecoder()

export const isZip = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6)

/** Reads the central directory. Throws ZipError; never inflates. */
export const listZipEntries = (bytes: Uint8Array, maxEntries: number): ReadonlyArray<ZipEntry> => {
  let eocd = -1
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (u32(bytes, i) === EOCD_SIGNATURE) {
      eocd = i
      break
    }
  }
  if (eocd < 0) throw new ZipError("NOT_A_ZIP", "the archive's directory is missing (the file may be truncated)")
  const count = u16(bytes, eocd + 10)
  const directoryOffset = u32(bytes, eocd + 16)
  if (count === 0xffff || directoryOffset === 0xffffffff) {
    throw new ZipError("TOO_LARGE", "it is a ZIP64 archive, which is larger than Lore accepts for a document")
  }
  if (count > maxEntries) throw new ZipError("TOO_LARGE", `it holds ${count} entries (the limit is ${maxEntries})`)
  const entries: ZipEntry[] = []
  let at = directoryOffset
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || u32(bytes, at) !== CENTRAL_SIGNATURE) {
      throw new ZipError("NOT_A_ZIP", "the archive's directory is damaged (the file may be truncated)")
    }
    const nameLength = u16(bytes, at + 28)
    const next = at + 46 + nameLength + u16(bytes, at + 30) + u16(bytes, at + 32)
    if (next > bytes.length) throw new ZipError("NOT_A_ZIP", "the archive's directory is damaged")
    entries.push({
      name: utf8.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      flags: u16(bytes, at + 8),
      method: u16(bytes, at + 10),
      compressedSize: u32(bytes, at + 20),
      uncompressedSize: u32(bytes, at + 24),
      localHeaderOffset: u32(bytes, at + 42)
    })
    at = next
  }
  return entries
}

export interface ZipLimits {
  readonly maxUncompressedBytes: number
  readonly maxEntries: number
}

const SLICE = 16 * 1024 // at most ~16 MiB of output per step even at deflate's maximum ratio

/**
 * Checks an archive against the limits: the declared sizes first (cheap), then, for the entries
 * `inflate` selects (those the parser will actually read), the real inflated size, fed to the
 * inflater in small slices so a lying entry is stopped within a few MiB of its declared size.
 * Returns the inflated contents of the entries named in `keep`.
 */
export const checkZip = (
  bytes: Uint8Array,
  limits: ZipLimits,
  inflate: (name: string) => boolean,
  keep: ReadonlySet<string> = new Set()
): { readonly entries: ReadonlyArray<ZipEntry>; readonly kept: Map<string, Uint8Array> } => {
  const entries = listZipEntries(bytes, limits.maxEntries)
  const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`
  let declared = 0
  for (const entry of entries) {
    declared += entry.uncompressedSize
    if (entry.uncompressedSize === 0xffffffff || declared > limits.maxUncompressedBytes) {
      throw new ZipError("TOO_LARGE", `it would expand to more than ${mib(limits.maxUncompressedBytes)}`)
    }
  }
  const kept = new Map<string, Uint8Array>()
  let inflated = 0
  for (const entry of entries) {
    if (entry.name.endsWith("/") || !inflate(entry.name)) continue
    if (entry.flags & 1) throw new ZipError("UNSUPPORTED", "it is password-protected")
    const local = entry.localHeaderOffset
    if (local + 30 > bytes.length || u32(bytes, local) !== LOCAL_SIGNATURE) {
      throw new ZipError("NOT_A_ZIP", `the entry ${entry.name} is damaged (the file may be truncated)`)
    }
    const start = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28)
    const end = start + entry.compressedSize
    if (end > bytes.length) throw new ZipError("NOT_A_ZIP", `the entry ${entry.name} is cut short (the file may be truncated)`)
    const parts: Uint8Array[] = []
    const collect = keep.has(entry.name)
    if (entry.method === 0) {
      if (entry.compressedSize !== entry.uncompressedSize) throw new ZipError("NOT_A_ZIP", `the entry ${entry.name} is damaged`)
      inflated += entry.uncompressedSize
      if (collect) parts.push(bytes.subarray(start, end))
    } else if (entry.method === 8) {
      let produced = 0
      const inflater = new Inflate((chunk) => {
        produced += chunk.length
        if (collect) parts.push(chunk)
      })
      for (let at = start; at < end; at += SLICE) {
        inflater.push(bytes.subarray(at, Math.min(end, at + SLICE)), at + SLICE >= end)
        if (produced > entry.uncompressedSize || inflated + produced > limits.maxUncompressedBytes) {
          throw new ZipError("TOO_LARGE", `the entry ${entry.name} expands beyond the size it declares`)
        }
      }
      inflated += produced
    } else {
      throw new ZipError("UNSUPPORTED", `the entry ${entry.name} uses an unsupported compression method (${entry.method})`)
    }
    if (collect) kept.set(entry.name, concat(parts))
  }
  return { entries, kept }
}

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
