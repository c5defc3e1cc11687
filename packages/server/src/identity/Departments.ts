import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { AuthorizationGeneration } from "../access/Generation"
import { transactional } from "../db/Sql"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { AdminRepo } from "./AdminRepo"
import { DepartmentExists, ManagerNotFound } from "./Errors"
import { People } from "./People"
import { quoteInput } from "../domain/Echo"

/** Departments and their managers; changes raise the authorization generation (grants name departments). */
export class Departments extends Effect.Service<Departments>()("lore/Departments", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* AdminRepo
    const people = yield* People
    const audit = yield* Audit
    const generation = yield* AuthorizationGeneration

    const changeManager = <E>(actor: Principal, departmentId: string, userId: string, action: string, change: Effect.Effect<unknown, E>) =>
      transaction(
        Effect.gen(function* () {
          yield* people.requireDepartment(actor, departmentId)
          yield* people.requireUser(actor, userId)
          yield* change
          yield* generation.bump(actor.organizationId)
          yield* audit.record(actor, { action, resourceType: "department", resourceId: departmentId, details: { userId } })
          return (yield* repo.department(actor.organizationId, departmentId))!
        })
      )

    return {
      list: (actor: Principal) => repo.departments(actor.organizationId),

      create: (actor: Principal, name: string) =>
        transaction(
          Effect.gen(function* () {
            if (yield* repo.departmentByName(actor.organizationId, name)) {
              return yield* new DepartmentExists({ detail: `A department named ${quoteInput(name, 100)} exists already` })
            }
            const { id } = yield* repo.insertDepartment(actor.organizationId, name)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "department.create", resourceType: "department", resourceId: id, details: { name } })
            return (yield* repo.department(actor.organizationId, id))!
          })
        ),

      rename: (actor: Principal, departmentId: string, name: string) =>
        transaction(
          Effect.gen(function* () {
            yield* people.requireDepartment(actor, departmentId)
            const clash = yield* repo.departmentByName(actor.organizationId, name)
            if (clash && clash.id !== departmentId) {
              return yield* new DepartmentExists({ detail: `A department named ${quoteInput(name, 100)} exists already` })
            }
            yield* repo.renameDepartment(departmentId, name)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "department.rename", resourceType: "department", resourceId: departmentId, details: { name } })
            return (yield* repo.department(actor.organizationId, departmentId))!
          })
        ),

      addManager: (actor: Principal, departmentId: string, userId: string) =>
        changeManager(actor, departmentId, userId, "department.manager.add", repo.addManager(departmentId, userId)),

      removeManager: (actor: Principal, departmentId: string, userId: string) =>
        changeManager(
          actor,
          departmentId,
          userId,
          "department.manager.remove",
          Effect.flatMap(repo.removeManager(departmentId, userId), (removed) =>
            removed ? Effect.void : Effect.fail(new ManagerNotFound({ detail: "The user does not manage this department" })))
        )
    }
  }),
  dependencies: [AdminRepo.Default, People.Default, Audit.Default, AuthorizationGeneration.Default]
}) {}
