import {
  type AddGrant,
  type AdminKnowledgeSpace,
  type AdminUser,
  type Department,
  type GrantKind,
  grantKindValues,
  type KnowledgeSpaceRef,
  type SpaceRelation,
  spaceRelationValues,
  userRoleValues
} from "@lore/sdk"
import { type Command, InvalidArgumentError } from "commander"
import type { LoreClient } from "./context"
import { CliError, ExitCode, usageError } from "./errors"

/**
 * Every argument parser and resolver of the CLI: what people type (an enumeration value, a count, a time,
 * an email, a department name, a space key) checked before any request and turned into what the API
 * wants (ids). Parsers fail with a usage error (exit 2) that names what is accepted; resolvers fail with
 * not found (exit 5) and say which command lists the candidates. Choices always come from the SDK's
 * generated value arrays (`classificationValues`, `clearanceValues`, ...), never typed again here.
 */

// ---- parsers ----------------------------------------------------------------------------------------

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (value: string) => UUID.test(value)

/** An id argument: a usage error naming what it should be and where to find one, before any request. */
export const requireId = (value: string, what: string, hint: string) => {
  if (!isUuid(value)) throw usageError(`'${value}' is not a ${what} id`, hint)
  return value
}

/**
 * A commander parser for an enumeration; case-insensitive (`--role admin`), and dashes may stand for
 * underscores (`org-admin`). A wrong value is a usage error (exit 2) listing the choices.
 */
export const oneOf =
  <T extends string>(values: ReadonlyArray<T>) =>
  (raw: string): T => {
    const normalized = raw.trim().replace(/-/g, "_")
    const found = values.find((value) => value.toLowerCase() === normalized.toLowerCase())
    if (!found) throw new InvalidArgumentError(`one of ${values.join(", ")}`)
    return found
  }

/** The same check for positional arguments (commander's argParser errors name the argument). */
export const parseOneOf = <T extends string>(values: ReadonlyArray<T>, raw: string, what: string): T => {
  try {
    return oneOf(values)(raw)
  } catch {
    throw usageError(`'${raw}' is not a ${what}: use one of ${values.join(", ")}`)
  }
}

/** A commander parser for a whole number from `min` to `max` (counts, limits, days, ports). */
export const parseCount = (min: number, max: number) => (value: string) => {
  const count = Number(value)
  if (!/^\d+$/.test(value) || count < min || count > max) throw new InvalidArgumentError(`a whole number from ${min} to ${max}`)
  return count
}

/** An ISO 8601 time, or a duration back from now: `30m`, `24h`, `7d`, `2w`. Always given back as ISO 8601 UTC. */
export const parseTime = (flag: string, raw: string, now = Date.now()): string => {
  const relative = /^(\d+)\s*([mhdw])$/.exec(raw.trim())
  if (relative) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[relative[2] as "m" | "h" | "d" | "w"]
    return new Date(now - Number(relative[1]) * unit).toISOString()
  }
  const time = Date.parse(raw)
  if (Number.isNaN(time)) throw usageError(`${flag} '${raw}' is not a time: pass ISO 8601 (2025-03-01, 2025-03-01T14:00:00Z) or a duration (30m, 24h, 7d)`)
  return new Date(time).toISOString()
}

/** A text that must not be blank, trimmed. */
export const nonEmpty = (value: string, what: string) => {
  const trimmed = value.trim()
  if (trimmed === "") throw usageError(`${what} is empty`)
  return trimmed
}

export const requireEmail = (value: string) => {
  const trimmed = value.trim()
  if (!/^[^@\s]+@[^@\s]+$/.test(trimmed)) throw usageError(`'${value}' is not an email address`)
  return trimmed
}

/** A knowledge space key: lowercase letters, digits and dashes, at most 63. */
export const requireSpaceKey = (key: string) => {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(key)) throw usageError(`'${key}' is not a valid key: lowercase letters, digits and dashes, at most 63`)
  return key
}

/** Flags that exclude each other: a usage error when more than one is given. */
export const atMostOne = (flags: Record<string, unknown>) => {
  const given = Object.entries(flags).filter(([, value]) => value !== undefined && value !== false)
  if (given.length > 1) throw usageError(`pass either ${given.map(([name]) => name).join(" or ")}, not both`)
}

// ---- resolvers --------------------------------------------------------------------------------------

const notFound = (code: string, detail: string, hint?: string) => new CliError(ExitCode.notFound, code, detail, 0, undefined, hint)

const spacesHint = (spaces: ReadonlyArray<KnowledgeSpaceRef>, what: string) =>
  spaces.length === 0 ? `There is no space you can ${what}.` : `Spaces you can ${what}: ${spaces.map((space) => `${space.key} (${space.name})`).join(", ")}`

/**
 * A knowledge space named by key or id, as anyone may name one. `upload`: among the spaces the caller may
 * add documents to; `read`: among those the caller may see. Unknown: exit 5, listing the candidates.
 */
export const resolveSpace = async (lore: LoreClient, spec: string, purpose: "read" | "upload"): Promise<KnowledgeSpaceRef> => {
  const spaces = purpose === "upload" ? await lore.knowledgeSpaces.uploadTargets() : await lore.knowledgeSpaces.visible()
  const wanted = spec.trim()
  const find = (candidates: ReadonlyArray<KnowledgeSpaceRef>) =>
    candidates.find((space) => space.id.toLowerCase() === wanted.toLowerCase() || space.key === wanted) ??
    candidates.find((space) => space.key.toLowerCase() === wanted.toLowerCase())
  const found = find(spaces)
  if (found) return found
  const what = purpose === "upload" ? "upload into" : "see"
  if (purpose === "upload") {
    const visible = find(await lore.knowledgeSpaces.visible())
    if (visible) {
      throw new CliError(ExitCode.forbidden, "UPLOAD_NOT_ALLOWED", `you may not add documents to '${visible.key}': contributor access is needed`, 0, undefined, spacesHint(spaces, what))
    }
  }
  throw notFound("SPACE_NOT_FOUND", `no knowledge space '${spec}' that you can ${what}`, spacesHint(spaces, what))
}

/**
 * The administration lookups: users by email or id, departments by name or id, spaces by key or id,
 * through the admin list endpoints, each fetched at most once per invocation (resolving three emails
 * costs one request, not three).
 */
export class Directory {
  private usersList: Promise<Array<AdminUser>> | undefined
  private departmentsList: Promise<Array<Department>> | undefined
  private spacesList: Promise<Array<AdminKnowledgeSpace>> | undefined

  constructor(readonly lore: LoreClient) {}

  users(): Promise<Array<AdminUser>> {
    return (this.usersList ??= this.lore.admin.users.list())
  }

  departments(): Promise<Array<Department>> {
    return (this.departmentsList ??= this.lore.admin.departments.list())
  }

  spaces(): Promise<Array<AdminKnowledgeSpace>> {
    return (this.spacesList ??= this.lore.admin.spaces.list())
  }

  /** An email (case-insensitive) or a user id. An id is used as given: the server answers 404 for a stranger. */
  async userId(ref: string): Promise<string> {
    return isUuid(ref) ? ref : (await this.user(ref)).id
  }

  async user(ref: string): Promise<AdminUser> {
    const users = await this.users()
    const wanted = ref.trim().toLowerCase()
    const found = users.find((user) => user.id.toLowerCase() === wanted || user.email.toLowerCase() === wanted)
    if (!found) throw notFound("USER_NOT_FOUND", `no user '${ref}' in the organization`, "'lore admin users list' shows the users")
    return found
  }

  /** A department id or name (exact first, then case-insensitive). */
  async departmentId(ref: string): Promise<string> {
    return isUuid(ref) ? ref : (await this.department(ref)).id
  }

  async department(ref: string): Promise<Department> {
    const departments = await this.departments()
    const exact = departments.filter((department) => department.id === ref || department.name === ref)
    const matches = exact.length > 0 ? exact : departments.filter((department) => department.name.toLowerCase() === ref.trim().toLowerCase())
    if (matches.length === 0) {
      throw notFound("DEPARTMENT_NOT_FOUND", `no department '${ref}'`, "'lore admin departments list' shows the departments")
    }
    if (matches.length > 1) throw usageError(`more than one department is called '${ref}': use its id`)
    return matches[0]!
  }

  /** A knowledge space id or key. */
  async space(ref: string): Promise<AdminKnowledgeSpace> {
    const spaces = await this.spaces()
    const found = spaces.find((space) => space.id.toLowerCase() === ref.toLowerCase() || space.key === ref.toLowerCase())
    if (!found) throw notFound("KNOWLEDGE_SPACE_NOT_FOUND", `no knowledge space '${ref}'`, "'lore admin spaces list' shows the spaces and their keys")
    return found
  }

  async spaceId(ref: string): Promise<string> {
    return isUuid(ref) ? ref : (await this.space(ref)).id
  }

  /** A space read again after a change (the memoized list is from before it); undefined once it is gone. */
  async spaceNow(spaceId: string): Promise<AdminKnowledgeSpace | undefined> {
    return (await this.lore.admin.spaces.list()).find((space) => space.id === spaceId)
  }

  /** The space a grant command names and the grant as the API takes it, resolved together. */
  async grantOn(spaceRef: string, spec: GrantSpec): Promise<{ readonly space: AdminKnowledgeSpace; readonly grant: AddGrant }> {
    const [space, grant] = await Promise.all([this.space(spaceRef), resolveGrant(this, spec)])
    return { space, grant }
  }

  /** Lookup tables for views: id -> email and id -> department name. */
  async labels(): Promise<Labels> {
    const [users, departments] = await Promise.all([this.users(), this.departments()])
    return {
      users: new Map(users.map((user) => [user.id, user.email])),
      departments: new Map(departments.map((department) => [department.id, department.name]))
    }
  }
}

/** Names for the ids in admin results: id -> email and id -> department name. */
export interface Labels {
  readonly users: ReadonlyMap<string, string>
  readonly departments: ReadonlyMap<string, string>
}

// ---- grants -----------------------------------------------------------------------------------------

/** A grant as typed on the command line: the subject is still an email, department name or id. */
export interface GrantSpec {
  readonly relation: SpaceRelation
  readonly kind: GrantKind
  readonly subject?: string | undefined
  readonly role?: string | undefined
}

/** The flags of `admin grants add|rm`, for both. */
export const grantFlags = (command: Command) =>
  command
    .argument("<space>", "knowledge space id or key")
    .option("--relation <relation>", spaceRelationValues.join(", "), oneOf(spaceRelationValues))
    .option("--kind <kind>", grantKindValues.join(", "), oneOf(grantKindValues))
    .option("--subject <subject>", "USER: email or id; DEPARTMENT, DEPARTMENT_MANAGERS: department name or id; GROUP: provisioned group id")
    .option("--role <role>", `ROLE: a user role (${userRoleValues.join(", ")}) or platform role (e.g. KNOWLEDGE_ADMIN)`)

/** Checks the flags fit the kind before any request, so a wrong combination is a usage error (exit 2). */
export const grantSpec = (flags: { relation?: SpaceRelation; kind?: GrantKind; subject?: string; role?: string }): GrantSpec => {
  if (!flags.relation) throw usageError(`missing --relation: pass --relation ${spaceRelationValues.join("|")}`)
  if (!flags.kind) throw usageError(`missing --kind: pass --kind ${grantKindValues.join("|")}`)
  const { relation, kind, subject, role } = flags
  switch (kind) {
    case "ORGANIZATION":
      if (subject !== undefined || role !== undefined) throw usageError("an ORGANIZATION grant has no --subject or --role")
      return { relation, kind }
    case "ROLE":
      if (role === undefined) throw usageError("a ROLE grant needs --role (e.g. --role MANAGER or --role KNOWLEDGE_ADMIN)")
      if (subject !== undefined) throw usageError("a ROLE grant takes --role, not --subject")
      return { relation, kind, role: role.trim().toUpperCase().replace(/-/g, "_") }
    case "USER":
    case "DEPARTMENT":
    case "DEPARTMENT_MANAGERS":
      if (subject === undefined) throw usageError(`a ${kind} grant needs --subject (${kind === "USER" ? "an email or user id" : "a department name or id"})`)
      if (role !== undefined) throw usageError(`a ${kind} grant takes --subject, not --role`)
      return { relation, kind, subject }
    case "GROUP":
      if (subject === undefined || !isUuid(subject)) {
        throw usageError("a GROUP grant needs --subject with the provisioned group's id (its SCIM id)")
      }
      if (role !== undefined) throw usageError("a GROUP grant takes --subject, not --role")
      return { relation, kind, subject }
  }
}

/** The grant the API takes: the subject resolved to a user or department id. */
const resolveGrant = async (directory: Directory, spec: GrantSpec): Promise<AddGrant> => {
  if (spec.kind === "ORGANIZATION") return { relation: spec.relation, kind: spec.kind }
  if (spec.kind === "ROLE") return { relation: spec.relation, kind: spec.kind, role: spec.role! }
  if (spec.kind === "GROUP") return { relation: spec.relation, kind: spec.kind, subjectId: spec.subject! }
  const subjectId = spec.kind === "USER" ? await directory.userId(spec.subject!) : await directory.departmentId(spec.subject!)
  return { relation: spec.relation, kind: spec.kind, subjectId }
}

// ---- assets -----------------------------------------------------------------------------------------

/**
 * An asset named by id or as `namespace/slug`, among the assets the caller may see. Unknown: exit 5. The
 * list endpoint matches `q` anywhere, so the exact namespace and slug are picked from its answer.
 */
export const resolveAsset = async (lore: LoreClient, ref: string): Promise<{ readonly id: string; readonly namespace: string; readonly slug: string } | undefined> => {
  const wanted = ref.trim()
  if (isUuid(wanted)) return { id: wanted, namespace: "", slug: "" }
  const match = /^([a-z0-9][a-z0-9._-]*)\/([a-z0-9][a-z0-9-]*)$/.exec(wanted)
  if (!match) throw usageError(`'${ref}' is neither an asset id nor namespace/slug`, "Name an asset as its id or as namespace/slug (e.g. ops/incident-summary).")
  const [, namespace, slug] = match as unknown as [string, string, string]
  const found = (await lore.assets.list({ q: slug })).find((asset) => asset.namespace === namespace && asset.slug === slug)
  return found && { id: found.id, namespace, slug }
}

/** `resolveAsset`, failing with exit 5 when the caller sees no such asset. */
export const requireAsset = async (lore: LoreClient, ref: string) => {
  const found = await resolveAsset(lore, ref)
  if (!found) throw notFound("ASSET_NOT_FOUND", `no asset '${ref}' that you can see`, "'lore assets list' shows the assets you can see.")
  return found.id
}

/** A strict semantic version (1.2.3, 2.0.0-rc.1), as releases need. */
export const parseVersionLabel = (raw: string) => {
  if (!/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(raw)) {
    throw new InvalidArgumentError("a semantic version such as 1.0.0")
  }
  return raw
}

/** A repeatable `--var name=value`, collected in order. */
export const collectVariable = (raw: string, previous: ReadonlyArray<readonly [string, string]> = []): Array<readonly [string, string]> => {
  const at = raw.indexOf("=")
  if (at <= 0) throw new InvalidArgumentError("name=value")
  return [...previous, [raw.slice(0, at), raw.slice(at + 1)] as const]
}

/** A variable's text from the command line, as the type its template declares (NUMBER, BOOLEAN; the rest stay text). */
export const typedVariable = (type: string | undefined, text: string): unknown => {
  if (type === "NUMBER" && text.trim() !== "" && Number.isFinite(Number(text))) return Number(text)
  if (type === "BOOLEAN" && (text === "true" || text === "false")) return text === "true"
  return text
}
