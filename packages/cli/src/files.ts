import { type Dirent } from "node:fs"
import { open, readdir, stat } from "node:fs/promises"
import { basename, isAbsolute, join, relative, resolve } from "node:path"
import { CliError, ExitCode, usageError } from "./errors"

/**
 * Local files the knowledge commands read and write: the files named on the command line (with glob
 * patterns expanded) and downloads saved to disk. Shells expand unquoted globs themselves; this handles
 * quoted ones (`'docs/**\/*.md'`) and shells without globbing (Windows cmd), with `*`, `?`, `[...]` and `**`.
 */

const GLOB_CHARS = /[*?[]/

/** `*` and `?` never match a `/`, nor a leading `.` (as in shells); `[...]` is a character class. */
const segmentPattern = (segment: string): RegExp => {
  let source = ""
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index]!
    if (char === "*") source += "[^/]*"
    else if (char === "?") source += "[^/]"
    else if (char === "[") {
      const close = segment.indexOf("]", index + 2)
      if (close === -1) source += "\\["
      else {
        const body = segment.slice(index + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\")
        source += `[${body}]`
        index = close
      }
    } else source += char.replace(/[.+^${}()|\\\]]/g, "\\$&")
  }
  return new RegExp(`^${source}$`)
}

const matchesSegment = (pattern: string, name: string) =>
  (!name.startsWith(".") || pattern.startsWith(".")) && segmentPattern(pattern).test(name)

const isDirectory = async (path: string, entry: Dirent) => {
  if (entry.isDirectory()) return true
  if (!entry.isSymbolicLink()) return false
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false
}

const isFile = async (path: string, entry: Dirent) => {
  if (entry.isFile()) return true
  if (!entry.isSymbolicLink()) return false
  return (await stat(path).catch(() => undefined))?.isFile() ?? false
}

const entriesOf = (dir: string) => readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])

/** Files under `dir` matching `segments` (a pattern split at `/`); `**` matches any number of directories. */
const walk = async (dir: string, segments: ReadonlyArray<string>, found: Set<string>): Promise<void> => {
  const [segment, ...rest] = segments
  if (segment === undefined) return
  if (segment === "**") {
    await walk(dir, rest, found)
    for (const entry of await entriesOf(dir)) {
      // `**` does not enter hidden directories, nor follow symbolic links (which could loop).
      if (entry.name.startsWith(".") || !entry.isDirectory()) continue
      await walk(join(dir, entry.name), segments, found)
    }
    return
  }
  if (!GLOB_CHARS.test(segment)) {
    const path = join(dir, segment)
    if (rest.length === 0) {
      if ((await stat(path).catch(() => undefined))?.isFile()) found.add(path)
    } else await walk(path, rest, found)
    return
  }
  for (const entry of await entriesOf(dir)) {
    if (!matchesSegment(segment, entry.name)) continue
    const path = join(dir, entry.name)
    if (rest.length === 0) {
      if (await isFile(path, entry)) found.add(path)
    } else if (await isDirectory(path, entry)) await walk(path, rest, found)
  }
}

/** The files a glob pattern matches, sorted; a relative pattern gives paths relative to `cwd`. */
export const expandGlob = async (pattern: string, cwd = process.cwd()): Promise<Array<string>> => {
  const normalized = pattern.replace(/\\/g, "/")
  const absolute = isAbsolute(normalized)
  const segments = normalized.split("/").filter((segment) => segment !== "" && segment !== ".")
  const found = new Set<string>()
  await walk(absolute ? "/" : cwd, segments, found)
  return [...found].map((path) => (absolute ? path : relative(cwd, path))).sort()
}

/**
 * The files named by the command line's arguments: existing files as given, patterns expanded, each
 * file once. Fails (exit 2) before anything is uploaded when an argument names nothing, so a typo never
 * half-runs a batch.
 */
export const filesFromArguments = async (args: ReadonlyArray<string>, cwd = process.cwd()): Promise<Array<string>> => {
  const files: Array<string> = []
  const seen = new Set<string>()
  const add = (path: string) => {
    const key = resolve(cwd, path)
    if (seen.has(key)) return
    seen.add(key)
    files.push(path)
  }
  for (const arg of args) {
    const info = await stat(resolve(cwd, arg)).catch(() => undefined)
    if (info?.isFile()) {
      add(arg)
      continue
    }
    if (info?.isDirectory()) {
      throw usageError(`${arg} is a directory`, `Pass files, or a quoted pattern such as '${arg.replace(/\/+$/, "")}/**/*.md'.`)
    }
    if (!GLOB_CHARS.test(arg)) throw usageError(`no such file: ${arg}`)
    const matches = await expandGlob(arg, cwd)
    if (matches.length === 0) throw usageError(`no files match '${arg}'`)
    matches.forEach(add)
  }
  return files
}

/** A file name from a server (Content-Disposition) made safe to create in a directory: no path, no control characters. */
export const safeFileName = (name: string | undefined, fallback: string): string => {
  // eslint-disable-next-line no-control-regex
  const cleaned = basename((name ?? "").replace(/\\/g, "/")).replace(/[\u0000-\u001f\u007f]/g, "").trim()
  return cleaned === "" || cleaned === "." || cleaned === ".." ? fallback : cleaned
}

export interface SavedFile {
  /** Where the bytes went: a path, or `-` for stdout. */
  readonly path: string
  readonly bytes: number
}

/**
 * Writes downloaded bytes: to `output` (a file, or a directory to put `fileName` in), to stdout for `-`,
 * or to `fileName` in the current directory. Never replaces an existing file unless `force` (the check
 * and the creation are one step, O_EXCL, so nothing can slip in between).
 */
export const saveDownload = async (
  bytes: Uint8Array,
  target: { readonly output: string | undefined; readonly fileName: string; readonly force: boolean }
): Promise<SavedFile> => {
  if (target.output === "-") {
    await new Promise<void>((done, fail) => process.stdout.write(bytes, (error) => (error ? fail(error) : done())))
    return { path: "-", bytes: bytes.byteLength }
  }
  let path = target.output ?? target.fileName
  if (target.output !== undefined && (await stat(target.output).catch(() => undefined))?.isDirectory()) path = join(target.output, target.fileName)
  let handle
  try {
    handle = await open(path, target.force ? "w" : "wx")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "EEXIST") {
      throw new CliError(ExitCode.invalid, "FILE_EXISTS", `${path} already exists`, 0, undefined, "Pass --force to overwrite it, or --output <path> to save elsewhere.")
    }
    throw new CliError(ExitCode.unexpected, code ?? "WRITE_FAILED", `cannot write ${path}: ${(error as Error).message}`)
  }
  try {
    await handle.writeFile(bytes)
  } finally {
    await handle.close()
  }
  return { path, bytes: bytes.byteLength }
}
