import { SqlClient } from "@effect/sql"
import { transactional } from "../db/Sql"
import { Effect, Schema } from "effect"
import { AuthorizationGeneration, policyVersion } from "../access/Generation"
import { PlatformRole } from "../access/Model"
import { permissions, permissionsOf } from "../access/Permissions"
import { Conflict, NotFound } from "../http/Problem"
import { Audit } from "../platform/Audit"
import { hashSecret, randomSecret } from "../platform/SecretBox"
import { AdminRepo, type InvitationRow } from "./AdminRepo"
import type { Principal } from "./CurrentUser"
import { Tokens } from "./Tokens"

const userNotFound = new NotFound({ code: "USER_NOT_FOUND", detail: "No user with this id in your organization" })
const departmentNotFound = new NotFound({ code: "DEPARTMENT_NOT_FOUND", detail: "No department with this id in your organization" })

export const invitationStatus = (row: InvitationRow) =>
  row.acceptedAt ? "ACCEPTED" as const
    : row.revokedAt ? "REVOKED" as const
    : row.expiresAt.getTime() <= Date.now() ? "EXPIRED" as const
    : "PENDING" as const

const describeInvitation = (row: InvitationRow) => ({ ...row, status: invitationStatus(row) })

export interface UserPatch {
  readonly name?: string | undefined
  readonly role?: "EMPLOYEE" | "MANAGER" | "ADMIN" | undefined
  readonly clearance?: "PUBLIC" | "STANDARD" | "CONFIDENTIAL" | "RESTRICTED" | undefined
  readonly departmentId?: string | undefined
  readonly active?: boolean | undefined
}

/**
 * Rules for administering people. Every change runs in one transaction with its audit record, and
 * every change that can alter what someone may see raises the authorization generation.
 */
export class Administration extends Effect.Service<Administration>()("lore/Administration", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* AdminRepo
    const audit = yield* Audit
    const generation = yield* AuthorizationGeneration
    const tokens = yield* Tokens

    const requireUser = (actor: Principal, userId: string) =>
      Effect.flatMap(repo.user(actor.organizationId, userId), (user) => (user ? Effect.succeed(user) : Effect.fail(userNotFound)))
    const requireDepartment = (actor: Principal, departmentId: string) =>
      Effect.flatMap(repo.department(actor.organizationId, departmentId), (d) => (d ? Effect.succeed(d) : Effect.fail(departmentNotFound)))

    /** Refuses a change that would leave the organization without an active administrator. */
    const keepAnAdministrator = (actor: Principal, change: Effect.Effect<void>) =>
      Effect.gen(function* () {
        yield* change
        const remaining = yield* repo.activeAdministrators(actor.organizationId)
        if (remaining.length === 0) {
          return yield* new Conflict({ code: "LAST_ADMINISTRATOR", detail: "This would leave the organization without an active administrator" })
        }
      })

    const parseRole = (role: string) =>
      Schema.decodeUnknown(PlatformRole)(role).pipe(
        Effect.mapError(() => new NotFound({ code: "ROLE_NOT_FOUND", detail: `No platform role ${role}; roles are ${PlatformRole.literals.join(", ")}` }))
      )

    return {
      users: (actor: Principal) => repo.users(actor.organizationId),

      updateUser: (actor: Principal, userId: string, patch: UserPatch) =>
        transaction(
          Effect.gen(function* () {
            const before = yield* requireUser(actor, userId)
            if (patch.departmentId !== undefined) yield* requireDepartment(actor, patch.departmentId)
            yield* keepAnAdministrator(actor, repo.updateUser(userId, patch))
            const accessChanged = (patch.role !== undefined && patch.role !== before.role)
              || (patch.clearance !== undefined && patch.clearance !== before.clearance)
              || (patch.departmentId !== undefined && patch.departmentId !== before.departmentId)
              || (patch.active !== undefined && patch.active !== before.active)
            if (accessChanged) yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "user.update", resourceType: "user", resourceId: userId, details: { ...patch } })
            return (yield* repo.user(actor.organizationId, userId))!
          })
        ),

      permissions: (actor: Principal, userId: string) =>
        Effect.map(requireUser(actor, userId), (user) => {
          const held = user.active ? permissionsOf(user) : new Set()
          return {
            userId,
            permissions: Object.fromEntries(permissions.map((p) => [p, held.has(p) ? "ALLOWED" as const : "DENIED" as const])),
            evaluatedAt: new Date()
          }
        }),

      roles: (actor: Principal) =>
        Effect.gen(function* () {
          const members = yield* repo.roleMembers(actor.organizationId)
          const current = yield* generation.current(actor.organizationId)
          return {
            roles: PlatformRole.literals.map((role) => ({ role, assignees: members.filter((m) => m.role === role).map((m) => m.userId) })),
            complete: true,
            policyVersion: policyVersion(current)
          }
        }),

      addRoleMember: (actor: Principal, role: string, userId: string) =>
        transaction(
          Effect.gen(function* () {
            const platformRole = yield* parseRole(role)
            yield* requireUser(actor, userId)
            yield* repo.addRoleMember(platformRole, userId)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "role.member.add", resourceType: "role", resourceId: platformRole, details: { userId } })
          })
        ),

      removeRoleMember: (actor: Principal, role: string, userId: string) =>
        transaction(
          Effect.gen(function* () {
            const platformRole = yield* parseRole(role)
            yield* requireUser(actor, userId)
            const removed = yield* repo.removeRoleMember(platformRole, userId)
            if (!removed) return yield* new NotFound({ code: "ROLE_MEMBER_NOT_FOUND", detail: `The user does not hold ${platformRole}` })
            yield* keepAnAdministrator(actor, Effect.void)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "role.member.remove", resourceType: "role", resourceId: platformRole, details: { userId } })
          })
        ),

      departments: (actor: Principal) => repo.departments(actor.organizationId),

      createDepartment: (actor: Principal, name: string) =>
        transaction(
          Effect.gen(function* () {
            if (yield* repo.departmentByName(actor.organizationId, name)) {
              return yield* new Conflict({ code: "DEPARTMENT_EXISTS", detail: `A department named ${name} exists already` })
            }
            const id = yield* repo.insertDepartment(actor.organizationId, name)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "department.create", resourceType: "department", resourceId: id, details: { name } })
            return (yield* repo.department(actor.organizationId, id))!
          })
        ),

      renameDepartment: (actor: Principal, departmentId: string, name: string) =>
        transaction(
          Effect.gen(function* () {
            yield* requireDepartment(actor, departmentId)
            const clash = yield* repo.departmentByName(actor.organizationId, name)
            if (clash && clash.id !== departmentId) {
              return yield* new Conflict({ code: "DEPARTMENT_EXISTS", detail: `A department named ${name} exists already` })
            }
            yield* repo.renameDepartment(departmentId, name)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "department.rename", resourceType: "department", resourceId: departmentId, details: { name } })
            return (yield* repo.department(actor.organizationId, departmentId))!
          })
        ),

      setManager: (actor: Principal, departmentId: string, userId: string, manager: boolean) =>
        transaction(
          Effect.gen(function* () {
            yield* requireDepartment(actor, departmentId)
            yield* requireUser(actor, userId)
            if (manager) yield* repo.addManager(departmentId, userId)
            else if (!(yield* repo.removeManager(departmentId, userId))) {
              return yield* new NotFound({ code: "MANAGER_NOT_FOUND", detail: "The user does not manage this department" })
            }
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, {
              action: manager ? "department.manager.add" : "department.manager.remove",
              resourceType: "department",
              resourceId: departmentId,
              details: { userId }
            })
            return (yield* repo.department(actor.organizationId, departmentId))!
          })
        ),

      invitations: (actor: Principal) => Effect.map(repo.invitations(actor.organizationId), (rows) => rows.map(describeInvitation)),

      invite: (actor: Principal, input: {
        email: string; name?: string | undefined; role: "EMPLOYEE" | "MANAGER" | "ADMIN"
        clearance: "PUBLIC" | "STANDARD" | "CONFIDENTIAL" | "RESTRICTED"; departmentId: string; expiresInDays: number
      }) =>
        transaction(
          Effect.gen(function* () {
            yield* requireDepartment(actor, input.departmentId)
            if (yield* repo.userByEmail(actor.organizationId, input.email)) {
              return yield* new Conflict({ code: "USER_EXISTS", detail: `${input.email} is already a user` })
            }
            if (yield* repo.pendingInvitationFor(actor.organizationId, input.email)) {
              return yield* new Conflict({ code: "INVITATION_PENDING", detail: `${input.email} has a pending invitation; delete it first` })
            }
            const code = `lore_inv_${randomSecret(24)}`
            const row = yield* repo.insertInvitation({
              organizationId: actor.organizationId,
              email: input.email,
              name: input.name ?? null,
              role: input.role,
              clearance: input.clearance,
              departmentId: input.departmentId,
              codeHash: hashSecret(code),
              invitedBy: actor.userId,
              expiresAt: new Date(Date.now() + input.expiresInDays * 86_400_000)
            })
            yield* audit.record(actor, {
              action: "invitation.create",
              resourceType: "invitation",
              resourceId: row.id,
              details: { email: input.email, role: input.role, clearance: input.clearance, departmentId: input.departmentId }
            })
            return { ...describeInvitation(row), invitationCode: code }
          })
        ),

      revokeInvitation: (actor: Principal, invitationId: string) =>
        transaction(
          Effect.gen(function* () {
            const row = yield* repo.invitation(actor.organizationId, invitationId)
            if (!row) return yield* new NotFound({ code: "INVITATION_NOT_FOUND", detail: "No invitation with this id" })
            yield* repo.revokeInvitation(invitationId)
            yield* audit.record(actor, { action: "invitation.revoke", resourceType: "invitation", resourceId: invitationId, details: { email: row.email } })
          })
        ),

      /** The invitee's side: the code becomes an active user and a first token, exactly once. */
      acceptInvitation: (code: string, name: string | undefined) =>
        transaction(
          Effect.gen(function* () {
            const row = yield* repo.invitationByCodeForUpdate(hashSecret(code))
            if (!row) return yield* new NotFound({ code: "INVITATION_NOT_FOUND", detail: "This invitation code is not valid" })
            const status = invitationStatus(row)
            if (status !== "PENDING") {
              return yield* new Conflict({
                code: `INVITATION_${status}`,
                detail: { ACCEPTED: "This invitation has been used already", REVOKED: "This invitation was revoked", EXPIRED: "This invitation has expired" }[status]
              })
            }
            if (yield* repo.userByEmail(row.organizationId, row.email)) {
              return yield* new Conflict({ code: "USER_EXISTS", detail: `${row.email} is already a user` })
            }
            const userId = yield* repo.insertUser({
              organizationId: row.organizationId,
              departmentId: row.departmentId,
              email: row.email,
              name: name ?? row.name ?? row.email.split("@")[0]!,
              role: row.role,
              clearance: row.clearance
            })
            yield* repo.markAccepted(row.id, userId)
            yield* generation.bump(row.organizationId)
            const token = yield* tokens.issue(userId, "invitation", undefined)
            const user = (yield* repo.user(row.organizationId, userId))!
            const newcomer: Principal = { ...user, userId, departmentName: "", platformRoles: [], credential: { kind: "token", id: token.id } }
            yield* audit.record(newcomer, { action: "invitation.accept", resourceType: "invitation", resourceId: row.id, details: { email: row.email } })
            return { user, token }
          })
        )
    }
  })
}) {}
