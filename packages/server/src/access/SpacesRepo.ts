import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { GrantKind, SpaceRelation } from "../domain/Model"

export interface SpaceAdminRow {
  readonly id: string
  readonly organizationId: string
  readonly key: string
  readonly name: string
  readonly departmentId: string | null
  readonly active: boolean
  readonly audienceVersion: number
}

export interface GrantRow {
  readonly knowledgeSpaceId: string
  readonly relation: SpaceRelation
  readonly kind: GrantKind
  readonly subjectId: string | null
  readonly role: string | null
  readonly subjectKey: string
  readonly subjectLabel: string | null
  readonly effective: boolean
}

const spaceColumns = "id, organization_id, key, name, department_id, active, audience_version"

/** SQL for knowledge spaces and their grants. */
export class SpacesRepo extends Effect.Service<SpacesRepo>()("lore/SpacesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const first = <A>(rows: ReadonlyArray<A>) => rows[0]
    return {
      spaces: (organizationId: string) =>
        sql<SpaceAdminRow>`SELECT ${sql.literal(spaceColumns)} FROM knowledge_spaces WHERE organization_id = ${organizationId} ORDER BY name, key`.pipe(
          Effect.orDie
        ),
      space: (organizationId: string, spaceId: string) =>
        sql<SpaceAdminRow>`SELECT ${sql.literal(spaceColumns)} FROM knowledge_spaces WHERE organization_id = ${organizationId} AND id = ${spaceId}`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      spaceByKey: (organizationId: string, key: string) =>
        sql<SpaceAdminRow>`SELECT ${sql.literal(spaceColumns)} FROM knowledge_spaces WHERE organization_id = ${organizationId} AND key = ${key}`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      insertSpace: (organizationId: string, key: string, name: string, departmentId: string | null) =>
        sql<{ id: string }>`
          INSERT INTO knowledge_spaces (organization_id, key, name, department_id) VALUES (${organizationId}, ${key}, ${name}, ${departmentId})
          ON CONFLICT (organization_id, key) DO NOTHING RETURNING id`.pipe(Effect.map((rows) => rows[0]?.id), Effect.orDie),
      deleteSpace: (spaceId: string) => sql`DELETE FROM knowledge_spaces WHERE id = ${spaceId}`.pipe(Effect.asVoid, Effect.orDie),
      /** Grants with a label for their subject, and whether that subject still exists and is active. */
      grants: (organizationId: string) =>
        sql<GrantRow>`
          SELECT g.knowledge_space_id, g.relation, g.kind, g.subject_id, g.role, g.subject_key,
            CASE g.kind
              WHEN 'ORGANIZATION' THEN 'Everyone in the organization'
              WHEN 'DEPARTMENT' THEN d.name
              WHEN 'DEPARTMENT_MANAGERS' THEN 'Managers of ' || d.name
              WHEN 'ROLE' THEN g.role
              WHEN 'USER' THEN u.email
            END AS subject_label,
            CASE g.kind
              WHEN 'DEPARTMENT' THEN d.id IS NOT NULL
              WHEN 'DEPARTMENT_MANAGERS' THEN d.id IS NOT NULL
              WHEN 'USER' THEN coalesce(u.active, false)
              ELSE true
            END AS effective
          FROM space_grants g
          JOIN knowledge_spaces ks ON ks.id = g.knowledge_space_id
          LEFT JOIN departments d ON d.id = g.subject_id AND g.kind IN ('DEPARTMENT', 'DEPARTMENT_MANAGERS')
          LEFT JOIN users u ON u.id = g.subject_id AND g.kind = 'USER'
          WHERE ks.organization_id = ${organizationId}
          ORDER BY g.created_at, g.id`.pipe(Effect.orDie),
      insertGrant: (spaceId: string, grant: { relation: string; kind: string; subjectId: string | null; role: string | null }, createdBy: string) =>
        sql<{ id: string }>`
          INSERT INTO space_grants (knowledge_space_id, relation, kind, subject_id, role, created_by)
          VALUES (${spaceId}, ${grant.relation}, ${grant.kind}, ${grant.subjectId}, ${grant.role}, ${createdBy})
          ON CONFLICT DO NOTHING RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
      deleteGrant: (spaceId: string, grant: { relation: string; kind: string; subjectId: string | null; role: string | null }) =>
        sql<{ id: string }>`
          DELETE FROM space_grants WHERE knowledge_space_id = ${spaceId} AND relation = ${grant.relation} AND kind = ${grant.kind}
            AND subject_id IS NOT DISTINCT FROM ${grant.subjectId}::uuid AND role IS NOT DISTINCT FROM ${grant.role}::text
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
      bumpAudience: (spaceId: string) =>
        sql`UPDATE knowledge_spaces SET audience_version = audience_version + 1 WHERE id = ${spaceId}`.pipe(Effect.asVoid, Effect.orDie),
      departmentExists: (organizationId: string, departmentId: string) =>
        sql`SELECT 1 FROM departments WHERE organization_id = ${organizationId} AND id = ${departmentId}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),
      userExists: (organizationId: string, userId: string) =>
        sql`SELECT 1 FROM users WHERE organization_id = ${organizationId} AND id = ${userId}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    }
  })
}) {}
