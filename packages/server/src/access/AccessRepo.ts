import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { row, rows } from "../db/Rows"
import { Clearance, GrantKind, PlatformRole, SpaceRelation, UserRole } from "../domain/Model"

/** One step of the shortest way a user reaches a source-ACL key: their mapped principal, then group after group. */
export const SourcePathStep = Schema.Struct({
  principalId: Schema.String,
  kind: Schema.String,
  nativePrincipalId: Schema.String,
  displayName: Schema.NullOr(Schema.String),
  sourceSystem: Schema.String,
  connectionKey: Schema.String,
  method: Schema.String
})
export type SourcePathStep = typeof SourcePathStep.Type

export const SpaceRow = Schema.Struct({
  id: Schema.String,
  key: Schema.String,
  name: Schema.String,
  departmentId: Schema.NullOr(Schema.String)
})
export type SpaceRow = typeof SpaceRow.Type

export const MatchedGrant = Schema.Struct({
  relation: SpaceRelation,
  kind: GrantKind,
  subjectId: Schema.NullOr(Schema.String),
  role: Schema.NullOr(Schema.String),
  subjectKey: Schema.String
})
export type MatchedGrant = typeof MatchedGrant.Type

/** What the access model knows of a user: enough to compute their keys and clearance. */
export const SubjectRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  departmentId: Schema.String,
  role: UserRole,
  clearance: Clearance,
  active: Schema.Boolean,
  platformRoles: Schema.Array(PlatformRole)
})
export type SubjectRow = typeof SubjectRow.Type

const Generation = Schema.Struct({ generation: Schema.Number })
const SpaceState = Schema.Struct({ active: Schema.Boolean })

/** What the SQL filter needs of a caller (the evaluator's ReadScope). */
export interface ScopeParameters {
  readonly spaceIds: ReadonlyArray<string>
  readonly maxClassificationRank: number
  readonly sourcePrincipalKeys: ReadonlyArray<string>
}
/** An active user with what their access keys need, for counting who may read something (audience). */
export const AudienceSubject = Schema.Struct({ ...SubjectRow.fields, managedDepartments: Schema.Array(Schema.String), groups: Schema.Array(Schema.String) })
const SourceKey = Schema.Struct({ key: Schema.String })
const ManagedDepartment = Schema.Struct({ departmentId: Schema.String })
const Membership = Schema.Struct({ kind: Schema.Literal("DEPARTMENT_MANAGERS", "GROUP"), id: Schema.String })

/**
 * SQL of the access model: subjects, matching grants, visible spaces, the authorization generation, and the
 * access predicate other areas' statements embed (handed to them as a fragment by the evaluator).
 */
export class AccessRepo extends Effect.Service<AccessRepo>()("lore/AccessRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The grant and classification branches, for rows with knowledge_space_id and classification_rank columns. */
    const grantAndClearance = (scope: ScopeParameters, alias: string): Statement.Fragment => {
      const a = sql(alias)
      return sql`(${a}.knowledge_space_id = ANY(${scope.spaceIds}::uuid[]) AND ${a}.classification_rank <= ${scope.maxClassificationRank})`
    }

    /** The whole predicate: grant, classification, and the source ACL (acl_keys, null when the row has none). */
    const visibleTo = (scope: ScopeParameters, alias: string): Statement.Fragment => {
      const a = sql(alias)
      return sql`(${grantAndClearance(scope, alias)}
        AND (${a}.acl_keys IS NULL OR ${a}.acl_keys && ${scope.sourcePrincipalKeys}::text[]))`
    }

    return {
      grantAndClearance,
      visibleTo,

      subject: row("access.subject", SubjectRow, (organizationId: string, userId: string) => sql`
        SELECT u.id, u.organization_id, u.department_id, u.role, u.clearance, u.active,
          coalesce((SELECT array_agg(m.role ORDER BY m.role) FROM platform_role_members m WHERE m.user_id = u.id), '{}') AS platform_roles
        FROM users u WHERE u.organization_id = ${organizationId} AND u.id = ${userId}`),

      managedDepartments: rows("access.managedDepartments", ManagedDepartment, (userId: string) =>
        sql`SELECT department_id FROM department_managers WHERE user_id = ${userId}`),

      /** The departments a user manages and the provisioned groups they belong to: the memberships grants can name. */
      memberships: rows("access.memberships", Membership, (userId: string) => sql`
        SELECT 'DEPARTMENT_MANAGERS' AS kind, department_id::text AS id FROM department_managers WHERE user_id = ${userId}
        UNION ALL
        SELECT 'GROUP' AS kind, group_id::text AS id FROM user_group_members WHERE user_id = ${userId}`),

      /**
       * The source-ACL keys a user matches through connectors (issue 16): each principal they have an ACTIVE
       * mapping to on a TRUSTED live connection, and every source group containing one of those, transitively
       * (UNION stops on cycles). Keys are `SRC:<connectionId>:U|G:<nativePrincipalId>` (see sourceAclKey).
       */
      sourceKeys: rows("access.sourceKeys", SourceKey, (userId: string) => sql`
        WITH RECURSIVE reached AS (
          SELECT p.id, p.connection_id, p.kind, p.native_principal_id
          FROM source_principal_mappings m
          JOIN source_principals p ON p.id = m.principal_id
          JOIN connector_connections c ON c.id = p.connection_id
          WHERE m.app_user_id = ${userId} AND m.status = 'ACTIVE' AND c.identity_trust = 'TRUSTED' AND c.deleted_at IS NULL
          UNION
          SELECT g.id, g.connection_id, g.kind, g.native_principal_id
          FROM reached r
          JOIN source_group_members gm ON gm.member_principal_id = r.id
          JOIN source_principals g ON g.id = gm.group_principal_id
        )
        SELECT DISTINCT 'SRC:' || connection_id::text || ':' || (CASE kind WHEN 'SOURCE_GROUP' THEN 'G' ELSE 'U' END) || ':' || native_principal_id AS key
        FROM reached`),

      /**
       * The shortest chain by which a user reaches one of `aclKeys` (the same walk as sourceKeys, keeping the path):
       * the mapped principal first, then each enclosing group, in order; empty when none reaches. For explanations.
       */
      sourcePath: rows("access.sourcePath", SourcePathStep, (userId: string, aclKeys: ReadonlyArray<string>) => sql`
        WITH RECURSIVE reached AS (
          SELECT p.id, p.connection_id, p.kind, p.native_principal_id, ARRAY[p.id] AS path, m.method
          FROM source_principal_mappings m
          JOIN source_principals p ON p.id = m.principal_id
          JOIN connector_connections c ON c.id = p.connection_id
          WHERE m.app_user_id = ${userId} AND m.status = 'ACTIVE' AND c.identity_trust = 'TRUSTED' AND c.deleted_at IS NULL
          UNION ALL
          SELECT g.id, g.connection_id, g.kind, g.native_principal_id, r.path || g.id, r.method
          FROM reached r
          JOIN source_group_members gm ON gm.member_principal_id = r.id
          JOIN source_principals g ON g.id = gm.group_principal_id
          WHERE NOT g.id = ANY(r.path) AND cardinality(r.path) < 32
        ),
        best AS (
          SELECT path, method FROM reached
          WHERE 'SRC:' || connection_id::text || ':' || (CASE kind WHEN 'SOURCE_GROUP' THEN 'G' ELSE 'U' END) || ':' || native_principal_id
            = ANY(${aclKeys as Array<string>}::text[])
          ORDER BY cardinality(path) LIMIT 1
        )
        SELECT p.id AS principal_id, p.kind, p.native_principal_id, p.observed_display_name AS display_name,
          c.source_system, c.connection_key, best.method
        FROM best CROSS JOIN LATERAL unnest(best.path) WITH ORDINALITY AS step(id, position)
        JOIN source_principals p ON p.id = step.id
        JOIN connector_connections c ON c.id = p.connection_id
        ORDER BY step.position`),

      /** Active spaces of the organization with a grant on one of `keys` at one of `relations`. */
      spacesWith: rows("access.spacesWith", SpaceRow, (organizationId: string, keys: ReadonlyArray<string>, relations: ReadonlyArray<string>) => sql`
        SELECT ks.id, ks.key, ks.name, ks.department_id
        FROM knowledge_spaces ks
        WHERE ks.organization_id = ${organizationId} AND ks.active
          AND EXISTS (
            SELECT 1 FROM space_grants g
            WHERE g.knowledge_space_id = ks.id AND g.subject_key = ANY(${keys})
              AND g.relation IN ${sql.in(relations)}
          )
        ORDER BY ks.name, ks.key`),

      matchingGrants: rows("access.matchingGrants", MatchedGrant, (spaceId: string, keys: ReadonlyArray<string>) => sql`
        SELECT relation, kind, subject_id, role, subject_key FROM space_grants
        WHERE knowledge_space_id = ${spaceId} AND subject_key = ANY(${keys})`),

      /** Raises the generation under the organization's row lock, so concurrent changes each get their own. */
      bumpGeneration: row("access.bumpGeneration", Generation, (organizationId: string) => sql`
        UPDATE organizations SET authorization_generation = authorization_generation + 1
        WHERE id = ${organizationId} RETURNING authorization_generation::int AS generation`),

      spaceState: row("access.spaceState", SpaceState, (spaceId: string) =>
        sql`SELECT active FROM knowledge_spaces WHERE id = ${spaceId}`),

      generation: row("access.generation", Generation, (organizationId: string) =>
        sql`SELECT authorization_generation::int AS generation FROM organizations WHERE id = ${organizationId}`),

      /** Every active user of the organization with their platform roles and managed departments. */
      audienceSubjects: rows("access.audienceSubjects", AudienceSubject, (organizationId: string) => sql`
        SELECT u.id, u.organization_id, u.department_id, u.role, u.clearance, u.active,
          coalesce((SELECT array_agg(m.role ORDER BY m.role) FROM platform_role_members m WHERE m.user_id = u.id), '{}') AS platform_roles,
          coalesce((SELECT array_agg(dm.department_id::text) FROM department_managers dm WHERE dm.user_id = u.id), '{}') AS managed_departments,
          coalesce((SELECT array_agg(gm.group_id::text) FROM user_group_members gm WHERE gm.user_id = u.id), '{}') AS groups
        FROM users u WHERE u.organization_id = ${organizationId} AND u.active`)
    }
  })
}) {}
