import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * authorizationGeneration: one counter per organization that rises with every change to grants, roles,
 * memberships, departments, mappings or trust. The UPDATE takes the organization's row lock, so
 * concurrent changes serialize and each gets its own generation.
 */
export class AuthorizationGeneration extends Effect.Service<AuthorizationGeneration>()("lore/AuthorizationGeneration", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      bump: (organizationId: string) =>
        sql<{ generation: number }>`
          UPDATE organizations SET authorization_generation = authorization_generation + 1
          WHERE id = ${organizationId} RETURNING authorization_generation::int AS generation
        `.pipe(Effect.map((rows) => rows[0]?.generation ?? 0), Effect.orDie),
      current: (organizationId: string) =>
        sql<{ generation: number }>`
          SELECT authorization_generation::int AS generation FROM organizations WHERE id = ${organizationId}
        `.pipe(Effect.map((rows) => rows[0]?.generation ?? 0), Effect.orDie)
    }
  })
}) {}

/** A policy version string clients can compare: the model's version and the generation it reflects. */
export const policyVersion = (generation: number) => `lore-access-1.${generation}`
