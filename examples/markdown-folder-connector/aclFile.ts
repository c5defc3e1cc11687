import type { Classification, PushedAcl, PushedGroup } from "@lore/sdk"
import { classificationValues } from "@lore/sdk"
import { parse } from "yaml"

/**
 * The folder's access list, `acl.yaml`: who is who (source user ids with the email Lore maps them by), the
 * groups (members are users and other groups, so groups nest), and rules that give each file its readers.
 *
 *   users:   { ann: { email: ann@example.com, name: Ann Archer } }
 *   groups:  { engineering: { name: Engineering, users: [ann], groups: [sre] }, sre: { users: [ben] } }
 *   files:   [ { match: "engineering/**", groups: [engineering], users: [ann], classification: INTERNAL } ]
 *
 * The LAST rule that matches a file decides its readers (as in CODEOWNERS): a broad rule first, exceptions
 * after it. A file that no rule matches has no readers, so it is not pushed (and is retired if it was).
 */

export interface AclUser { readonly email?: string; readonly name?: string }
export interface AclGroup { readonly name?: string; readonly users: ReadonlyArray<string>; readonly groups: ReadonlyArray<string> }
export interface AclRule {
  readonly match: string
  readonly pattern: RegExp
  readonly users: ReadonlyArray<string>
  readonly groups: ReadonlyArray<string>
  readonly classification?: Classification
}
export interface AclFile {
  readonly users: ReadonlyMap<string, AclUser>
  readonly groups: ReadonlyMap<string, AclGroup>
  readonly rules: ReadonlyArray<AclRule>
  readonly classification: Classification
  /** A link template with `{path}` (e.g. the file in your git host's web view), or none. */
  readonly url?: string
}

/** A mistake in acl.yaml: the sync stops before pushing or deleting anything. */
export class AclFileError extends Error {}

const MAX_ACL_BYTES = 1024 * 1024
const MAX_ENTRIES = 10_000

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const names = (value: unknown, where: string): Array<string> => {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v.length === 0 || v.length > 500)) {
    throw new AclFileError(`${where} must be a list of names`)
  }
  return value as Array<string>
}

const optionalText = (value: unknown, where: string): string | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value !== "string" || value.length > 500) throw new AclFileError(`${where} must be a string of at most 500 characters`)
  return value
}

const classificationOf = (value: unknown, where: string): Classification | undefined => {
  if (value === undefined || value === null) return undefined
  if (!classificationValues.includes(value as Classification)) throw new AclFileError(`${where} must be one of ${classificationValues.join(", ")}`)
  return value as Classification
}

/**
 * A glob over `/`-separated relative paths: `**` any number of folders, `*` any characters but `/`, `?` one.
 * (Node's `path.matchesGlob` would do, but it is still experimental on Node 20 and warns on every run.)
 */
export const globToRegExp = (glob: string): RegExp => {
  let pattern = ""
  for (let at = 0; at < glob.length; at++) {
    const char = glob[at]!
    if (char === "*" && glob[at + 1] === "*") {
      // "**/" matches zero or more whole folders; a trailing "**" everything below.
      if (glob[at + 2] === "/") { pattern += "(?:.*/)?"; at += 2 } else { pattern += ".*"; at += 1 }
    } else if (char === "*") pattern += "[^/]*"
    else if (char === "?") pattern += "[^/]"
    else pattern += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&")
  }
  return new RegExp(`^${pattern}$`)
}

export const parseAclFile = (text: string): AclFile => {
  if (Buffer.byteLength(text) > MAX_ACL_BYTES) throw new AclFileError("acl.yaml is larger than 1 MiB")
  let document: unknown
  try {
    // maxAliasCount bounds YAML alias expansion ("billion laughs").
    document = parse(text, { maxAliasCount: 100 })
  } catch (error) {
    throw new AclFileError(`acl.yaml is not valid YAML: ${(error as Error).message.split("\n")[0]}`)
  }
  if (!isRecord(document)) throw new AclFileError("acl.yaml must be a mapping with users, groups and files")
  for (const key of Object.keys(document)) {
    if (!["users", "groups", "files", "classification", "url"].includes(key)) throw new AclFileError(`acl.yaml: unknown section '${key.slice(0, 100)}'`)
  }
  const rawUsers = document.users ?? {}
  const rawGroups = document.groups ?? {}
  const rawRules = document.files ?? []
  if (!isRecord(rawUsers)) throw new AclFileError("users must be a mapping of user ids")
  if (!isRecord(rawGroups)) throw new AclFileError("groups must be a mapping of group ids")
  if (!Array.isArray(rawRules)) throw new AclFileError("files must be a list of rules")
  if (Object.keys(rawUsers).length + Object.keys(rawGroups).length + rawRules.length > MAX_ENTRIES) throw new AclFileError(`acl.yaml has more than ${MAX_ENTRIES} entries`)

  const users = new Map<string, AclUser>()
  for (const [id, value] of Object.entries(rawUsers)) {
    const entry = value ?? {}
    if (!isRecord(entry)) throw new AclFileError(`users.${id}: must be a mapping (email, name)`)
    const email = optionalText(entry.email, `users.${id}.email`)
    const name = optionalText(entry.name, `users.${id}.name`)
    users.set(id, { ...(email ? { email } : {}), ...(name ? { name } : {}) })
  }
  const groups = new Map<string, AclGroup>()
  for (const [id, value] of Object.entries(rawGroups)) {
    if (!isRecord(value)) throw new AclFileError(`groups.${id}: must be a mapping (name, users, groups)`)
    const name = optionalText(value.name, `groups.${id}.name`)
    groups.set(id, { ...(name ? { name } : {}), users: names(value.users, `groups.${id}.users`), groups: names(value.groups, `groups.${id}.groups`) })
  }
  const rules = rawRules.map((value, index): AclRule => {
    const where = `files[${index}]`
    if (!isRecord(value) || typeof value.match !== "string" || value.match.length === 0 || value.match.length > 500) {
      throw new AclFileError(`${where}: a rule needs a 'match' glob`)
    }
    const classification = classificationOf(value.classification, `${where}.classification`)
    return {
      match: value.match,
      pattern: globToRegExp(value.match),
      users: names(value.users, `${where}.users`),
      groups: names(value.groups, `${where}.groups`),
      ...(classification ? { classification } : {})
    }
  })

  // Every name must be defined: a typo would otherwise push an ACL naming a principal nobody is mapped to.
  const checkUsers = (list: ReadonlyArray<string>, where: string) => {
    for (const id of list) if (!users.has(id)) throw new AclFileError(`${where} names user '${id.slice(0, 100)}', which is not under users`)
  }
  const checkGroups = (list: ReadonlyArray<string>, where: string) => {
    for (const id of list) if (!groups.has(id)) throw new AclFileError(`${where} names group '${id.slice(0, 100)}', which is not under groups`)
  }
  for (const [id, group] of groups) {
    checkUsers(group.users, `groups.${id}`)
    checkGroups(group.groups, `groups.${id}`)
  }
  rules.forEach((rule, index) => {
    checkUsers(rule.users, `files[${index}]`)
    checkGroups(rule.groups, `files[${index}]`)
  })
  const url = optionalText(document.url, "url")
  return { users, groups, rules, classification: classificationOf(document.classification, "classification") ?? "INTERNAL", ...(url ? { url } : {}) }
}

/** A user as the ACL and group members carry it: the source's id, and the email Lore maps it by. */
const principal = (acl: AclFile, id: string) => {
  const user = acl.users.get(id)!
  return { id, ...(user.email ? { email: user.email } : {}), ...(user.name ? { displayName: user.name } : {}) }
}

/** The rule that decides a file's readers (the last that matches), or undefined when none does. */
export const ruleFor = (acl: AclFile, path: string): AclRule | undefined => acl.rules.findLast((rule) => rule.pattern.test(path))

export const documentAcl = (acl: AclFile, rule: AclRule): PushedAcl => ({
  users: rule.users.map((id) => principal(acl, id)),
  groups: rule.groups.map((id) => ({ id, ...(acl.groups.get(id)!.name ? { displayName: acl.groups.get(id)!.name! } : {}) }))
})

export const pushedGroup = (acl: AclFile, id: string): PushedGroup => {
  const group = acl.groups.get(id)!
  return {
    ...(group.name ? { displayName: group.name } : {}),
    members: { users: group.users.map((user) => principal(acl, user)), groups: group.groups.map((member) => ({ id: member })) }
  }
}
