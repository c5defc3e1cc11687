import { Inflate } from "fflate"

/**
 * The one ZIP reader Lore trusts with an upload (DOCX documents in knowledge/, skill packages in assets/).
 * fflate does the inflating; the central directory is read here because fflate's readers expose neither the
 * local header offsets nor the external attributes (where Unix archivers mark symlinks). Every check runs on
 * the directory first (names, symlinks, duplicates, counts, declared sizes, encryption, methods), so a refused
 * archive is refused before one byte is inflated; then the selected entries are inflated in small slices under
 * a meter, so an entry whose declared size lies (a bomb) stops within a slice of its claim.
 *
 * Codes are stable and shared; each area words them in its own vocabulary (assets/skills/Archive.ts,
 * knowledge/parsing/parse.ts). This folder imports nothing of Lore, so both areas can use it.
 */

export type ZipProblemCode =
  | "ARCHIVE_INVALID"
  | "ZIP64"
  | "TOO_MANY_ENTRIES"
  | "ABSOLUTE_PATH"
  | "PATH_TRAVERSAL"
  | "PATH_INVALID"
  | "PATH_TOO_LONG"
  | "SYMLINK"
  | "DUPLICATE_ENTRY"
  | "TOO_MANY_FILES"
  | "ENCRYPTED_ENTRY"
  | "UNSUPPORTED_COMPRESSION"
  | "TOO_LARGE"
  | "ENTRY_TOO_LARGE"
  | "ZIP_BOMB"

/** One broken rule: `path` names the entry ("" for the archive), `message` never quotes content. */
export interface ZipProblem {
  readonly code: ZipProblemCode
  readonly path: string
  readonly message: string
}

/** An entry as an archive declares it (or a repository tree lists it), before any content is read. */
export interface DeclaredEntry {
  readonly path: string
  readonly symlink: boolean
  readonly directory: boolean
}

export interface ZipEntry extends DeclaredEntry {
  readonly method: number
  readonly encrypted: boolean
  readonly compressedSize: number
  readonly uncompressedSize: number
  readonly localHeaderOffset: number
}

export interface NameLimits {
  readonly maxPathLength: number
  readonly maxFiles: number
}

export interface ZipLimits extends NameLimits {
  /** Entries in the central directory (files, folders, anything), checked before the directory is read. */
  readonly maxEntries: number
  /** All files together, unpacked. */
  readonly maxUncompressedBytes: number
  /** One file, unpacked. */
  readonly maxEntryBytes: number
}

export interface ZipReadOptions {
  /** Entries that are not part of anything (macOS resource forks): left out before any check. */
  readonly ignore?: (path: string) => boolean
  /** Files inflated under the meter (the others are checked on their declared sizes only); default all. */
  readonly inflate?: (path: string) => boolean
  /** Inflated files whose contents are answered; default all that are inflated. */
  readonly keep?: (path: string) => boolean
}

export type ZipRead =
  | { readonly ok: true; readonly entries: ReadonlyArray<ZipEntry>; readonly files: ReadonlyArray<{ readonly path: string; readonly bytes: Uint8Array }> }
  | { readonly ok: false; readonly problems: ReadonlyArray<ZipProblem> }

const EOCD_SIGNATURE = 0x06054b50
const CENTRAL_SIGNATURE = 0x02014b50
const LOCAL_SIGNATURE = 0x04034b50
const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8)
const u32 = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0
const utf8 = new TextDecoder("utf-8", { fatal: false })

const invalid = (message: string, path = ""): { ok: false; problems: Array<ZipProblem> } => ({ ok: false, problems: [{ code: "ARCHIVE_INVALID", path, message }] })

export const isZip = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6)

/** The central directory, or why it cannot be read. Never inflates. */
export const readZipDirectory = (
  bytes: Uint8Array,
  maxEntries: number
): { readonly ok: true; readonly entries: ReadonlyArray<ZipEntry> } | { readonly ok: false; readonly problems: ReadonlyArray<ZipProblem> } => {
  // End of central directory: the last signature within the final 64 KiB + 22 bytes.
  let eocd = -1
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (u32(bytes, at) === EOCD_SIGNATURE) {
      eocd = at
      break
    }
  }
  if (eocd < 0) return invalid("is not a zip archive, or its directory is missing (the file may be truncated)")
  const count = u16(bytes, eocd + 10)
  const directorySize = u32(bytes, eocd + 12)
  const directoryAt = u32(bytes, eocd + 16)
  if (count === 0xffff || directoryAt === 0xffffffff) {
    return { ok: false, problems: [{ code: "ZIP64", path: "", message: "is a ZIP64 archive, larger than Lore accepts" }] }
  }
  if (count > maxEntries) return { ok: false, problems: [{ code: "TOO_MANY_ENTRIES", path: "", message: `holds ${count} entries (the limit is ${maxEntries})` }] }
  if (directoryAt + directorySize > eocd) return invalid("has a central directory outside the archive")
  const entries: Array<ZipEntry> = []
  let at = directoryAt
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || u32(bytes, at) !== CENTRAL_SIGNATURE) return invalid("has a damaged central directory (the file may be truncated)")
    const madeBy = u16(bytes, at + 4) >> 8
    const nameLength = u16(bytes, at + 28)
    const next = at + 46 + nameLength + u16(bytes, at + 30) + u16(bytes, at + 32)
    if (next > bytes.length) return invalid("has a damaged central directory")
    const external = u32(bytes, at + 38)
    const path = utf8.decode(bytes.subarray(at + 46, at + 46 + nameLength))
    // Unix (3) and macOS (19) archivers keep the file type in the high half of the external attributes.
    const unix = madeBy === 3 || madeBy === 19
    const unixType = (external >>> 16) & 0o170000
    entries.push({
      path,
      method: u16(bytes, at + 10),
      encrypted: (u16(bytes, at + 8) & 1) === 1,
      compressedSize: u32(bytes, at + 20),
      uncompressedSize: u32(bytes, at + 24),
      localHeaderOffset: u32(bytes, at + 42),
      symlink: unix && unixType === 0o120000,
      directory: path.endsWith("/") || (external & 0x10) === 0x10 || (unix && unixType === 0o040000)
    })
    at = next
  }
  return { ok: true, entries }
}

/**
 * Checks one path of an archive or a repository tree: relative, no `..`, no empty or `.` segments, no control
 * characters or backslashes, within the length limit (in characters, not bytes).
 */
export const pathProblems = (raw: string, maxPathLength: number): Array<ZipProblem> => {
  const shown = raw.length > 80 ? raw.slice(0, 80) + "…" : raw
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw) || raw.startsWith("\\")) {
    return [{ code: "ABSOLUTE_PATH", path: shown, message: "is an absolute path; paths in an archive must be relative" }]
  }
  const segments = raw.split(/[\\/]/)
  if (segments.includes("..")) return [{ code: "PATH_TRAVERSAL", path: shown, message: "climbs out of the archive with '..'" }]
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw) || raw.includes("\\") || segments.some((s, i) => s === "." || (s === "" && i < segments.length - 1))) {
    return [{ code: "PATH_INVALID", path: shown, message: "holds a control character, a backslash or an empty or '.' segment" }]
  }
  if ([...raw].length > maxPathLength) return [{ code: "PATH_TOO_LONG", path: shown, message: `is longer than ${maxPathLength} characters` }]
  return []
}

/** The checks on names alone (archive entries or a repository tree): paths, symlinks, duplicates, the file count. */
export const nameProblems = (entries: ReadonlyArray<DeclaredEntry>, limits: NameLimits): Array<ZipProblem> => {
  const problems: Array<ZipProblem> = []
  const seen = new Set<string>()
  let fileCount = 0
  for (const entry of entries) {
    const found = pathProblems(entry.directory ? entry.path.replace(/\/$/, "") : entry.path, limits.maxPathLength)
    if (found.length > 0) {
      problems.push(...found)
      continue
    }
    if (entry.symlink) {
      problems.push({ code: "SYMLINK", path: entry.path, message: "is a symbolic link; archives may hold regular files only" })
      continue
    }
    if (entry.directory) continue
    if (seen.has(entry.path)) problems.push({ code: "DUPLICATE_ENTRY", path: entry.path, message: "appears more than once" })
    seen.add(entry.path)
    fileCount++
  }
  if (fileCount > limits.maxFiles) problems.push({ code: "TOO_MANY_FILES", path: "", message: `holds ${fileCount} files; at most ${limits.maxFiles} are allowed` })
  return problems
}

/** Every check the directory alone allows: names, then encryption and methods, then the declared sizes. */
const declaredProblems = (entries: ReadonlyArray<ZipEntry>, files: ReadonlyArray<ZipEntry>, limits: ZipLimits, inflate: (path: string) => boolean): Array<ZipProblem> => {
  const problems = nameProblems(entries, limits)
  for (const entry of files) {
    if (!inflate(entry.path)) continue
    if (entry.encrypted) problems.push({ code: "ENCRYPTED_ENTRY", path: entry.path, message: "is encrypted (password-protected)" })
    else if (entry.method !== 0 && entry.method !== 8) {
      problems.push({ code: "UNSUPPORTED_COMPRESSION", path: entry.path, message: `uses a compression method other than stored or deflate (${entry.method})` })
    }
  }
  const declaredTotal = files.reduce((sum, entry) => sum + entry.uncompressedSize, 0)
  if (declaredTotal > limits.maxUncompressedBytes) {
    problems.push({ code: "TOO_LARGE", path: "", message: `would unpack to more than ${size(limits.maxUncompressedBytes)}` })
  }
  for (const entry of files) {
    if (entry.uncompressedSize > limits.maxEntryBytes) problems.push({ code: "ENTRY_TOO_LARGE", path: entry.path, message: `is larger than ${size(limits.maxEntryBytes)}` })
  }
  return problems
}

const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${bytes} bytes`)

const SLICE = 16 * 1024 // at most ~16 MiB of output per step even at deflate's maximum ratio (about 1032:1)

class OverBudget extends Error {}

/**
 * Reads an archive under the limits: every problem the directory shows (all at once), else the selected files
 * inflated under the meter (the first that lies stops the read). Directories, symlinks and ignored entries are
 * never inflated.
 */
export const readZip = (bytes: Uint8Array, limits: ZipLimits, options: ZipReadOptions = {}): ZipRead => {
  const directory = readZipDirectory(bytes, limits.maxEntries)
  if (!directory.ok) return directory
  const ignore = options.ignore ?? (() => false)
  const inflate = options.inflate ?? (() => true)
  const keep = options.keep ?? (() => true)
  const entries = directory.entries.filter((entry) => !ignore(entry.path))
  const files = entries.filter((entry) => !entry.directory && !entry.symlink)
  const problems = declaredProblems(entries, files, limits, inflate)
  if (problems.length > 0) return { ok: false, problems }

  const out: Array<{ path: string; bytes: Uint8Array }> = []
  let total = 0
  for (const entry of files) {
    if (!inflate(entry.path)) continue
    const local = entry.localHeaderOffset
    if (local + 30 > bytes.length || u32(bytes, local) !== LOCAL_SIGNATURE) return invalid("has a damaged local header (the file may be truncated)", entry.path)
    const dataAt = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28)
    if (dataAt + entry.compressedSize > bytes.length) return invalid("declares more compressed bytes than the archive holds (the file may be truncated)", entry.path)
    const data = bytes.subarray(dataAt, dataAt + entry.compressedSize)
    const budget = Math.min(limits.maxEntryBytes, limits.maxUncompressedBytes - total)
    const bomb = (message: string): ZipRead => ({ ok: false, problems: [{ code: "ZIP_BOMB", path: entry.path, message }] })
    if (entry.method === 0) {
      if (data.length !== entry.uncompressedSize) return invalid("is stored with a size other than it declares", entry.path)
      if (data.length > budget) return bomb("unpacks beyond the archive's limits")
      if (keep(entry.path)) out.push({ path: entry.path, bytes: data.slice() })
      total += data.length
      continue
    }
    const chunks: Array<Uint8Array> = []
    let inflated = 0
    const inflater = new Inflate((chunk) => {
      inflated += chunk.length
      if (inflated > budget || inflated > entry.uncompressedSize) throw new OverBudget()
      chunks.push(chunk)
    })
    try {
      for (let offset = 0; offset < data.length; offset += SLICE) {
        inflater.push(data.subarray(offset, Math.min(data.length, offset + SLICE)), offset + SLICE >= data.length)
      }
      if (data.length === 0) inflater.push(new Uint8Array(0), true)
    } catch (error) {
      if (error instanceof OverBudget) {
        return bomb(inflated > entry.uncompressedSize && inflated <= budget ? "inflates to more bytes than its declared size" : "unpacks beyond the archive's limits")
      }
      return invalid("cannot be inflated (its data is damaged)", entry.path)
    }
    if (inflated !== entry.uncompressedSize) return invalid("inflates to fewer bytes than it declares", entry.path)
    if (keep(entry.path)) out.push({ path: entry.path, bytes: concat(chunks, inflated) })
    total += inflated
  }
  return { ok: true, entries, files: out }
}

const concat = (parts: ReadonlyArray<Uint8Array>, length: number): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
