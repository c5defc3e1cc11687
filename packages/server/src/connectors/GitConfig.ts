import { createHash } from "node:crypto"
import { quoteInput } from "../domain/Echo"
import type { FieldError } from "../domain/Errors"
import { Classification } from "../domain/Model"
import type { RepositoryCredential } from "../git/Repository"
import type { NativeAcl, NativeUser, SourceGroupMembership } from "./Kind"

/**
 * A GIT connection's settings (sourceConfig), checked field by field with fixed messages: a value is never
 * quoted back, since an address may carry what it should not.
 */
export interface GitConfig {
  readonly repository: string
  readonly branch: string
  /** Path prefixes without a trailing slash; empty = the whole repository. */
  readonly paths: ReadonlyArray<string>
  readonly classification: Classification
  /** Files larger than this are skipped (the server's upload limit caps it). */
  readonly maxFileBytes: number | null
  /** A link template with {branch}, {commit} and {path}; null derives one for known hosts. */
  readonly browseUrl: string | null
  /** Who may read every document of the repository. */
  readonly readers: NativeAcl
  /** Reader groups whose members the connection names (source group snapshots). */
  readonly groups: ReadonlyArray<SourceGroupMembership>
}

const KEYS = ["repository", "branch", "paths", "readers", "classification", "maxFileBytes", "browseUrl", "description"]
const BRANCH = /^[A-Za-z0-9_][A-Za-z0-9._/-]{0,199}$/
const MAX_PRINCIPALS = 1000
const MAX_PATHS = 100
const CLASSIFICATIONS: ReadonlyArray<string> = Classification.literals

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)
const isText = (value: unknown, max: number) => typeof value === "string" && value.trim().length > 0 && value.length <= max

/** `docs/`, `./docs` and `docs` are one prefix; null when it is not a plain relative path. */
export const normalizePath = (raw: string): string | null => {
  const path = raw.trim().replace(/^\.\//, "").replace(/\/+$/, "")
  if (path === "" || path.startsWith("/") || path.includes("\\") || path.includes("\0")) return null
  if (path.split("/").some((part) => part === "" || part === "." || part === "..")) return null
  return path.length <= 500 ? path : null
}

const checkUser = (value: unknown, path: string, errors: Array<FieldError>) => {
  if (!isRecord(value)) return errors.push({ path, message: "must be an object with id, and optionally email and displayName" })
  for (const key of Object.keys(value)) if (!["id", "email", "displayName"].includes(key)) errors.push({ path: `${path}.${quoteInput(key, 100)}`, message: "is not a field of a reader (id, email, displayName)" })
  if (!isText(value.id, 500)) errors.push({ path: `${path}.id`, message: "must be a non-empty string of at most 500 characters" })
  if (value.email !== undefined && (typeof value.email !== "string" || value.email.length > 320 || !/^[^\s@]+@[^\s@]+$/.test(value.email))) {
    errors.push({ path: `${path}.email`, message: "must be an email address" })
  }
  if (value.displayName !== undefined && !isText(value.displayName, 500)) errors.push({ path: `${path}.displayName`, message: "must be a string of at most 500 characters" })
}

const checkReaders = (value: unknown, errors: Array<FieldError>) => {
  const path = "sourceConfig.readers"
  if (!isRecord(value)) return errors.push({ path, message: "is required: { users: [{ id, email? }], groups: [{ id, members? }] }, who may read the repository" })
  for (const key of Object.keys(value)) if (key !== "users" && key !== "groups") errors.push({ path: `${path}.${quoteInput(key, 100)}`, message: "is not a field of readers (users, groups)" })
  const users = value.users ?? []
  const groups = value.groups ?? []
  if (!Array.isArray(users) || users.length > MAX_PRINCIPALS) errors.push({ path: `${path}.users`, message: `must be an array of at most ${MAX_PRINCIPALS} readers` })
  else users.forEach((user, i) => checkUser(user, `${path}.users[${i}]`, errors))
  if (!Array.isArray(groups) || groups.length > MAX_PRINCIPALS) errors.push({ path: `${path}.groups`, message: `must be an array of at most ${MAX_PRINCIPALS} groups` })
  else {
    groups.forEach((group, i) => {
      const at = `${path}.groups[${i}]`
      if (!isRecord(group)) return errors.push({ path: at, message: "must be an object with id, and optionally displayName and members" })
      for (const key of Object.keys(group)) if (!["id", "displayName", "members"].includes(key)) errors.push({ path: `${at}.${quoteInput(key, 100)}`, message: "is not a field of a group (id, displayName, members)" })
      if (!isText(group.id, 500)) errors.push({ path: `${at}.id`, message: "must be a non-empty string of at most 500 characters" })
      if (group.displayName !== undefined && !isText(group.displayName, 500)) errors.push({ path: `${at}.displayName`, message: "must be a string of at most 500 characters" })
      if (group.members !== undefined) {
        if (!Array.isArray(group.members) || group.members.length > MAX_PRINCIPALS) errors.push({ path: `${at}.members`, message: `must be an array of at most ${MAX_PRINCIPALS} users` })
        else group.members.forEach((member, j) => checkUser(member, `${at}.members[${j}]`, errors))
      }
    })
  }
  if (Array.isArray(users) && Array.isArray(groups) && users.length + groups.length === 0) {
    errors.push({ path, message: "must name at least one user or group (documents nobody may read are not indexed)" })
  }
}

/** Field errors of a GIT sourceConfig (the repository's host is checked against the server's settings when it is used). */
export const validateGitConfig = (config: Readonly<Record<string, unknown>>): ReadonlyArray<FieldError> => {
  const errors: Array<FieldError> = []
  for (const key of Object.keys(config)) if (!KEYS.includes(key)) errors.push({ path: `sourceConfig.${quoteInput(key, 100)}`, message: `is not a setting of GIT connections (allowed: ${KEYS.join(", ")})` })
  const repository = config.repository
  if (typeof repository !== "string" || repository.length > 2000) errors.push({ path: "sourceConfig.repository", message: "is required: the repository's http(s):// or file:// URL" })
  else {
    let url: URL | null = null
    try {
      url = new URL(repository.trim())
    } catch {
      errors.push({ path: "sourceConfig.repository", message: "must be an http(s):// or file:// URL" })
    }
    if (url && !["http:", "https:", "file:"].includes(url.protocol)) errors.push({ path: "sourceConfig.repository", message: "must be an http(s):// or file:// URL" })
    else if (url && (url.username || url.password)) errors.push({ path: "sourceConfig.repository", message: "must not hold credentials: set them as the connection's credential" })
  }
  const branch = config.branch
  if (branch !== undefined && (typeof branch !== "string" || !BRANCH.test(branch) || branch.includes("..") || branch.endsWith(".lock") || branch.startsWith("refs/"))) {
    errors.push({ path: "sourceConfig.branch", message: "must be a branch name (letters, digits, '.', '_', '/', '-'; without refs/heads/)" })
  }
  const paths = config.paths
  if (paths !== undefined) {
    if (!Array.isArray(paths) || paths.length > MAX_PATHS) errors.push({ path: "sourceConfig.paths", message: `must be an array of at most ${MAX_PATHS} path prefixes` })
    else paths.forEach((path, i) => {
      if (typeof path !== "string" || normalizePath(path) === null) errors.push({ path: `sourceConfig.paths[${i}]`, message: "must be a relative path inside the repository (no '..', no leading '/')" })
    })
  }
  if (config.classification !== undefined && !CLASSIFICATIONS.includes(config.classification as string)) {
    errors.push({ path: "sourceConfig.classification", message: `must be one of ${CLASSIFICATIONS.join(", ")}` })
  }
  const max = config.maxFileBytes
  if (max !== undefined && (typeof max !== "number" || !Number.isInteger(max) || max < 1)) errors.push({ path: "sourceConfig.maxFileBytes", message: "must be a positive integer" })
  const browse = config.browseUrl
  if (browse !== undefined) {
    let ok = typeof browse === "string" && browse.length <= 2000 && browse.includes("{path}")
    try {
      ok &&= ["http:", "https:"].includes(new URL((browse as string).replace(/\{(path|branch|commit)\}/g, "x")).protocol)
    } catch {
      ok = false
    }
    if (!ok) errors.push({ path: "sourceConfig.browseUrl", message: "must be an http(s) URL template holding {path} (and optionally {branch}, {commit})" })
  }
  if (config.description !== undefined && (typeof config.description !== "string" || config.description.length > 500)) {
    errors.push({ path: "sourceConfig.description", message: "must be a string of at most 500 characters" })
  }
  checkReaders(config.readers, errors)
  return errors
}

const toUser = (value: Record<string, unknown>): NativeUser => ({
  id: value.id as string,
  ...(typeof value.email === "string" ? { email: value.email.toLowerCase() } : {}),
  ...(typeof value.displayName === "string" ? { displayName: value.displayName } : {})
})

/** The settings of a valid sourceConfig (validateGitConfig first). */
export const parseGitConfig = (config: Readonly<Record<string, unknown>>): GitConfig => {
  const readers = (config.readers ?? {}) as Record<string, unknown>
  const groups = ((readers.groups ?? []) as Array<Record<string, unknown>>)
  return {
    repository: (config.repository as string).trim(),
    branch: (config.branch as string | undefined) ?? "main",
    paths: [...new Set(((config.paths ?? []) as Array<string>).map((p) => normalizePath(p)!))].sort(),
    classification: (config.classification as Classification | undefined) ?? "INTERNAL",
    maxFileBytes: (config.maxFileBytes as number | undefined) ?? null,
    browseUrl: (config.browseUrl as string | undefined) ?? null,
    readers: {
      users: ((readers.users ?? []) as Array<Record<string, unknown>>).map(toUser),
      groups: groups.map((g) => ({ id: g.id as string, ...(typeof g.displayName === "string" ? { displayName: g.displayName } : {}) }))
    },
    groups: groups
      .filter((g) => Array.isArray(g.members))
      .map((g) => ({
        id: g.id as string,
        ...(typeof g.displayName === "string" ? { displayName: g.displayName } : {}),
        members: { users: (g.members as Array<Record<string, unknown>>).map(toUser), groups: [] }
      }))
  }
}

/** The credential: a token string, or { username, token } kept as JSON. */
export const readGitCredential = (credential: unknown): { readonly ok: true; readonly secret: string } | { readonly ok: false; readonly message: string } => {
  const bad = { ok: false as const, message: "credential must be a token (a string) or { username, token } for the repository's http(s) server" }
  // The CLI sends what it reads as a string: { username, token } may come as its JSON.
  if (typeof credential === "string" && credential.trim().startsWith("{")) {
    try {
      credential = JSON.parse(credential) as unknown
    } catch {
      return bad
    }
  }
  if (typeof credential === "string") {
    return credential.length === 0 || credential.length > 4096 || /[\s\0]/.test(credential) ? bad : { ok: true, secret: credential }
  }
  if (!isRecord(credential) || Object.keys(credential).some((k) => k !== "username" && k !== "token")) return bad
  const { username, token } = credential
  if (typeof token !== "string" || token.length === 0 || token.length > 4096 || /[\s\0]/.test(token)) return bad
  if (username !== undefined && (typeof username !== "string" || !/^[^\s:]{1,200}$/.test(username))) return bad
  return { ok: true, secret: JSON.stringify(username === undefined ? { token } : { username, token }) }
}

/** The stored secret as git's credential (a plain token, or the JSON form). */
export const gitCredential = (secret: string | null): RepositoryCredential | undefined => {
  if (secret === null) return undefined
  if (secret.startsWith("{")) {
    try {
      const parsed = JSON.parse(secret) as { username?: string; token: string }
      return { username: parsed.username, token: parsed.token }
    } catch {
      return { token: secret }
    }
  }
  return { token: secret }
}

const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16)

/** What every document carries from the settings (ACL, classification, links): when it changes, every document is yielded again. */
export const documentStamp = (config: GitConfig) =>
  digest({ readers: config.readers, groups: config.groups, classification: config.classification, browseUrl: config.browseUrl, repository: config.repository, branch: config.branch })

/** Which files are admitted: when it changes, a crawl must look at the tree even if the branch did not move. */
export const filterStamp = (config: GitConfig, maxFileBytes: number) => digest({ paths: config.paths, maxFileBytes })
