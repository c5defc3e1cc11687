import { createHash } from "node:crypto"
import { nullPrototypeObject } from "../../domain/SafeKeys"
import { canonicalPackage, declaredProblems, type PackageFile, readZip, type SkillLimits, type SkillProblem } from "./Archive"
import { readFrontmatter } from "./Frontmatter"

/**
 * The Agent Skills format (agentskills.io): a folder with SKILL.md, whose YAML frontmatter holds `name`,
 * `description` and optionally `license`, `compatibility`, `allowed-tools` and `metadata`, and nothing else.
 * Every broken rule is reported at once, each with its own code, so an author fixes them in one pass.
 */

export interface SkillFile {
  readonly path: string
  readonly size: number
  readonly sha256: string
}

/** What Lore knows of a valid skill (the contract's SkillInspection); `sha256` and `contentLength` are the canonical package's. */
export interface SkillInspection {
  readonly name: string
  readonly description: string
  readonly license: string | null
  readonly compatibility: string | null
  readonly allowedTools: string | null
  readonly metadata: Readonly<Record<string, string>>
  readonly instructions: string
  readonly sha256: string
  readonly contentLength: number
  readonly files: ReadonlyArray<SkillFile>
}

export interface ValidSkill {
  readonly inspection: SkillInspection
  /** The canonical zip, whose digest is `inspection.sha256`. */
  readonly packageBytes: Uint8Array
}

export type SkillCheck = { readonly ok: true; readonly skill: ValidSkill } | { readonly ok: false; readonly problems: ReadonlyArray<SkillProblem> }

const ALLOWED_KEYS = new Set(["name", "description", "license", "compatibility", "allowed-tools", "metadata"])

const chars = (text: string) => [...text].length
export const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** The rules on a skill's name (also used for folder names in repositories). */
export const nameProblems = (name: unknown, directory: string | null): Array<SkillProblem> => {
  const at = "SKILL.md#name"
  if (name === undefined || name === null || name === "") return [{ code: "NAME_REQUIRED", path: at, message: "name is required" }]
  if (typeof name !== "string") return [{ code: "NAME_NOT_A_STRING", path: at, message: "name must be a string" }]
  const problems: Array<SkillProblem> = []
  if (chars(name) > 64) problems.push({ code: "NAME_TOO_LONG", path: at, message: "name must be at most 64 characters" })
  if (!/^[a-z0-9-]*$/.test(name)) problems.push({ code: "NAME_INVALID_CHARACTERS", path: at, message: "name may hold only lowercase letters, digits and hyphens" })
  if (name.startsWith("-") || name.endsWith("-") || name.includes("--")) {
    problems.push({ code: "NAME_INVALID_HYPHENS", path: at, message: "name must not start or end with a hyphen or hold two in a row" })
  }
  if (directory !== null && name !== directory) problems.push({ code: "NAME_DIRECTORY_MISMATCH", path: at, message: "name must equal the skill's folder name" })
  return problems
}

const optionalString = (fields: Record<string, unknown>, key: string, code: string, max: number | null, problems: Array<SkillProblem>) => {
  const value = fields[key]
  if (value === undefined || value === null) return null
  if (typeof value !== "string") {
    problems.push({ code: `${code}_NOT_A_STRING`, path: `SKILL.md#${key}`, message: `${key} must be a string` })
    return null
  }
  if (max !== null && (chars(value) > max || value.length === 0)) {
    problems.push({ code: `${code}_INVALID_LENGTH`, path: `SKILL.md#${key}`, message: `${key} must be 1 to ${max} characters` })
    return null
  }
  return value
}

/** Checks the frontmatter of SKILL.md (`directory`: the folder the skill lives in, when there is one). */
export const frontmatterProblems = (skillMd: Uint8Array, directory: string | null) => {
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(skillMd)
  } catch {
    return { problems: [{ code: "SKILL_MD_NOT_UTF8", path: "SKILL.md", message: "SKILL.md must be UTF-8 text" }] }
  }
  const parsed = readFrontmatter(text)
  if (!parsed.ok) return { problems: parsed.problems }
  const fields = parsed.fields
  const problems: Array<SkillProblem> = []
  for (const key of Object.keys(fields)) {
    if (!ALLOWED_KEYS.has(key)) problems.push({ code: "UNKNOWN_FIELD", path: `SKILL.md#${key.slice(0, 64)}`, message: "is not a field of the Agent Skills format (name, description, license, compatibility, allowed-tools, metadata)" })
  }
  problems.push(...nameProblems(fields.name, directory))
  let description = ""
  if (fields.description === undefined || fields.description === null || fields.description === "") {
    problems.push({ code: "DESCRIPTION_REQUIRED", path: "SKILL.md#description", message: "description is required" })
  } else if (typeof fields.description !== "string") {
    problems.push({ code: "DESCRIPTION_NOT_A_STRING", path: "SKILL.md#description", message: "description must be a string" })
  } else if (chars(fields.description) > 1024) {
    problems.push({ code: "DESCRIPTION_TOO_LONG", path: "SKILL.md#description", message: "description must be at most 1024 characters" })
  } else description = fields.description
  const license = optionalString(fields, "license", "LICENSE", null, problems)
  const compatibility = optionalString(fields, "compatibility", "COMPATIBILITY", 500, problems)
  const allowedTools = optionalString(fields, "allowed-tools", "ALLOWED_TOOLS", null, problems)
  // Built from caller keys: no prototype to reach (denied keys were refused while reading the YAML).
  const metadata = nullPrototypeObject<string>()
  if (fields.metadata !== undefined && fields.metadata !== null) {
    const value = fields.metadata
    if (typeof value !== "object" || Array.isArray(value)) {
      problems.push({ code: "METADATA_NOT_A_MAPPING", path: "SKILL.md#metadata", message: "metadata must be a mapping of strings to strings" })
    } else {
      for (const key of Object.keys(value)) {
        const entry = (value as Record<string, unknown>)[key]
        if (typeof entry === "string") metadata[key] = entry
        else problems.push({ code: "METADATA_VALUE_NOT_A_STRING", path: `SKILL.md#metadata.${key.slice(0, 64)}`, message: "metadata values must be strings (quote numbers and dates)" })
      }
    }
  }
  return {
    problems,
    fields: {
      name: typeof fields.name === "string" ? fields.name : "",
      description,
      license,
      compatibility,
      allowedTools,
      metadata,
      instructions: parsed.instructions
    }
  }
}

/**
 * Validates a skill's files (paths relative to the skill folder; `directory` is that folder's name, or null
 * when the package has SKILL.md at its root) and builds its canonical package.
 */
export const checkSkill = (files: ReadonlyArray<PackageFile>, directory: string | null, limits: SkillLimits): SkillCheck => {
  const problems: Array<SkillProblem> = declaredProblems(files.map((file) => ({ path: file.path, symlink: false, directory: false })), limits)
  const total = files.reduce((sum, file) => sum + file.bytes.length, 0)
  if (total > limits.maxUnpackedBytes) problems.push({ code: "PACKAGE_TOO_LARGE", path: "", message: `unpacks to more than ${limits.maxUnpackedBytes} bytes` })
  for (const file of files) {
    if (file.bytes.length > limits.maxFileBytes) problems.push({ code: "FILE_TOO_LARGE", path: file.path, message: `is larger than ${limits.maxFileBytes} bytes` })
  }
  const skillMd = files.find((file) => file.path === "SKILL.md")
  if (!skillMd) return { ok: false, problems: [...problems, { code: "SKILL_MD_MISSING", path: "SKILL.md", message: "the package has no SKILL.md at its root or in its one top folder" }] }
  const checked = frontmatterProblems(skillMd.bytes, directory)
  problems.push(...checked.problems)
  if (problems.length > 0 || !checked.fields) return { ok: false, problems }
  const fields = checked.fields
  const packageBytes = canonicalPackage(fields.name, files)
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return {
    ok: true,
    skill: {
      packageBytes,
      inspection: {
        ...fields,
        sha256: `sha256:${sha256Hex(packageBytes)}`,
        contentLength: packageBytes.length,
        files: sorted.map((file) => ({ path: file.path, size: file.bytes.length, sha256: sha256Hex(file.bytes) }))
      }
    }
  }
}

/**
 * A zip package: SKILL.md at its root, or one top folder holding SKILL.md (whose name the skill's must equal).
 */
export const inspectZip = (bytes: Uint8Array, limits: SkillLimits): SkillCheck => {
  const read = readZip(bytes, limits)
  if (!read.ok) return read
  if (read.files.some((file) => file.path === "SKILL.md")) return checkSkill(read.files, null, limits)
  const tops = new Set(read.files.map((file) => file.path.split("/")[0]!))
  const top = tops.size === 1 ? [...tops][0]! : undefined
  if (top === undefined || !read.files.some((file) => file.path === `${top}/SKILL.md`)) {
    return { ok: false, problems: [{ code: "SKILL_MD_MISSING", path: "SKILL.md", message: "the package has no SKILL.md at its root or in its one top folder" }] }
  }
  return checkSkill(read.files.map((file) => ({ path: file.path.slice(top.length + 1), bytes: file.bytes })), top, limits)
}
