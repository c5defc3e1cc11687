import type { LoreApiError, SkillInspection, SkillManifest } from "@lore/sdk"
import { zipSync, unzipSync, type Zippable } from "fflate"
import { createHash } from "node:crypto"
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, writeFile } from "node:fs/promises"
import { basename, dirname, join, relative, resolve, sep } from "node:path"
import { CliError, ExitCode, fieldErrorsOf, usageError } from "./errors"

/**
 * Skill packages on disk: a folder packed as the zip the server inspects (one top folder named like the
 * folder; symbolic links kept as links, so the server refuses them by name), and a released package unpacked
 * into a skills folder after its digest and every file's sha256 were checked.
 */

export interface PackedSkill {
  readonly bytes: Uint8Array
  readonly fileName: string
}

const FIXED_TIME = new Date(1980, 0, 1)

/** A folder (packed here) or a .zip (sent as it is). */
export const packSkill = async (path: string): Promise<PackedSkill> => {
  const info = await lstat(path).catch(() => undefined)
  if (!info) throw usageError(`'${path}' does not exist`)
  if (info.isFile()) {
    if (!path.toLowerCase().endsWith(".zip")) throw usageError(`'${path}' is neither a folder nor a .zip file`)
    return { bytes: new Uint8Array(await readFile(path)), fileName: basename(path) }
  }
  if (!info.isDirectory()) throw usageError(`'${path}' is neither a folder nor a .zip file`)
  const root = resolve(path)
  const folder = basename(root)
  const entries: Zippable = {}
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(dir, entry.name)
      const name = `${folder}/${relative(root, full).split(sep).join("/")}`
      if (entry.isDirectory()) {
        if (entry.name !== ".git") await walk(full)
      } else if (entry.isSymbolicLink()) {
        entries[name] = [new TextEncoder().encode(await readlink(full)), { os: 3, attrs: (0o120777 << 16) >>> 0, mtime: FIXED_TIME }]
      } else if (entry.isFile()) {
        entries[name] = [new Uint8Array(await readFile(full)), { os: 3, attrs: (0o100644 << 16) >>> 0, mtime: FIXED_TIME }]
      }
    }
  }
  await walk(root)
  return { bytes: zipSync(entries), fileName: `${folder}.zip` }
}

/** The server's 422 for a package, as one error listing every broken rule (exit 6), each as `  <path>: <message>`. */
export const packageProblems = (error: LoreApiError): CliError => {
  const problems = fieldErrorsOf(error.problem.errors)
  // The rules' codes go in the detail (scripts and people grep for them); each field's line follows it.
  const codes = [...new Set(problems.map((p) => p.code ?? "INVALID"))]
  const detail = `the skill package breaks ${problems.length} rule${problems.length === 1 ? "" : "s"} (${codes.join(", ")})`
  return new CliError(ExitCode.invalid, error.code, detail, error.status, error.requestId ?? undefined, undefined, problems)
}

export const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** The digest the draft's payload names (its canonical package), or undefined. */
export const draftDigest = (payload: string | undefined): string | undefined => {
  try {
    return payload ? (JSON.parse(payload) as SkillInspection).sha256 : undefined
  } catch {
    return undefined
  }
}

/** `namespace/slug@version`. */
export const parseCoordinate = (raw: string) => {
  const match = /^([a-z0-9][a-z0-9._-]*)\/([a-z0-9][a-z0-9-]*)@(\S+)$/.exec(raw.trim())
  if (!match) throw usageError(`'${raw}' is not a skill coordinate`, "Name a released skill as namespace/slug@version (e.g. docs/pdf-tools@1.0.0).")
  return { namespace: match[1]!, slug: match[2]!, version: match[3]! }
}

const mismatch = (detail: string) => new CliError(ExitCode.invalid, "DIGEST_MISMATCH", detail)

/**
 * Unpacks a released package into `<dir>/<slug>`, replacing what was there, once the package's digest and every
 * file's size and sha256 match the manifest; nothing is written when any check fails.
 */
export const installPackage = async (bytes: Uint8Array, manifest: SkillManifest, dir: string) => {
  const digest = `sha256:${sha256Hex(bytes)}`
  if (digest !== manifest.packageDigest) throw mismatch(`the package hashes to ${digest}, the manifest says ${manifest.packageDigest}`)
  const entries = unzipSync(bytes)
  const expected = new Map(manifest.files.map((file) => [`${manifest.slug}/${file.path}`, file]))
  const names = Object.keys(entries).filter((name) => !name.endsWith("/"))
  if (names.length !== expected.size || names.some((name) => !expected.has(name))) throw mismatch("the package's files differ from the manifest's")
  for (const name of names) {
    const file = expected.get(name)!
    const content = entries[name]!
    if (content.length !== file.size || sha256Hex(content) !== file.sha256) throw mismatch(`${file.path} differs from the manifest`)
    const segments = file.path.split("/")
    if (file.path.startsWith("/") || segments.includes("..") || segments.includes("")) throw mismatch(`${file.path} is not a safe path`)
  }
  const target = resolve(dir, manifest.slug)
  await mkdir(dir, { recursive: true })
  const staging = await mkdtemp(join(resolve(dir), `.${manifest.slug}-`))
  try {
    for (const name of names) {
      const path = join(staging, expected.get(name)!.path)
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, entries[name]!)
    }
    await rm(target, { recursive: true, force: true })
    await rename(staging, target)
  } catch (error) {
    await rm(staging, { recursive: true, force: true })
    throw error
  }
  return { directory: target, digest }
}
