import { SqlClient } from "@effect/sql"
import { Data, Effect } from "effect"
import { type ScimPatchOperation, scimPatch } from "scim-patch"
import { AuthorizationGeneration } from "../../access/Generation"
import { transactional } from "../../db/Sql"
import { quoteInput } from "../../domain/Echo"
import { systemActor, type Principal } from "../../domain/Principal"
import { deniedPathSegment, findDeniedKey } from "../../domain/SafeKeys"
import { Audit } from "../../platform/Audit"
import { CORE_GROUP, CORE_USER, compileFilter, ENTERPRISE_USER, InvalidFilter, parseFilter } from "./Filter"
import { ScimRepo, type ScimUserRow } from "./Repo"
import { booleanOf, canonicalize, groupFilterTarget, groupResource, userFilterTarget, userResource } from "./Resources"

export const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A SCIM error (RFC 7644 §3.12): status and, for 400 and 409, a scimType. */
export class ScimError extends Data.TaggedError("ScimError")<{ readonly status: number; readonly scimType?: string; readonly detail: string }> {}

/** The connection a SCIM request acts for, as its credential resolved it. */
export interface ScimCaller {
  readonly connectionId: string
  readonly organizationId: string
  readonly defaultRole: string
  readonly defaultClearance: string
  /** Whether a POST may take over an existing, unprovisioned non-administrator with the same email. */
  readonly linkExistingUsers: boolean
  /** The absolute base URL, for meta.location. */
  readonly base: string
}

/** The largest startIndex served (PostgreSQL's int4); a list asked to start past it is an empty page. */
export const MAX_START_INDEX = 2 ** 31 - 1

export interface ListQuery {
  readonly filter?: string | undefined
  readonly startIndex: number
  readonly count: number
}

const invalidValue = (detail: string) => new ScimError({ status: 400, scimType: "invalidValue", detail })
const uniqueness = (detail: string) => new ScimError({ status: 409, scimType: "uniqueness", detail })
/** RFC 7644 leaves the 403 detail to the server: fixed, so an identity provider's operator sees why. */
export const LAST_ADMINISTRATOR_DETAIL = "SCIM may not deactivate or delete the organization's last active administrator"

/** A denied attribute path (domain/SafeKeys.ts): 400 invalidPath. */
export const deniedPath = () =>
  new ScimError({ status: 400, scimType: "invalidPath", detail: "The attribute path names __proto__, prototype or constructor, which are not allowed" })

/** A body (or PATCH value) holding a denied key, checked before anything reads it: 400 invalidValue. */
export const checkKeys = (value: unknown) => {
  const denied = findDeniedKey(value)
  if (denied === null) return
  throw invalidValue(denied === "(too deep)" ? "The body is nested too deeply" : `The key ${denied} is not allowed in a SCIM resource`)
}
const notFound = (kind: string) => new ScimError({ status: 404, detail: `No ${kind} with this id` })

const str = (value: unknown) => (typeof value === "string" && value.trim().length > 0 ? value.trim() : undefined)

/** What a User resource means for the Lore user it provisions. */
const userFields = (resource: Record<string, any>) => {
  const userName = str(resource.userName)
  if (!userName) throw invalidValue("userName is required")
  const emails: Array<Record<string, any>> = Array.isArray(resource.emails) ? resource.emails : []
  const email = str(emails.find((e) => booleanOf(e?.primary))?.value) ?? str(emails.find((e) => e?.type === "work")?.value) ?? str(emails[0]?.value)
    ?? (userName.includes("@") ? userName : undefined)
  if (!email) throw invalidValue("A user needs an email: in emails, or as a userName that is one")
  if (email.length > 320 || !/^[^\s@]+@[^\s@]+$/.test(email)) throw invalidValue("The user's email is not an email address")
  const name = str(resource.displayName) ?? str(resource.name?.formatted)
    ?? (str([resource.name?.givenName, resource.name?.familyName].filter(Boolean).join(" ")) ?? userName)
  const active = resource.active === undefined ? true : booleanOf(resource.active)
  if (active === undefined) throw invalidValue("active must be true or false")
  const department = str(resource[ENTERPRISE_USER]?.department)
  return { userName, externalId: str(resource.externalId) ?? null, email, name: name.slice(0, 200), active, department }
}

/** What is kept of a written resource: everything the client sent except what Lore itself answers for. */
const stored = (resource: Record<string, any>) => {
  const { schemas: _s, id: _i, meta: _m, active: _a, externalId: _e, userName: _u, groups: _g, password: _p, ...rest } = resource
  return rest
}

/** Entra sends "False" for booleans, also inside PATCH values. */
const normalizeBooleans = (resource: Record<string, any>) => {
  const active = booleanOf(resource.active)
  if (active !== undefined) resource.active = active
  for (const list of ["emails", "phoneNumbers", "addresses"]) {
    if (Array.isArray(resource[list])) for (const item of resource[list]) if (item && typeof item === "object" && booleanOf(item.primary) !== undefined) item.primary = booleanOf(item.primary)
  }
  return resource
}

const patchOperations = (body: unknown): Array<ScimPatchOperation> => {
  const message = body as { schemas?: unknown; Operations?: unknown; operations?: unknown }
  if (!message || typeof message !== "object" || !Array.isArray(message.schemas) || !message.schemas.includes(PATCH_OP)) {
    throw invalidValue(`A PATCH body is a ${PATCH_OP} message`)
  }
  const operations = message.Operations ?? message.operations
  if (!Array.isArray(operations) || operations.length === 0) throw invalidValue("A PATCH message needs Operations")
  // Refused before scim-patch sees them, since it walks paths and value keys by assignment (issue 29, finding 1):
  // denied path segments first (invalidPath), then denied keys anywhere in the message (invalidValue).
  for (const op of operations) {
    const path = (op as { path?: unknown } | null)?.path
    if (path !== undefined && typeof path !== "string") throw new ScimError({ status: 400, scimType: "invalidPath", detail: "An operation's path is a string" })
    if (typeof path === "string" && deniedPathSegment(path) !== null) throw deniedPath()
  }
  checkKeys(message)
  return operations.flatMap((op: any): Array<ScimPatchOperation> => {
    if (!op || typeof op.op !== "string" || !/^(add|replace|remove)$/i.test(op.op)) throw invalidValue("Each operation's op is add, replace or remove")
    const kind = op.op.toLowerCase()
    // Entra removes members as {path: "members", value: [{value: id}]}: the same as one filtered remove per id.
    if (kind === "remove" && typeof op.path === "string" && op.path.toLowerCase() === "members" && Array.isArray(op.value)) {
      return op.value
        .map((m: any) => str(m?.value))
        .filter((v: string | undefined): v is string => v !== undefined && UUID.test(v))
        .map((v: string) => ({ op: "remove", path: `members[value eq "${v}"]` }))
    }
    return [{ ...op, op: kind, ...(op.value !== undefined ? { value: canonicalize(op.value) } : {}) }]
  })
}

const applyPatch = (resource: Record<string, any>, operations: Array<ScimPatchOperation>) => {
  try {
    return normalizeBooleans(scimPatch(resource as any, operations, { mutateDocument: false, treatMissingAsAdd: true }) as Record<string, any>)
  } catch (error) {
    if (error instanceof ScimError) throw error
    const e = error as { scimCode?: string; message?: string }
    const scimType = typeof e.scimCode === "string" && /^[A-Za-z]{1,40}$/.test(e.scimCode) ? e.scimCode : "invalidPath"
    throw new ScimError({ status: 400, scimType, detail: `The PATCH could not be applied: ${quoteInput((e.message ?? "invalid operation").split("\n")[0])}` })
  }
}

const attempt = <A>(f: () => A): Effect.Effect<A, ScimError> =>
  Effect.try({
    try: f,
    catch: (error) => error instanceof ScimError ? error
      : error instanceof InvalidFilter ? new ScimError({ status: 400, scimType: "invalidFilter", detail: error.message })
      : new ScimError({ status: 400, scimType: "invalidValue", detail: "The request could not be processed" })
  })

/** The SCIM service: Users and Groups of one connection, and what they change in Lore. */
export class Scim extends Effect.Service<Scim>()("lore/Scim", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = transactional(sql)
    const repo = yield* ScimRepo
    const audit = yield* Audit
    const generation = yield* AuthorizationGeneration
    const userTarget = userFilterTarget(sql)
    const groupTarget = groupFilterTarget(sql)

    const actor = (caller: ScimCaller): Principal => systemActor(caller.organizationId, `scim:${caller.connectionId}`)
    const where = (target: typeof userTarget, filter: string | undefined) =>
      attempt(() => (filter && filter.trim() ? compileFilter(sql, target, parseFilter(filter)) : sql`true`))

    const departmentFor = (caller: ScimCaller, name: string | undefined, current: string | undefined) =>
      Effect.gen(function* () {
        if (name) {
          const found = yield* repo.departmentByName(caller.organizationId, name)
          if (found) return found.id
          const created = (yield* repo.insertDepartment(caller.organizationId, name))!
          yield* audit.record(actor(caller), { action: "department.create", resourceType: "department", resourceId: created.id, details: { name, via: "scim" } })
          return created.id
        }
        if (current) return current
        return (yield* repo.defaultDepartment(caller.organizationId))!.id
      })

    /**
     * Before an offboarding (deactivation or delete): refuses it when the user administers the organization and
     * no other active administrator would remain. The administrators are locked first, so two concurrent
     * offboardings see each other.
     */
    const keepAnAdministrator = (caller: ScimCaller, userId: string) =>
      Effect.gen(function* () {
        if (!(yield* repo.isAdministrator(userId))?.administrator) return
        const administrators = yield* repo.lockActiveAdministrators(caller.organizationId)
        if (!administrators.some((a) => a.id !== userId)) return yield* new ScimError({ status: 403, detail: LAST_ADMINISTRATOR_DETAIL })
      })

    const requireUser = (caller: ScimCaller, id: string) =>
      UUID.test(id) ? Effect.flatMap(repo.user(caller.connectionId, id), (row) => (row ? Effect.succeed(row) : Effect.fail(notFound("User")))) : Effect.fail(notFound("User"))

    /** Writes a User resource (create when `existing` is undefined), then the Lore user it provisions. */
    const writeUser = (caller: ScimCaller, existing: ScimUserRow | undefined, input: Record<string, any>) =>
      transaction(Effect.gen(function* () {
        const resource = normalizeBooleans(canonicalize(input) as Record<string, any>)
        const fields = yield* attempt(() => userFields(resource))
        if (yield* repo.userNameTaken(caller.connectionId, fields.userName, existing?.userId ?? null)) {
          return yield* new ScimError({ status: 409, scimType: "uniqueness", detail: "A user with this userName exists already" })
        }
        const sameEmail = yield* repo.loreUserByEmail(caller.organizationId, fields.email)
        if (existing) {
          if (sameEmail && sameEmail.id !== existing.userId) return yield* uniqueness("Another user has this email")
        } else {
          // A userName that is another person's email would claim that person as surely as the email does.
          const sameUserName = fields.userName.includes("@") && fields.userName.toLowerCase() !== fields.email.toLowerCase()
            ? yield* repo.loreUserByEmail(caller.organizationId, fields.userName) : undefined
          if (sameUserName) return yield* uniqueness("Another user has this userName as their email")
          // SCIM manages what it provisioned: an existing person is taken over only where the administrator
          // allowed it on the connection, never an administrator, never one another connection manages.
          if (sameEmail && (sameEmail.provisioned || !caller.linkExistingUsers || sameEmail.administrator)) {
            return yield* uniqueness("A Lore user with this email exists that this connection did not provision")
          }
        }
        const departmentId = yield* departmentFor(caller, fields.department, existing?.departmentId ?? sameEmail?.departmentId)
        const lore = { email: fields.email, name: fields.name, departmentId, active: fields.active }
        if (existing && existing.active && !fields.active) yield* keepAnAdministrator(caller, existing.userId)
        let userId: string
        let accessChanged: boolean
        if (existing) {
          userId = existing.userId
          yield* repo.updateLoreUser(userId, lore)
          yield* repo.updateScimUser(userId, fields.userName, fields.externalId, stored(resource))
          accessChanged = existing.active !== fields.active || existing.departmentId !== departmentId
        } else if (sameEmail) {
          // A person invited before provisioning, on a connection that links existing users (linkExistingUsers).
          userId = sameEmail.id
          if (sameEmail.active && !fields.active) yield* keepAnAdministrator(caller, userId)
          yield* repo.updateLoreUser(userId, lore)
          yield* repo.insertScimUser(userId, caller.organizationId, caller.connectionId, fields.userName, fields.externalId, stored(resource))
          accessChanged = sameEmail.active !== fields.active || sameEmail.departmentId !== departmentId
        } else {
          userId = (yield* repo.insertLoreUser(caller.organizationId, lore, caller.defaultRole, caller.defaultClearance))!.id
          yield* repo.insertScimUser(userId, caller.organizationId, caller.connectionId, fields.userName, fields.externalId, stored(resource))
          accessChanged = true
        }
        if (accessChanged) yield* generation.bump(caller.organizationId)
        const action = !existing ? (sameEmail ? "scim.user.link" : "scim.user.create")
          : existing.active && !fields.active ? "scim.user.deactivate"
          : !existing.active && fields.active ? "scim.user.reactivate" : "scim.user.update"
        yield* audit.record(actor(caller), { action, resourceType: "user", resourceId: userId, details: { connectionId: caller.connectionId, userName: fields.userName } })
        return userResource((yield* repo.user(caller.connectionId, userId))!, caller.base)
      }))

    const requireGroup = (caller: ScimCaller, id: string) =>
      UUID.test(id) ? Effect.flatMap(repo.group(caller.connectionId, id), (row) => (row ? Effect.succeed(row) : Effect.fail(notFound("Group")))) : Effect.fail(notFound("Group"))

    const groupOut = (caller: ScimCaller, id: string) =>
      Effect.gen(function* () {
        const row = (yield* repo.group(caller.connectionId, id))!
        return groupResource(row, yield* repo.members([id]), caller.base)
      })

    /** Writes a Group resource and its members (create when `existingId` is undefined). */
    const writeGroup = (caller: ScimCaller, existingId: string | undefined, input: Record<string, any>) =>
      transaction(Effect.gen(function* () {
        const resource = canonicalize(input) as Record<string, any>
        const displayName = str(resource.displayName)
        if (!displayName) return yield* invalidValue("displayName is required")
        if (yield* repo.groupNameTaken(caller.organizationId, displayName, existingId ?? null)) {
          return yield* new ScimError({ status: 409, scimType: "uniqueness", detail: "A group with this displayName exists already" })
        }
        const externalId = str(resource.externalId) ?? null
        const wanted: Array<string> = (Array.isArray(resource.members) ? resource.members : [])
          .map((m: any) => str(m?.value)).filter((v: string | undefined): v is string => v !== undefined && UUID.test(v))
        const members = (yield* repo.existingUsers(caller.organizationId, [...new Set(wanted)])).map((r) => r.id)
        let id: string
        let added: Array<string> = members
        let removed: Array<string> = []
        if (existingId) {
          id = existingId
          const before = (yield* repo.members([id])).map((m) => m.userId)
          added = members.filter((m) => !before.includes(m))
          removed = before.filter((m) => !members.includes(m))
          yield* repo.updateGroup(id, displayName, externalId)
        } else {
          id = (yield* repo.insertGroup(caller.organizationId, caller.connectionId, displayName, externalId))!.id
        }
        if (added.length > 0) yield* repo.addMembers(id, added)
        if (removed.length > 0) yield* repo.removeMembers(id, removed)
        if (added.length > 0 || removed.length > 0) yield* generation.bump(caller.organizationId)
        yield* audit.record(actor(caller), {
          action: existingId ? "scim.group.update" : "scim.group.create", resourceType: "group", resourceId: id,
          details: { connectionId: caller.connectionId, displayName, membersAdded: added.length, membersRemoved: removed.length }
        })
        return yield* groupOut(caller, id)
      }))

    return {
      listUsers: (caller: ScimCaller, query: ListQuery) =>
        Effect.gen(function* () {
          const predicate = yield* where(userTarget, query.filter)
          const [found, total] = yield* Effect.all([
            query.count === 0 || query.startIndex > MAX_START_INDEX ? Effect.succeed([]) : repo.users(caller.connectionId, predicate, query.startIndex - 1, query.count),
            repo.countUsers(caller.connectionId, predicate)
          ])
          return { total: total?.total ?? 0, resources: found.map((row) => userResource(row, caller.base)) }
        }),
      getUser: (caller: ScimCaller, id: string) => Effect.map(requireUser(caller, id), (row) => userResource(row, caller.base)),
      createUser: (caller: ScimCaller, input: Record<string, any>) => writeUser(caller, undefined, input),
      replaceUser: (caller: ScimCaller, id: string, input: Record<string, any>) =>
        Effect.flatMap(requireUser(caller, id), (existing) => writeUser(caller, existing, input)),
      patchUser: (caller: ScimCaller, id: string, body: unknown) =>
        Effect.gen(function* () {
          const existing = yield* requireUser(caller, id)
          const operations = yield* attempt(() => patchOperations(body))
          const patched = yield* attempt(() => applyPatch(userResource(existing, caller.base), operations))
          return yield* writeUser(caller, existing, patched)
        }),
      /** DELETE: the Lore user is deactivated (their content and history stay), leaves their groups, and the SCIM record goes. */
      deleteUser: (caller: ScimCaller, id: string) =>
        transaction(Effect.gen(function* () {
          const existing = yield* requireUser(caller, id)
          const resource = userResource(existing, caller.base) as Record<string, any>
          const fields = yield* attempt(() => userFields(resource))
          if (existing.active) yield* keepAnAdministrator(caller, id)
          yield* repo.updateLoreUser(id, { email: fields.email, name: fields.name, departmentId: existing.departmentId, active: false })
          yield* repo.removeMemberships(id)
          yield* repo.deleteScimUser(id)
          yield* generation.bump(caller.organizationId)
          yield* audit.record(actor(caller), { action: "scim.user.delete", resourceType: "user", resourceId: id, details: { connectionId: caller.connectionId, userName: existing.userName } })
        })),

      listGroups: (caller: ScimCaller, query: ListQuery, withMembers: boolean) =>
        Effect.gen(function* () {
          const predicate = yield* where(groupTarget, query.filter)
          const [found, total] = yield* Effect.all([
            query.count === 0 || query.startIndex > MAX_START_INDEX ? Effect.succeed([]) : repo.groups(caller.connectionId, predicate, query.startIndex - 1, query.count),
            repo.countGroups(caller.connectionId, predicate)
          ])
          const members = withMembers && found.length > 0 ? yield* repo.members(found.map((g) => g.id)) : []
          return {
            total: total?.total ?? 0,
            resources: found.map((g) => groupResource(g, members.filter((m) => m.groupId === g.id), caller.base))
          }
        }),
      getGroup: (caller: ScimCaller, id: string) => Effect.flatMap(requireGroup(caller, id), () => groupOut(caller, id)),
      createGroup: (caller: ScimCaller, input: Record<string, any>) => writeGroup(caller, undefined, input),
      replaceGroup: (caller: ScimCaller, id: string, input: Record<string, any>) =>
        Effect.flatMap(requireGroup(caller, id), () => writeGroup(caller, id, input)),
      patchGroup: (caller: ScimCaller, id: string, body: unknown) =>
        Effect.gen(function* () {
          yield* requireGroup(caller, id)
          const operations = yield* attempt(() => patchOperations(body))
          const current = yield* groupOut(caller, id)
          const patched = yield* attempt(() => applyPatch(current, operations))
          return yield* writeGroup(caller, id, patched)
        }),
      deleteGroup: (caller: ScimCaller, id: string) =>
        transaction(Effect.gen(function* () {
          const group = yield* requireGroup(caller, id)
          yield* repo.deleteGroup(id)
          yield* generation.bump(caller.organizationId)
          yield* audit.record(actor(caller), { action: "scim.group.delete", resourceType: "group", resourceId: id, details: { connectionId: caller.connectionId, displayName: group.displayName } })
        })),
      schemas: { user: CORE_USER, group: CORE_GROUP, enterprise: ENTERPRISE_USER }
    }
  }),
  dependencies: [ScimRepo.Default, Audit.Default, AuthorizationGeneration.Default]
}) {}
