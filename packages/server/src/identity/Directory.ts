import { Effect } from "effect"
import type { Principal } from "../domain/Principal"
import { AdminRepo } from "./AdminRepo"

/** What any member may know of their organization: its departments and active colleagues. */
export class Directory extends Effect.Service<Directory>()("lore/Directory", {
  effect: Effect.gen(function* () {
    const repo = yield* AdminRepo
    return {
      organizationContext: (caller: Principal) =>
        Effect.map(Effect.all([repo.directoryDepartments(caller.organizationId), repo.activeUsers(caller.organizationId)]), ([departments, users]) => ({
          organizationId: caller.organizationId,
          departments,
          users
        }))
    }
  }),
  dependencies: [AdminRepo.Default]
}) {}
