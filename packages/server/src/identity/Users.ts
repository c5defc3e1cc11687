import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { AuthorizationGeneration } from "../access/Generation"
import { transactional } from "../db/Sql"
import type { Clearance, UserRole } from "../domain/Model"
import { permissions, permissionsOf } from "../domain/Permissions"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { AdminRepo } from "./AdminRepo"
import { People } from "./People"
import { managementEndedByMove, userChange } from "./Policy"

export interface UserPatch {
  readonly name?: string | undefined
  readonly role?: UserRole | undefined
  readonly clearance?: Clearance | undefined
  readonly departmentId?: string | undefined
  readonly active?: boolean | undefined
}

/**
 * Administering users. Every change runs in one transaction with its audit record, and every change that
 * can alter what someone may see raises the authorization generation.
 */
export class Users extends Effect.Service<Users>()("lore/Users", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* AdminRepo
    const people = yield* People
    const audit = yield* Audit
    const generation = yield* AuthorizationGeneration

    return {
      list: (actor: Principal) => repo.users(actor.organizationId),

      update: (actor: Principal, userId: string, patch: UserPatch) =>
        transaction(
          Effect.gen(function* () {
            const before = yield* people.requireUser(actor, userId)
            yield* userChange(actor, userId, patch)
            if (patch.departmentId !== undefined) yield* people.requireDepartment(actor, patch.departmentId)
            yield* people.keepAnAdministrator(actor, repo.updateUser(userId, patch))
            const left = managementEndedByMove(before, patch)
            if (left) yield* repo.removeManager(left, userId)
            const accessChanged = left !== undefined
              || (patch.role !== undefined && patch.role !== before.role)
              || (patch.clearance !== undefined && patch.clearance !== before.clearance)
              || (patch.active !== undefined && patch.active !== before.active)
            if (accessChanged) yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "user.update", resourceType: "user", resourceId: userId, details: { ...patch } })
            return (yield* repo.user(actor.organizationId, userId))!
          })
        ),

      permissions: (actor: Principal, userId: string) =>
        Effect.map(people.requireUser(actor, userId), (user) => {
          const held = user.active ? permissionsOf(user) : new Set()
          return {
            userId,
            permissions: Object.fromEntries(permissions.map((p) => [p, held.has(p) ? "ALLOWED" as const : "DENIED" as const])),
            evaluatedAt: new Date()
          }
        })
    }
  }),
  dependencies: [AdminRepo.Default, People.Default, Audit.Default, AuthorizationGeneration.Default]
}) {}
