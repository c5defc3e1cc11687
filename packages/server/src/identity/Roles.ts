import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AuthorizationGeneration, policyVersion } from "../access/Generation"
import { transactional } from "../db/Sql"
import { PlatformRole } from "../domain/Model"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { AdminRepo } from "./AdminRepo"
import { RoleMemberNotFound, RoleNotFound } from "./Errors"
import { People } from "./People"
import { roleChange } from "./Policy"
import { quoteInput } from "../domain/Echo"

/** Platform roles and who holds them; changes raise the authorization generation. */
export class Roles extends Effect.Service<Roles>()("lore/Roles", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* AdminRepo
    const people = yield* People
    const audit = yield* Audit
    const generation = yield* AuthorizationGeneration

    const parseRole = (role: string) =>
      Schema.decodeUnknown(PlatformRole)(role).pipe(
        Effect.mapError(() => new RoleNotFound({ detail: `No platform role ${quoteInput(role, 60)}; roles are ${PlatformRole.literals.join(", ")}` }))
      )

    return {
      list: (actor: Principal) =>
        Effect.gen(function* () {
          const members = yield* repo.roleMembers(actor.organizationId)
          const current = yield* generation.current(actor.organizationId)
          return {
            roles: PlatformRole.literals.map((role) => ({ role, assignees: members.filter((m) => m.role === role).map((m) => m.userId) })),
            complete: true,
            policyVersion: policyVersion(current)
          }
        }),

      addMember: (actor: Principal, role: string, userId: string) =>
        transaction(
          Effect.gen(function* () {
            const platformRole = yield* parseRole(role)
            yield* people.requireUser(actor, userId)
            yield* roleChange(actor, userId)
            yield* repo.addRoleMember(platformRole, userId)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "role.member.add", resourceType: "role", resourceId: platformRole, details: { userId } })
          })
        ),

      removeMember: (actor: Principal, role: string, userId: string) =>
        transaction(
          Effect.gen(function* () {
            const platformRole = yield* parseRole(role)
            yield* people.requireUser(actor, userId)
            yield* roleChange(actor, userId)
            const removed = yield* repo.removeRoleMember(platformRole, userId)
            if (!removed) return yield* new RoleMemberNotFound({ detail: `The user does not hold ${platformRole}` })
            yield* people.keepAnAdministrator(actor, Effect.void)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "role.member.remove", resourceType: "role", resourceId: platformRole, details: { userId } })
          })
        )
    }
  }),
  dependencies: [AdminRepo.Default, People.Default, Audit.Default, AuthorizationGeneration.Default]
}) {}
