import { Effect } from "effect"
import { AccessRepo } from "./AccessRepo"

/**
 * authorizationGeneration: one counter per organization that rises with every change to grants, roles,
 * memberships, departments, mappings or trust. The UPDATE takes the organization's row lock, so
 * concurrent changes serialize and each gets its own generation.
 */
export class AuthorizationGeneration extends Effect.Service<AuthorizationGeneration>()("lore/AuthorizationGeneration", {
  effect: Effect.gen(function* () {
    const repo = yield* AccessRepo
    return {
      bump: (organizationId: string) => Effect.map(repo.bumpGeneration(organizationId), (found) => found?.generation ?? 0),
      current: (organizationId: string) => Effect.map(repo.generation(organizationId), (found) => found?.generation ?? 0)
    }
  }),
  dependencies: [AccessRepo.Default]
}) {}

/** A policy version string clients can compare: the model's version and the generation it reflects. */
export const policyVersion = (generation: number) => `lore-access-1.${generation}`
