import { zipSync } from "fflate"
import {
  type DeclaredEntry,
  nameProblems,
  readZip as readArchive,
  type ZipLimits,
  type ZipProblem,
  type ZipProblemCode
} from "../../archive/Zip"
import type { SkillLimits } from "../../Config"

/**
 * Reading skill packages (zip) without trusting them, through the one guarded reader (archive/Zip.ts: every
 * name checked before any byte is inflated, inflation metered against the declared sizes and the limits), with
 * its codes in the skill vocabulary. Writing: the canonical package Lore stores and serves (sorted entries, fixed
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

export type { DeclaredEntry }

/** The shared reader's codes in the words skill authors see (the rest are the same). */
const SKILL_CODES: Partial<Record<ZipProblemCode, string>> = {
  ZIP64: "ARCHIVE_INVALID",
  TOO_MANY_ENTRIES: "TOO_MANY_FILES",
  TOO_LARGE: "PACKAGE_TOO_LARGE",
  ENTRY_TOO_LARGE: "FILE_TOO_LARGE"
}

const asSkillProblem = (problem: ZipProblem): SkillProblem => ({ ...problem, code: SKILL_CODES[problem.code] ?? problem.code })

const zipLimits = (limits: SkillLimits): ZipLimits => ({
  maxFiles: limits.maxFiles,
  maxPathLength: limits.maxPathLength,
  // Folders and macOS resource forks (one per file) are entries too; anything beyond that is not a skill.
  maxEntries: limits.maxFiles * 4 + 64,
  maxUncompressedBytes: limits.maxUnpackedBytes,
  maxEntryBytes: limits.maxFileBytes
})

/** Entries an archiver adds that are not part of anything (macOS resource forks). */
const isJunk = (path: string) => path.startsWith("__MACOSX/") || path === ".DS_Store" || path.endsWith("/.DS_Store")

export type ArchiveResult = { readonly ok: true; readonly files: ReadonlyArray<PackageFile> } | { readonly ok: false; readonly problems: ReadonlyArray<SkillProblem> }

/** The files of a zip archive, or every reason it is refused (all names are checked before anything is inflated). */
export const readZip = (bytes: Uint8Array, limits: SkillLimits): ArchiveResult => {
  const read = readArchive(bytes, zipLimits(limits), { ignore: isJunk })
  return read.ok ? { ok: true, files: read.files } : { ok: false, problems: read.problems.map(asSkillProblem) }
}

/** The checks on names alone (zip entries or a repository tree): paths, symlinks, duplicates, the file count. */
export const declaredProblems = (entries: ReadonlyArray<DeclaredEntry>, limits: SkillLimits): Array<SkillProblem> =>
  nameProblems(entries, limits).map(asSkillProblem)

/** DOS times are local times: a date built from local fields encodes the same everywhere. */
const FIXED_TIME = new Date(1980, 0, 1, 0, 0, 0)

/** The canonical package: `<name>/<path>` entries in path order, fixed times and modes, deflated. */
export const canonicalPackage = (name: string, files: ReadonlyArray<PackageFile>): Uint8Array => {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const entries: Record<string, [Uint8Array, { mtime: Date; os: number; attrs: number; level: 6 }]> = {}
  for (const file of sorted) entries[`${name}/${file.path}`] = [file.bytes, { mtime: FIXED_TIME, os: 3, attrs: (0o100644 << 16) >>> 0, level: 6 }]
  return zipSync(entries)
}
