import { Inflate, zipSync } from "fflate"
import type { SkillLimits } from "../Config"

/**
 * Reading skill packages (zip) without trusting them: the central directory is parsed here (fflate's readers
 * expose no external attributes, so symlinks would pass unseen), every name is checked before any byte is
 * inflated, and inflation counts the bytes as they stream, so an entry whose declared size lies stops at the
 * limit instead of filling memory. Writing: the canonical package Lore stores and serves (sorted entries, fixed
 * times), so the same files always give the same digest.
 */

export type { SkillLimits }

/** One broken rule: `code` is stable, `path` names the file (or `SKILL.md#field`), `message` never quotes content. */
export interface SkillProblem {
  readonly code: string
  readonly path: string
  readonly message: string
}

export interface PackageFile {
  readonly path: string
  readonly bytes: Uint8Array
}

/** An entry as the archive declares it (or a repository tree lists it), before any content is read. */
export interface DeclaredEntry {
  readonly path: string
  readonly symlink: boolean
  readonly directory: boolean
}

const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8)
const u32 = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0

const utf8 = new TextDecoder("utf-8", { fatal: false })

/**
 * Checks one path of a package (from a zip or a repository tree): relative, no `..`, no empty or `.` segments,
 * no control characters, within the length limit. Answers the problems (empty when fine).
 */
export const pathProblems = (raw: string, limits: SkillLimits): Array<SkillProblem> => {
  const shown = raw.length > 80 ? raw.slice(0, 80) + "…" : raw
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw) || raw.startsWith("\\")) {
    return [{ code: "ABSOLUTE_PATH", path: shown, message: "is an absolute path; package paths must be relative" }]
  }
  const segments = raw.split(/[\\/]/)
  if (segments.includes("..")) return [{ code: "PATH_TRAVERSAL", path: shown, message: "climbs out of the package with '..'" }]
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw) || raw.includes("\\") || segments.some((s, i) => s === "." || (s === "" && i < segments.length - 1))) {
    return [{ code: "PATH_INVALID", path: shown, message: "holds a control character, a backslash or an empty or '.' segment" }]
  }
  if ([...raw].length > limits.maxPathLength) return [{ code: "PATH_TOO_LONG", path: shown, message: `is longer than ${limits.maxPathLength} characters` }]
  return []
}

/** Entries an archiver adds that are not part of anything (macOS resource forks). */
const isJunk = (path: string) => path.startsWith("__MACOSX/") || path === ".DS_Store" || path.endsWith("/.DS_Store")

export type ArchiveResult = { readonly ok: true; readonly files: ReadonlyArray<PackageFile> } | { readonly ok: false; readonly problems: ReadonlyArray<SkillProblem> }

class Stop extends Error {}

/** The files of a zip archive, or every reason it is refused (all names are checked before anything is inflated). */
export const readZip = (bytes: Uint8Array, limits: SkillLimits): ArchiveResult => {
  const corrupt = (message: string): ArchiveResult => ({ ok: false, problems: [{ code: "ARCHIVE_INVALID", path: "", message }] })
  // End of central directory: the last signature within the final 64 KiB + 22 bytes.
  let eocd = -1
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (u32(bytes, at) === 0x06054b50) {
      eocd = at
      break
    }
  }
  if (eocd < 0) return corrupt("is not a zip archive")
  const count = u16(bytes, eocd + 10)
  const directorySize = u32(bytes, eocd + 12)
  const directoryAt = u32(bytes, eocd + 16)
  if (count === 0xffff || directoryAt === 0xffffffff) return corrupt("is a ZIP64 archive, which skill packages do not need")
  if (directoryAt + directorySize > eocd) return corrupt("has a central directory outside the archive")

  interface Entry { path: string; method: number; encrypted: boolean; compressedSize: number; size: number; localAt: number; symlink: boolean; directory: boolean }
  const entries: Array<Entry> = []
  let at = directoryAt
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || u32(bytes, at) !== 0x02014b50) return corrupt("has a damaged central directory")
    const madeBy = u16(bytes, at + 4) >> 8
    const flags = u16(bytes, at + 8)
    const nameLength = u16(bytes, at + 28)
    const extraLength = u16(bytes, at + 30)
    const commentLength = u16(bytes, at + 32)
    const external = u32(bytes, at + 38)
    const path = utf8.decode(bytes.subarray(at + 46, at + 46 + nameLength))
    const unixType = (external >>> 16) & 0o170000
    entries.push({
      path,
      method: u16(bytes, at + 10),
      encrypted: (flags & 1) === 1,
      compressedSize: u32(bytes, at + 20),
      size: u32(bytes, at + 24),
      localAt: u32(bytes, at + 42),
      // Unix (3) and macOS (19) archivers keep the file type in the high half of the external attributes.
      symlink: (madeBy === 3 || madeBy === 19) && unixType === 0o120000,
      directory: path.endsWith("/") || (external & 0x10) === 0x10 || ((madeBy === 3 || madeBy === 19) && unixType === 0o040000)
    })
    at += 46 + nameLength + extraLength + commentLength
  }

  const kept = entries.filter((entry) => !isJunk(entry.path))
  const problems = declaredProblems(kept, limits)
  const files = kept.filter((entry) => !entry.directory && !entry.symlink)
  for (const entry of files) {
    if (entry.encrypted) problems.push({ code: "ENCRYPTED_ENTRY", path: entry.path, message: "is encrypted" })
    else if (entry.method !== 0 && entry.method !== 8) problems.push({ code: "UNSUPPORTED_COMPRESSION", path: entry.path, message: "uses a compression method other than stored or deflate" })
  }
  const declaredTotal = files.reduce((sum, entry) => sum + entry.size, 0)
  if (declaredTotal > limits.maxUnpackedBytes) {
    problems.push({ code: "PACKAGE_TOO_LARGE", path: "", message: `unpacks to more than ${limits.maxUnpackedBytes} bytes` })
  }
  for (const entry of files) {
    if (entry.size > limits.maxFileBytes) problems.push({ code: "FILE_TOO_LARGE", path: entry.path, message: `is larger than ${limits.maxFileBytes} bytes` })
  }
  if (problems.length > 0) return { ok: false, problems }

  // Inflate, counting real bytes: the declared sizes are only claims.
  const out: Array<PackageFile> = []
  let total = 0
  for (const entry of files) {
    const local = entry.localAt
    if (local + 30 > bytes.length || u32(bytes, local) !== 0x04034b50) return corrupt("has a damaged local header")
    const dataAt = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28)
    if (dataAt + entry.compressedSize > bytes.length) return corrupt("declares more compressed bytes than it holds")
    const data = bytes.subarray(dataAt, dataAt + entry.compressedSize)
    const budget = Math.min(limits.maxFileBytes, limits.maxUnpackedBytes - total)
    if (entry.method === 0) {
      if (data.length > budget) return { ok: false, problems: [{ code: "ZIP_BOMB", path: entry.path, message: "unpacks beyond the package limits" }] }
      out.push({ path: entry.path, bytes: data.slice() })
      total += data.length
      continue
    }
    const chunks: Array<Uint8Array> = []
    let inflated = 0
    const inflater = new Inflate((chunk) => {
      inflated += chunk.length
      if (inflated > budget || inflated > entry.size) throw new Stop()
      chunks.push(chunk)
    })
    try {
      for (let offset = 0; offset < data.length; offset += 64 * 1024) {
        inflater.push(data.subarray(offset, Math.min(data.length, offset + 64 * 1024)), offset + 64 * 1024 >= data.length)
      }
      if (data.length === 0) inflater.push(new Uint8Array(0), true)
    } catch (error) {
      if (error instanceof Stop) {
        return { ok: false, problems: [{ code: "ZIP_BOMB", path: entry.path, message: inflated > entry.size && inflated <= budget ? "inflates to more bytes than its declared size" : "unpacks beyond the package limits" }] }
      }
      return corrupt(`cannot inflate ${entry.path}`)
    }
    if (inflated !== entry.size) return corrupt(`${entry.path} inflates to fewer bytes than declared`)
    const content = new Uint8Array(inflated)
    let offset = 0
    for (const chunk of chunks) {
      content.set(chunk, offset)
      offset += chunk.length
    }
    out.push({ path: entry.path, bytes: content })
    total += inflated
  }
  return { ok: true, files: out }
}

/** The checks on names alone (zip entries or a repository tree): paths, symlinks, duplicates, the file count. */
export const declaredProblems = (entries: ReadonlyArray<DeclaredEntry>, limits: SkillLimits): Array<SkillProblem> => {
  const problems: Array<SkillProblem> = []
  const seen = new Set<string>()
  let fileCount = 0
  for (const entry of entries) {
    const found = pathProblems(entry.directory ? entry.path.replace(/\/$/, "") : entry.path, limits)
    if (found.length > 0) {
      problems.push(...found)
      continue
    }
    if (entry.symlink) {
      problems.push({ code: "SYMLINK", path: entry.path, message: "is a symbolic link; packages hold regular files only" })
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

/** DOS times are local times: a date built from local fields encodes the same everywhere. */
const FIXED_TIME = new Date(1980, 0, 1, 0, 0, 0)

/** The canonical package: `<name>/<path>` entries in path order, fixed times and modes, deflated. */
export const canonicalPackage = (name: string, files: ReadonlyArray<PackageFile>): Uint8Array => {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const entries: Record<string, [Uint8Array, { mtime: Date; os: number; attrs: number; level: 6 }]> = {}
  for (const file of sorted) entries[`${name}/${file.path}`] = [file.bytes, { mtime: FIXED_TIME, os: 3, attrs: (0o100644 << 16) >>> 0, level: 6 }]
  return zipSync(entries)
}
