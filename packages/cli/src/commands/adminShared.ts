import {
  type AdminKnowledgeSpace,
  type AdminUser,
  clearanceValues,
  type Department,
  grantKindValues,
  platformRoleValues,
  spaceRelationValues,
  userRoleValues
} from "@lore/sdk"
import { InvalidArgumentError } from "commander"
import type { LoreClient } from "../context"
import { CliError, ExitCode, usageError } from "../errors"
import { type Cell, styled } from "../output/view"

/**
 * What the admin commands share: turning what people type (an email, a department name, a space key) into
 * the ids the API wants, and parsing the enumerations. Lookups go through the admin list endpoints, each
 * fetched at most once per invocation.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const isUuid = (value: string) => UUID.test(value)

// The choices come from the SDK's generated values, so a value the API adds needs no edit here.
export const USER_ROLES = userRoleValues
export const CLEARANCES = clearanceValues
export const PLATFORM_ROLES = platformRoleValues
export const RELATIONS = spaceRelationValues
export const GRANT_KINDS = grantKindValues

/**
 * A commander argument parser for an enumeration; case-insensitive (`--role admin`), and dashes may stand
 * for underscores (`org-admin`). A wrong value is a usage error (exit 2) listing the choices.
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

const notFound = (code: string, detail: string, hint?: string) => new CliError(ExitCode.notFound, code, detail, 0, undefined, hint)

/** Memoized admin lists for one invocation: resolving three emails costs one request, not three. */
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

  /** Lookup tables for views: id -> email and id -> department name. */
  async labels(): Promise<Labels> {
    const [users, departments] = await Promise.all([this.users(), this.departments()])
    return {
      users: new Map(users.map((user) => [user.id, user.email])),
      departments: new Map(departments.map((department) => [department.id, department.name]))
    }
  }
}

export interface Labels {
  readonly users: ReadonlyMap<string, string>
  readonly departments: ReadonlyMap<string, string>
}

export const userCell = (labels: Labels, userId: string | null | undefined): string =>
  userId ? (labels.users.get(userId) ?? userId) : "-"

export const departmentCell = (labels: Labels, departmentId: string | null | undefined): string =>
  departmentId ? (labels.departments.get(departmentId) ?? departmentId) : "-"

export const idCell = (id: string): Cell => styled(id, "muted")

export const activeCell = (active: boolean): Cell => (active ? styled("active", "success") : styled("inactive", "warning"))

export const listCell = (values: ReadonlyArray<string>) => (values.length > 0 ? values.join(", ") : "-")

/** `--expires-in-days` of invitations: the server allows 1 to 90. */
export const parseInvitationDays = (value: string) => {
  const days = Number(value)
  if (!/^\d+$/.test(value) || days < 1 || days > 90) throw new InvalidArgumentError("a whole number of days from 1 to 90")
  return days
}

export const parsePositiveInt = (max: number) => (value: string) => {
  const number = Number(value)
  if (!/^\d+$/.test(value) || number < 1 || number > max) throw new InvalidArgumentError(`a whole number from 1 to ${max}`)
  return number
}
