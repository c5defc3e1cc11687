import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { affected, exec, row, rows } from "../db/Rows"
import { GrantKind, SpaceRelation } from "../domain/Model"

export const SpaceAdminRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  key: Schema.String,
  name: Schema.String,
  departmentId: Schema.NullOr(Schema.String),
  active: Schema.Boolean,
  audienceVersion: Schema.Number
})
export type SpaceAdminRow = typeof SpaceAdminRow.Type

export const GrantRow = Schema.Struct({
  knowledgeSpaceId: Schema.String,
  relation: SpaceRelation,
  kind: GrantKind,
  subjectId: Schema.NullOr(Schema.String),
  role: Schema.NullOr(Schema.String),
  subjectKey: Schema.String,
  subjectLabel: Schema.NullOr(Schema.String),
  effective: Schema.Boolean
})
export type GrantRow = typeof GrantRow.Type

/** A grant as stored: its relation, and the subject fields its kind takes. */
export interface GrantSubject {
  readonly relation: SpaceRelation
  readonly kind: GrantKind
  readonly subjectId: string | null
  readonly role: string | null
}

const Id = Schema.Struct({ id: Schema.String })

/** SQL for knowledge spaces and their grants. */
export class SpacesRepo extends Effect.Service<SpacesRepo>()("lore/SpacesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const spaceColumns = sql.literal("id, organization_id, key, name, department_id, active, audience_version")
    return {
      spaces: rows("access.spaces", SpaceAdminRow, (organizationId: string) =>
        sql`SELECT ${spaceColumns} FROM knowledge_spaces WHERE organization_id = ${organizationId} ORDER BY name, key`),
      space: row("access.space", SpaceAdminRow, (organizationId: string, spaceId: string) =>
        sql`SELECT ${spaceColumns} FROM knowledge_spaces WHERE organization_id = ${organizationId} AND id = ${spaceId}`),
      /** The new space's id, or undefined when the key is taken. */
      insertSpace: row("access.insertSpace", Id, (organizationId: string, key: string, name: string, departmentId: string | null) => sql`
        INSERT INTO knowledge_spaces (organization_id, key, name, department_id) VALUES (${organizationId}, ${key}, ${name}, ${departmentId})
        ON CONFLICT (organization_id, key) DO NOTHING RETURNING id`),
      deleteSpace: exec((spaceId: string) => sql`DELETE FROM knowledge_spaces WHERE id = ${spaceId}`),
      /** Grants with a label for their subject, and whether that subject still exists and is active. */
      grants: rows("access.grants", GrantRow, (organizationId: string) => sql`
        SELECT g.knowledge_space_id, g.relation, g.kind, g.subject_id, g.role, g.subject_key,
          CASE g.kind
            WHEN 'ORGANIZATION' THEN 'Everyone in the organization'
            WHEN 'DEPARTMENT' THEN d.name
            WHEN 'DEPARTMENT_MANAGERS' THEN 'Managers of ' || d.name
            WHEN 'ROLE' THEN g.role
            WHEN 'USER' THEN u.email
            WHEN 'GROUP' THEN grp.display_name
          END AS subject_label,
          CASE g.kind
            WHEN 'DEPARTMENT' THEN d.id IS NOT NULL
            WHEN 'DEPARTMENT_MANAGERS' THEN d.id IS NOT NULL
            WHEN 'USER' THEN coalesce(u.active, false)
            WHEN 'GROUP' THEN grp.id IS NOT NULL
            ELSE true
          END AS effective
        FROM space_grants g
        JOIN knowledge_spaces ks ON ks.id = g.knowledge_space_id
        LEFT JOIN departments d ON d.id = g.subject_id AND g.kind IN ('DEPARTMENT', 'DEPARTMENT_MANAGERS')
        LEFT JOIN users u ON u.id = g.subject_id AND g.kind = 'USER'
        LEFT JOIN user_groups grp ON grp.id = g.subject_id AND g.kind = 'GROUP'
        WHERE ks.organization_id = ${organizationId}
        ORDER BY g.created_at, g.id`),
      /** Answers whether the grant was new. `createdBy` is null when Lore itself grants (first start). */
      insertGrant: affected((spaceId: string, grant: GrantSubject, createdBy: string | null) => sql`
        INSERT INTO space_grants (knowledge_space_id, relation, kind, subject_id, role, created_by)
        VALUES (${spaceId}, ${grant.relation}, ${grant.kind}, ${grant.subjectId}, ${grant.role}, ${createdBy})
        ON CONFLICT DO NOTHING RETURNING id`),
      deleteGrant: affected((spaceId: string, grant: GrantSubject) => sql`
        DELETE FROM space_grants WHERE knowledge_space_id = ${spaceId} AND relation = ${grant.relation} AND kind = ${grant.kind}
          AND subject_id IS NOT DISTINCT FROM ${grant.subjectId}::uuid AND role IS NOT DISTINCT FROM ${grant.role}::text
        RETURNING id`),
      bumpAudience: exec((spaceId: string) =>
        sql`UPDATE knowledge_spaces SET audience_version = audience_version + 1 WHERE id = ${spaceId}`),
      departmentExists: affected((organizationId: string, departmentId: string) =>
        sql`SELECT 1 FROM departments WHERE organization_id = ${organizationId} AND id = ${departmentId}`),
      groupExists: affected((organizationId: string, groupId: string) =>
        sql`SELECT 1 FROM user_groups WHERE organization_id = ${organizationId} AND id = ${groupId}`),
      userExists: affected((organizationId: string, userId: string) =>
        sql`SELECT 1 FROM users WHERE organization_id = ${organizationId} AND id = ${userId}`)
    }
  })
}) {}
