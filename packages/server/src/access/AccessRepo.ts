import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { one, row, rows } from "../db/Rows"
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
  /** The key sets (acl_all) the caller satisfies; kept apart so the any-of overlap compares against few keys. */
  readonly sourceSetKeys?: ReadonlyArray<string> | undefined
}
/** An active user with what their access keys need, for counting who may read something (audience). */
export const AudienceSubject = Schema.Struct({ ...SubjectRow.fields, managedDepartments: Schema.Array(Schema.String), groups: Schema.Array(Schema.String) })
const SourceKey = Schema.Struct({ key: Schema.String })
const ReadScopeRow = Schema.Struct({
  spaceIds: Schema.Array(Schema.String),
  graphRetrievalSpaceIds: Schema.Array(Schema.String),
  loreKeys: Schema.Array(Schema.String),
  connectorKeys: Schema.Array(Schema.String)
})
const SourceAclState = Schema.Struct({ unresolved: Schema.Boolean, expired: Schema.Boolean })
const ManagedDepartment = Schema.Struct({ departmentId: Schema.String })
const Membership = Schema.Struct({ kind: Schema.Literal("DEPARTMENT_MANAGERS", "GROUP"), id: Schema.String })

/**
 * SQL of the access model: subjects, matching grants, visible spaces, the authorization generation, and the
 * access predicate other areas' statements embed (handed to them as a fragment by the evaluator).
 */
export class AccessRepo extends Effect.Service<AccessRepo>()("lore/AccessRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** The key of a source principal row (columns connection_id, kind, native_principal_id), as sourceAclKey makes it. */
    const keyOf = sql`'SRC:' || connection_id::text || ':' || (CASE kind WHEN 'SOURCE_GROUP' THEN 'G' WHEN 'SOURCE_ORGANIZATION' THEN 'O' ELSE 'U' END) || ':' || native_principal_id`
    /** A connection's permissions are current unless it has a maximum age and no successful permission sync within it. */
    const permissionsCurrent = (alias: string) => {
      const c = sql(alias)
      return sql`(${c}.permission_max_age_seconds IS NULL OR ${c}.permissions_succeeded_at >= now() - ${c}.permission_max_age_seconds * interval '1 second')`
    }

    /**
     * The source-ACL keys a user matches through connectors (issue 16), as the CTEs `reached`, `principal_keys` and
     * `connector_keys` of a WITH RECURSIVE: each principal they have an ACTIVE mapping to on a TRUSTED live
     * connection whose permissions have not expired, and every source group containing one of those, transitively
     * (UNION stops on cycles); an organization-wide principal only directly from a user (its members are the
     * source's users of that organization, never groups or guests). Keys are `SRC:<connectionId>:U|G|O:<nativePrincipalId>`
     * (see sourceAclKey). Then the key sets (acl_all) of which one of those keys, or one of the user's LORE_ keys
     * (`loreKeys`, a query of one text column), is a member.
     */
    const connectorKeys = (userId: string, loreKeys: Statement.Fragment) => sql`
      reached AS (
        SELECT p.id, p.connection_id, p.kind, p.native_principal_id
        FROM source_principal_mappings m
        JOIN source_principals p ON p.id = m.principal_id
        JOIN connector_connections c ON c.id = p.connection_id
        WHERE m.app_user_id = ${userId} AND m.status = 'ACTIVE' AND c.identity_trust = 'TRUSTED' AND c.deleted_at IS NULL
          AND ${permissionsCurrent("c")}
        UNION
        SELECT g.id, g.connection_id, g.kind, g.native_principal_id
        FROM reached r
        JOIN source_group_members gm ON gm.member_principal_id = r.id
        JOIN source_principals g ON g.id = gm.group_principal_id
        WHERE g.kind <> 'SOURCE_ORGANIZATION' OR r.kind = 'SOURCE_USER'
      ),
      principal_keys AS (SELECT DISTINCT ${keyOf} AS key FROM reached),
      connector_keys AS (
        SELECT key FROM principal_keys
        UNION
        SELECT s.set_key AS key FROM source_acl_set_members s
        JOIN connector_connections c ON c.id = s.connection_id
        WHERE (s.member_key IN (SELECT key FROM principal_keys) OR s.member_key IN (${loreKeys}))
          AND c.deleted_at IS NULL AND ${permissionsCurrent("c")}
      )`

    /** The grant and classification branches, for rows with knowledge_space_id and classification_rank columns. */
    const grantAndClearance = (scope: ScopeParameters, alias: string): Statement.Fragment => {
      const a = sql(alias)
      return sql`(${a}.knowledge_space_id = ANY(${scope.spaceIds}::uuid[]) AND ${a}.classification_rank <= ${scope.maxClassificationRank})`
    }

    /**
     * The whole predicate: grant, classification, and the source ACL: one of acl_keys (null when the row has none)
     * AND every key set of acl_all (null when none; the caller's keys hold the ids of the sets they satisfy).
     */
    const visibleTo = (scope: ScopeParameters, alias: string): Statement.Fragment => {
      const a = sql(alias)
      return sql`(${grantAndClearance(scope, alias)}
        AND (${a}.acl_keys IS NULL OR ${a}.acl_keys && ${scope.sourcePrincipalKeys}::text[])
        AND (${a}.acl_all IS NULL OR ${a}.acl_all <@ ${scope.sourceSetKeys ?? []}::text[]))`
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

      /** The connector keys of a user whose LORE_ keys are `loreKeys` (see connectorKeys). */
      sourceKeys: rows("access.sourceKeys", SourceKey, (userId: string, loreKeys: ReadonlyArray<string>) => sql`
        WITH RECURSIVE ${connectorKeys(userId, sql`SELECT unnest(${loreKeys as Array<string>}::text[])`)}
        SELECT key FROM connector_keys`),

      /**
       * A caller's read scope in one statement (a chat and a search resolve it before anything else; three
       * statements were three round trips and two connections): the access keys (`baseKeys`, the ones the
       * principal itself gives, plus the departments they manage and their provisioned groups), the active spaces
       * of the organization on which those hold one of `relations`, their LORE_ keys, and their connector keys
       * (sourceKeys' walk and key sets). Also which of those spaces have graph retrieval on, so that a chat over
       * spaces without it runs no graph statement.
       */
      readScope: one("access.readScope", ReadScopeRow, (userId: string, organizationId: string, baseKeys: ReadonlyArray<string>, relations: ReadonlyArray<string>) => sql`
        WITH RECURSIVE user_groups AS (SELECT group_id::text AS id FROM user_group_members WHERE user_id = ${userId}),
        access_keys AS (
          SELECT unnest(${baseKeys as Array<string>}::text[]) AS key
          UNION ALL SELECT 'DEPARTMENT_MANAGERS:' || department_id::text FROM department_managers WHERE user_id = ${userId}
          UNION ALL SELECT 'GROUP:' || id FROM user_groups
        ),
        lore_keys AS (SELECT 'LORE_USER:' || ${userId}::text AS key UNION ALL SELECT 'LORE_GROUP:' || id FROM user_groups),
        ${connectorKeys(userId, sql`SELECT key FROM lore_keys`)},
        viewable AS (
          SELECT ks.id, ks.name, ks.key FROM knowledge_spaces ks
          WHERE ks.organization_id = ${organizationId} AND ks.active
            AND EXISTS (
              SELECT 1 FROM space_grants g
              WHERE g.knowledge_space_id = ks.id AND g.subject_key IN (SELECT key FROM access_keys) AND g.relation IN ${sql.in(relations)}
            )
        )
        SELECT
          array(SELECT id::text FROM viewable ORDER BY name, key) AS space_ids,
          array(
            SELECT v.id::text FROM viewable v JOIN graph_space_settings gs ON gs.knowledge_space_id = v.id AND gs.retrieval_enabled
            ORDER BY v.name, v.key
          ) AS graph_retrieval_space_ids,
          array(SELECT key FROM lore_keys) AS lore_keys,
          array(SELECT key FROM connector_keys) AS connector_keys`),

      /**
       * What explanations say of a connector document's ACL beyond its keys: whether the source's permissions could
       * not be read (an empty ACL, SOURCE_ACL_UNRESOLVED), and whether its connection's permissions expired.
       */
      sourceAclState: row("access.sourceAclState", SourceAclState, (resourceId: string) => sql`
        SELECT coalesce((d.acl->>'unresolved')::boolean, false) AS unresolved, NOT ${permissionsCurrent("c")} AS expired
        FROM connector_documents d JOIN connector_connections c ON c.id = d.connection_id
        WHERE d.knowledge_asset_id = coalesce((SELECT knowledge_asset_id FROM sources WHERE id = ${resourceId}), ${resourceId})
        LIMIT 1`),

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
            AND ${permissionsCurrent("c")}
          UNION ALL
          SELECT g.id, g.connection_id, g.kind, g.native_principal_id, r.path || g.id, r.method
          FROM reached r
          JOIN source_group_members gm ON gm.member_principal_id = r.id
          JOIN source_principals g ON g.id = gm.group_principal_id
          WHERE NOT g.id = ANY(r.path) AND cardinality(r.path) < 32 AND (g.kind <> 'SOURCE_ORGANIZATION' OR r.kind = 'SOURCE_USER')
        ),
        best AS (
          SELECT path, method FROM reached
          WHERE ${keyOf} = ANY(${aclKeys as Array<string>}::text[])
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
