import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Principal } from "../identity/CurrentUser"
import { relationRank, type SpaceRelation } from "./Model"

/**
 * The caller's access keys: every grant subject they match. A grant on a space matches a caller when
 * its subject_key is one of these, so read paths filter inside SQL with `subject_key = ANY(keys)`.
 */
export const accessKeys = (principal: Principal, managedDepartments: ReadonlyArray<string>): Array<string> => [
  "ORGANIZATION",
  `DEPARTMENT:${principal.departmentId}`,
  ...managedDepartments.map((id) => `DEPARTMENT_MANAGERS:${id}`),
  `ROLE:${principal.role}`,
  ...principal.platformRoles.map((role) => `ROLE:${role}`),
  `USER:${principal.userId}`
]

const relationsAtLeast = (relation: SpaceRelation) =>
  (Object.keys(relationRank) as Array<SpaceRelation>).filter((r) => relationRank[r] >= relationRank[relation])

export interface SpaceRow {
  readonly id: string
  readonly key: string
  readonly name: string
  readonly departmentId: string | null
}

/** The one access evaluator: every read path asks it, as a check or as SQL filtering. */
export class AccessEvaluator extends Effect.Service<AccessEvaluator>()("lore/AccessEvaluator", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const keysFor = (principal: Principal) =>
      Effect.map(
        sql<{ departmentId: string }>`SELECT department_id FROM department_managers WHERE user_id = ${principal.userId}`,
        (rows) => accessKeys(principal, rows.map((row) => row.departmentId))
      ).pipe(Effect.orDie)

    /** Active spaces of the caller's organization on which they hold at least `relation`. */
    const spacesWith = (principal: Principal, relation: SpaceRelation) =>
      Effect.flatMap(keysFor(principal), (keys) =>
        sql<SpaceRow>`
          SELECT ks.id, ks.key, ks.name, ks.department_id
          FROM knowledge_spaces ks
          WHERE ks.organization_id = ${principal.organizationId} AND ks.active
            AND EXISTS (
              SELECT 1 FROM space_grants g
              WHERE g.knowledge_space_id = ks.id
                AND g.subject_key = ANY(${keys})
                AND g.relation IN ${sql.in(relationsAtLeast(relation))}
            )
          ORDER BY ks.name, ks.key
        `.pipe(Effect.orDie)
      )

    return { keysFor, spacesWith }
  })
}) {}
