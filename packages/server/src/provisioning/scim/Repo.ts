import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { exec, row, rows, Timestamp } from "../../db/Rows"

export const ScimUserRow = Schema.Struct({
  userId: Schema.String,
  userName: Schema.String,
  externalId: Schema.NullOr(Schema.String),
  resource: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  version: Schema.Number,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  active: Schema.Boolean,
  departmentId: Schema.String
})
export type ScimUserRow = typeof ScimUserRow.Type

export const GroupRow = Schema.Struct({
  id: Schema.String,
  displayName: Schema.String,
  externalId: Schema.NullOr(Schema.String),
  version: Schema.Number,
  createdAt: Timestamp,
  updatedAt: Timestamp
})
export type GroupRow = typeof GroupRow.Type

const Member = Schema.Struct({ groupId: Schema.String, userId: Schema.String, display: Schema.String })
const Id = Schema.Struct({ id: Schema.String })
const Count = Schema.Struct({ total: Schema.Number })
const LoreUser = Schema.Struct({
  id: Schema.String, provisioned: Schema.Boolean, administrator: Schema.Boolean, active: Schema.Boolean, departmentId: Schema.String
})

export interface LoreUserFields {
  readonly email: string
  readonly name: string
  readonly departmentId: string
  readonly active: boolean
}

/**
 * SQL of the SCIM service: provisioned users (a SCIM record beside the Lore user it manages), provisioned
 * groups and their members. Filters arrive as compiled fragments (scim/Filter.ts) over the aliases s, u and g.
 */
export class ScimRepo extends Effect.Service<ScimRepo>()("lore/ScimRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const userColumns = sql.literal(`s.user_id, s.user_name, s.external_id, s.resource, s.version, s.created_at, s.updated_at, u.active, u.department_id`)
    // Who administers the organization, as identity/AdminRepo.ts's last-admin guard counts it: ADMIN or ORG_ADMIN.
    const administrator = sql.literal(`(u.role = 'ADMIN' OR EXISTS (SELECT 1 FROM platform_role_members m WHERE m.user_id = u.id AND m.role = 'ORG_ADMIN'))`)
    const groupColumns = sql.literal(`g.id, g.display_name, g.external_id, g.version, g.created_at, g.updated_at`)
    return {
      users: rows("scim.users", ScimUserRow, (connectionId: string, where: Statement.Fragment, offset: number, limit: number) => sql`
        SELECT ${userColumns} FROM scim_users s JOIN users u ON u.id = s.user_id
        WHERE s.connection_id = ${connectionId} AND ${where}
        ORDER BY s.created_at, s.user_id OFFSET ${offset} LIMIT ${limit}`),
      countUsers: row("scim.countUsers", Count, (connectionId: string, where: Statement.Fragment) => sql`
        SELECT count(*)::int AS total FROM scim_users s JOIN users u ON u.id = s.user_id
        WHERE s.connection_id = ${connectionId} AND ${where}`),
      user: row("scim.user", ScimUserRow, (connectionId: string, userId: string) => sql`
        SELECT ${userColumns} FROM scim_users s JOIN users u ON u.id = s.user_id
        WHERE s.connection_id = ${connectionId} AND s.user_id = ${userId}`),
      userNameTaken: row("scim.userNameTaken", Id, (connectionId: string, userName: string, exceptUserId: string | null) => sql`
        SELECT user_id AS id FROM scim_users WHERE connection_id = ${connectionId} AND lower(user_name) = lower(${userName})
          AND user_id IS DISTINCT FROM ${exceptUserId}::uuid`),
      loreUserByEmail: row("scim.loreUserByEmail", LoreUser, (organizationId: string, email: string) => sql`
        SELECT u.id, EXISTS (SELECT 1 FROM scim_users s WHERE s.user_id = u.id) AS provisioned, ${administrator} AS administrator,
          u.active, u.department_id
        FROM users u WHERE u.organization_id = ${organizationId} AND lower(u.email) = lower(${email})`),
      isAdministrator: row("scim.isAdministrator", Schema.Struct({ administrator: Schema.Boolean }), (userId: string) => sql`
        SELECT ${administrator} AS administrator FROM users u WHERE u.id = ${userId}`),
      /** The organization's active administrators, locked (so two offboardings cannot each leave the other one). */
      lockActiveAdministrators: rows("scim.lockActiveAdministrators", Id, (organizationId: string) => sql`
        SELECT u.id FROM users u WHERE u.organization_id = ${organizationId} AND u.active AND ${administrator}
        ORDER BY u.id FOR UPDATE OF u`),
      insertLoreUser: row("scim.insertLoreUser", Id, (organizationId: string, fields: LoreUserFields, role: string, clearance: string) => sql`
        INSERT INTO users (organization_id, department_id, email, name, role, clearance, active)
        VALUES (${organizationId}, ${fields.departmentId}, ${fields.email}, ${fields.name}, ${role}, ${clearance}, ${fields.active})
        RETURNING id`),
      updateLoreUser: exec((userId: string, fields: LoreUserFields) => sql`
        UPDATE users SET email = ${fields.email}, name = ${fields.name}, department_id = ${fields.departmentId}, active = ${fields.active}, updated_at = now()
        WHERE id = ${userId} AND (email, name, department_id, active) IS DISTINCT FROM (${fields.email}, ${fields.name}, ${fields.departmentId}::uuid, ${fields.active})`),
      insertScimUser: exec((userId: string, organizationId: string, connectionId: string, userName: string, externalId: string | null, resource: unknown) => sql`
        INSERT INTO scim_users (user_id, organization_id, connection_id, user_name, external_id, resource)
        VALUES (${userId}, ${organizationId}, ${connectionId}, ${userName}, ${externalId}, ${JSON.stringify(resource)}::jsonb)`),
      updateScimUser: exec((userId: string, userName: string, externalId: string | null, resource: unknown) => sql`
        UPDATE scim_users SET user_name = ${userName}, external_id = ${externalId}, resource = ${JSON.stringify(resource)}::jsonb,
          version = version + 1, updated_at = now()
        WHERE user_id = ${userId}`),
      deleteScimUser: exec((userId: string) => sql`DELETE FROM scim_users WHERE user_id = ${userId}`),
      removeMemberships: exec((userId: string) => sql`DELETE FROM user_group_members WHERE user_id = ${userId}`),

      departmentByName: row("scim.departmentByName", Id, (organizationId: string, name: string) => sql`
        SELECT id FROM departments WHERE organization_id = ${organizationId} AND lower(name) = lower(${name})`),
      insertDepartment: row("scim.insertDepartment", Id, (organizationId: string, name: string) => sql`
        INSERT INTO departments (organization_id, name) VALUES (${organizationId}, ${name})
        ON CONFLICT (organization_id, name) DO UPDATE SET name = excluded.name RETURNING id`),
      /** Where provisioned users without a department go: the organization's first department. */
      defaultDepartment: row("scim.defaultDepartment", Id, (organizationId: string) => sql`
        SELECT id FROM departments WHERE organization_id = ${organizationId} ORDER BY created_at, id LIMIT 1`),

      groups: rows("scim.groups", GroupRow, (connectionId: string, where: Statement.Fragment, offset: number, limit: number) => sql`
        SELECT ${groupColumns} FROM user_groups g WHERE g.connection_id = ${connectionId} AND ${where}
        ORDER BY g.created_at, g.id OFFSET ${offset} LIMIT ${limit}`),
      countGroups: row("scim.countGroups", Count, (connectionId: string, where: Statement.Fragment) => sql`
        SELECT count(*)::int AS total FROM user_groups g WHERE g.connection_id = ${connectionId} AND ${where}`),
      group: row("scim.group", GroupRow, (connectionId: string, id: string) => sql`
        SELECT ${groupColumns} FROM user_groups g WHERE g.connection_id = ${connectionId} AND g.id = ${id}`),
      groupNameTaken: row("scim.groupNameTaken", Id, (organizationId: string, displayName: string, exceptId: string | null) => sql`
        SELECT id FROM user_groups WHERE organization_id = ${organizationId} AND lower(display_name) = lower(${displayName})
          AND id IS DISTINCT FROM ${exceptId}::uuid`),
      members: rows("scim.members", Member, (groupIds: ReadonlyArray<string>) => sql`
        SELECT m.group_id, m.user_id, coalesce(s.user_name, u.email) AS display
        FROM user_group_members m JOIN users u ON u.id = m.user_id LEFT JOIN scim_users s ON s.user_id = u.id
        WHERE m.group_id = ANY(${groupIds}::uuid[]) ORDER BY m.group_id, u.email`),
      insertGroup: row("scim.insertGroup", Id, (organizationId: string, connectionId: string, displayName: string, externalId: string | null) => sql`
        INSERT INTO user_groups (organization_id, connection_id, display_name, external_id)
        VALUES (${organizationId}, ${connectionId}, ${displayName}, ${externalId}) RETURNING id`),
      updateGroup: exec((id: string, displayName: string, externalId: string | null) => sql`
        UPDATE user_groups SET display_name = ${displayName}, external_id = ${externalId}, version = version + 1, updated_at = now() WHERE id = ${id}`),
      deleteGroup: exec((id: string) => sql`DELETE FROM user_groups WHERE id = ${id}`),
      /** Of `ids`, the ones that are users of the organization (the rest are ignored as members). */
      existingUsers: rows("scim.existingUsers", Id, (organizationId: string, ids: ReadonlyArray<string>) => sql`
        SELECT id FROM users WHERE organization_id = ${organizationId} AND id = ANY(${ids}::uuid[])`),
      addMembers: exec((groupId: string, userIds: ReadonlyArray<string>) => sql`
        INSERT INTO user_group_members (group_id, user_id) SELECT ${groupId}, unnest(${userIds}::uuid[]) ON CONFLICT DO NOTHING`),
      removeMembers: exec((groupId: string, userIds: ReadonlyArray<string>) => sql`
        DELETE FROM user_group_members WHERE group_id = ${groupId} AND user_id = ANY(${userIds}::uuid[])`)
    }
  })
}) {}
