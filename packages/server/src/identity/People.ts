import { Effect } from "effect"
import { DepartmentNotFound, UserNotFound } from "../domain/Errors"
import type { Principal } from "../domain/Principal"
import { AdminRepo } from "./AdminRepo"
import { LastAdministrator } from "./Errors"

/** Lookups and invariants shared by the services that administer people. */
export class People extends Effect.Service<People>()("lore/People", {
  effect: Effect.gen(function* () {
    const repo = yield* AdminRepo
    return {
      requireUser: (actor: Principal, userId: string) =>
        Effect.flatMap(repo.user(actor.organizationId, userId), (user) =>
          user ? Effect.succeed(user) : Effect.fail(new UserNotFound({ detail: "No user with this id in your organization" }))),

      requireDepartment: (actor: Principal, departmentId: string) =>
        Effect.flatMap(repo.department(actor.organizationId, departmentId), (department) =>
          department ? Effect.succeed(department) : Effect.fail(new DepartmentNotFound({ detail: "No department with this id in your organization" }))),

      /** Runs `change`, then refuses it if the organization was left without an active administrator. */
      keepAnAdministrator: <E>(actor: Principal, change: Effect.Effect<void, E>) =>
        Effect.gen(function* () {
          yield* change
          const remaining = yield* repo.activeAdministrators(actor.organizationId)
          if (remaining.length === 0) {
            return yield* new LastAdministrator({ detail: "This would leave the organization without an active administrator" })
          }
        })
    }
  }),
  dependencies: [AdminRepo.Default]
}) {}
