import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { affected, exec, one, row, rows, Timestamp } from "../db/Rows"
import { Clearance, PlatformRole, UserRole } from "../domain/Model"

export const AdminUserRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  name: Schema.String,
  email: Schema.String,
  role: UserRole,
  clearance: Clearance,
  departmentId: Schema.String,
  active: Schema.Boolean,
  signInLinked: Schema.Boolean,
  mappedPrincipalCount: Schema.Number,
  platformRoles: Schema.Array(PlatformRole),
  createdAt: Timestamp
})
export type AdminUserRow = typeof AdminUserRow.Type

export const DepartmentRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  name: Schema.String,
  managerUserIds: Schema.Array(Schema.String),
  memberCount: Schema.Number,
  createdAt: Timestamp
})
export type DepartmentRow = typeof DepartmentRow.Type

export const InvitationRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  role: UserRole,
  clearance: Clearance,
  departmentId: Schema.String,
  invitedAt: Timestamp,
  expiresAt: Timestamp,
  acceptedAt: Schema.NullOr(Timestamp),
  acceptedAppUserId: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Timestamp)
})
export type InvitationRow = typeof InvitationRow.Type

/** What any member sees of their organization (the directory). */
export const DirectoryDepartment = Schema.Struct({ id: Schema.String, organizationId: Schema.String, name: Schema.String })
export const DirectoryUser = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  departmentId: Schema.String,
  name: Schema.String,
  email: Schema.String,
  role: UserRole,
  clearance: Clearance
})

const Id = Schema.Struct({ id: Schema.String })
const RoleMember = Schema.Struct({ role: PlatformRole, userId: Schema.String })

export interface UserChanges {
  readonly name?: string | undefined
  readonly role?: UserRole | undefined
  readonly clearance?: Clearance | undefined
  readonly departmentId?: string | undefined
  readonly active?: boolean | undefined
}

export interface NewUser {
  readonly organizationId: string
  readonly departmentId: string
  readonly email: string
  readonly name: string
  readonly role: UserRole
  readonly clearance: Clearance
}

export interface NewInvitation {
  readonly organizationId: string
  readonly email: string
  readonly name: string | null
  readonly role: UserRole
  readonly clearance: Clearance
  readonly departmentId: string
  readonly codeHash: string
  readonly invitedBy: string
  readonly expiresAt: Date
}

/** SQL for administering people: the organization, users, departments, platform roles, invitations. */
export class AdminRepo extends Effect.Service<AdminRepo>()("lore/AdminRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const userSelect = sql`
      SELECT u.id, u.organization_id, u.name, u.email, u.role, u.clearance, u.department_id, u.active, u.created_at,
        (u.sso_subject IS NOT NULL OR EXISTS (SELECT 1 FROM access_tokens t WHERE t.user_id = u.id AND t.revoked_at IS NULL
                  AND (t.expires_at IS NULL OR t.expires_at > now()))) AS sign_in_linked,
        (SELECT count(*)::int FROM source_principal_mappings spm WHERE spm.app_user_id = u.id AND spm.status = 'ACTIVE') AS mapped_principal_count,
        coalesce((SELECT array_agg(m.role ORDER BY m.role) FROM platform_role_members m WHERE m.user_id = u.id), '{}') AS platform_roles
      FROM users u`
    const departmentSelect = sql`
      SELECT d.id, d.organization_id, d.name, d.created_at,
        coalesce((SELECT array_agg(dm.user_id::text ORDER BY dm.user_id) FROM department_managers dm WHERE dm.department_id = d.id), '{}') AS manager_user_ids,
        (SELECT count(*)::int FROM users u WHERE u.department_id = d.id AND u.active) AS member_count
      FROM departments d`
    const invitationColumns = sql.literal(
      "id, organization_id, email, name, role, clearance, department_id, invited_at, expires_at, accepted_at, accepted_app_user_id, revoked_at"
    )

    return {
      /**
       * First start: serializes concurrent starts (transaction-scoped advisory lock), then answers whether an
       * organization exists already.
       */
      lockFirstStart: exec(() => sql`SELECT pg_advisory_xact_lock(7291001)`),
      anyOrganization: row("identity.anyOrganization", Id, () => sql`SELECT id FROM organizations LIMIT 1`),
      insertOrganization: one("identity.insertOrganization", Id, (name: string) =>
        sql`INSERT INTO organizations (name) VALUES (${name}) RETURNING id`),

      users: rows("identity.users", AdminUserRow, (organizationId: string) =>
        sql`${userSelect} WHERE u.organization_id = ${organizationId} ORDER BY u.name, u.email`),
      user: row("identity.user", AdminUserRow, (organizationId: string, userId: string) =>
        sql`${userSelect} WHERE u.organization_id = ${organizationId} AND u.id = ${userId}`),
      userByEmail: row("identity.userByEmail", AdminUserRow, (organizationId: string, email: string) =>
        sql`${userSelect} WHERE u.organization_id = ${organizationId} AND lower(u.email) = lower(${email})`),
      updateUser: exec((userId: string, patch: UserChanges) => sql`
        UPDATE users SET
          name = coalesce(${patch.name ?? null}, name),
          role = coalesce(${patch.role ?? null}, role),
          clearance = coalesce(${patch.clearance ?? null}, clearance),
          department_id = coalesce(${patch.departmentId ?? null}::uuid, department_id),
          active = coalesce(${patch.active ?? null}::boolean, active),
          updated_at = now()
        WHERE id = ${userId}`),
      insertUser: one("identity.insertUser", Id, (user: NewUser) => sql`
        INSERT INTO users (organization_id, department_id, email, name, role, clearance)
        VALUES (${user.organizationId}, ${user.departmentId}, ${user.email}, ${user.name}, ${user.role}, ${user.clearance})
        RETURNING id`),
      /** Active users who can administer the organization (ADMIN role or ORG_ADMIN), locked, for last-admin guards. */
      activeAdministrators: rows("identity.activeAdministrators", Id, (organizationId: string) => sql`
        SELECT u.id FROM users u WHERE u.organization_id = ${organizationId} AND u.active
          AND (u.role = 'ADMIN' OR EXISTS (SELECT 1 FROM platform_role_members m WHERE m.user_id = u.id AND m.role = 'ORG_ADMIN'))
        FOR UPDATE OF u`),
      /** Active colleagues, for the directory every member may read. */
      activeUsers: rows("identity.activeUsers", DirectoryUser, (organizationId: string) => sql`
        SELECT id, organization_id, department_id, name, email, role, clearance
        FROM users WHERE organization_id = ${organizationId} AND active ORDER BY name, email`),

      roleMembers: rows("identity.roleMembers", RoleMember, (organizationId: string) => sql`
        SELECT m.role, m.user_id FROM platform_role_members m JOIN users u ON u.id = m.user_id
        WHERE u.organization_id = ${organizationId} ORDER BY m.role, m.assigned_at, m.user_id`),
      addRoleMember: exec((role: PlatformRole, userId: string) =>
        sql`INSERT INTO platform_role_members (role, user_id) VALUES (${role}, ${userId}) ON CONFLICT DO NOTHING`),
      removeRoleMember: affected((role: PlatformRole, userId: string) =>
        sql`DELETE FROM platform_role_members WHERE role = ${role} AND user_id = ${userId} RETURNING role`),

      departments: rows("identity.departments", DepartmentRow, (organizationId: string) =>
        sql`${departmentSelect} WHERE d.organization_id = ${organizationId} ORDER BY d.name`),
      department: row("identity.department", DepartmentRow, (organizationId: string, departmentId: string) =>
        sql`${departmentSelect} WHERE d.organization_id = ${organizationId} AND d.id = ${departmentId}`),
      departmentByName: row("identity.departmentByName", Id, (organizationId: string, name: string) =>
        sql`SELECT id FROM departments WHERE organization_id = ${organizationId} AND lower(name) = lower(${name})`),
      directoryDepartments: rows("identity.directoryDepartments", DirectoryDepartment, (organizationId: string) =>
        sql`SELECT id, organization_id, name FROM departments WHERE organization_id = ${organizationId} ORDER BY name`),
      insertDepartment: one("identity.insertDepartment", Id, (organizationId: string, name: string) =>
        sql`INSERT INTO departments (organization_id, name) VALUES (${organizationId}, ${name}) RETURNING id`),
      renameDepartment: exec((departmentId: string, name: string) =>
        sql`UPDATE departments SET name = ${name} WHERE id = ${departmentId}`),
      addManager: exec((departmentId: string, userId: string) =>
        sql`INSERT INTO department_managers (department_id, user_id) VALUES (${departmentId}, ${userId}) ON CONFLICT DO NOTHING`),
      removeManager: affected((departmentId: string, userId: string) =>
        sql`DELETE FROM department_managers WHERE department_id = ${departmentId} AND user_id = ${userId} RETURNING user_id`),

      invitations: rows("identity.invitations", InvitationRow, (organizationId: string) =>
        sql`SELECT ${invitationColumns} FROM invitations WHERE organization_id = ${organizationId} ORDER BY invited_at DESC, id`),
      invitation: row("identity.invitation", InvitationRow, (organizationId: string, invitationId: string) =>
        sql`SELECT ${invitationColumns} FROM invitations WHERE organization_id = ${organizationId} AND id = ${invitationId}`),
      /** Locks the invitation row so two acceptances of one code cannot both succeed. */
      invitationByCodeForUpdate: row("identity.invitationByCodeForUpdate", InvitationRow, (codeHash: string) =>
        sql`SELECT ${invitationColumns} FROM invitations WHERE code_hash = ${codeHash} FOR UPDATE`),
      pendingInvitationFor: row("identity.pendingInvitationFor", Id, (organizationId: string, email: string) => sql`
        SELECT id FROM invitations WHERE organization_id = ${organizationId} AND lower(email) = lower(${email})
          AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`),
      insertInvitation: one("identity.insertInvitation", InvitationRow, (invitation: NewInvitation) => sql`
        INSERT INTO invitations (organization_id, email, name, role, clearance, department_id, code_hash, invited_by, expires_at)
        VALUES (${invitation.organizationId}, ${invitation.email}, ${invitation.name}, ${invitation.role}, ${invitation.clearance},
                ${invitation.departmentId}, ${invitation.codeHash}, ${invitation.invitedBy}, ${invitation.expiresAt})
        RETURNING ${invitationColumns}`),
      revokeInvitation: exec((invitationId: string) =>
        sql`UPDATE invitations SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${invitationId}`),
      markAccepted: exec((invitationId: string, userId: string) =>
        sql`UPDATE invitations SET accepted_at = now(), accepted_app_user_id = ${userId} WHERE id = ${invitationId}`)
    }
  })
}) {}
