import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Clearance, PlatformRole, UserRole } from "../domain/Model"

export interface AdminUserRow {
  readonly id: string
  readonly organizationId: string
  readonly name: string
  readonly email: string
  readonly role: UserRole
  readonly clearance: Clearance
  readonly departmentId: string
  readonly active: boolean
  readonly signInLinked: boolean
  readonly mappedPrincipalCount: number
  readonly platformRoles: ReadonlyArray<PlatformRole>
  readonly createdAt: Date
}

export interface DepartmentRow {
  readonly id: string
  readonly organizationId: string
  readonly name: string
  readonly managerUserIds: ReadonlyArray<string>
  readonly memberCount: number
  readonly createdAt: Date
}

export interface InvitationRow {
  readonly id: string
  readonly organizationId: string
  readonly email: string
  readonly name: string | null
  readonly role: UserRole
  readonly clearance: Clearance
  readonly departmentId: string
  readonly invitedAt: Date
  readonly expiresAt: Date
  readonly acceptedAt: Date | null
  readonly acceptedAppUserId: string | null
  readonly revokedAt: Date | null
}

/** SQL for administering people: users, departments, platform roles, invitations. */
export class AdminRepo extends Effect.Service<AdminRepo>()("lore/AdminRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const userSelect = sql`
      SELECT u.id, u.organization_id, u.name, u.email, u.role, u.clearance, u.department_id, u.active, u.created_at,
        EXISTS (SELECT 1 FROM access_tokens t WHERE t.user_id = u.id AND t.revoked_at IS NULL
                  AND (t.expires_at IS NULL OR t.expires_at > now())) AS sign_in_linked,
        0 AS mapped_principal_count,
        coalesce((SELECT array_agg(m.role ORDER BY m.role) FROM platform_role_members m WHERE m.user_id = u.id), '{}') AS platform_roles
      FROM users u`
    const departmentSelect = sql`
      SELECT d.id, d.organization_id, d.name, d.created_at,
        coalesce((SELECT array_agg(dm.user_id ORDER BY dm.user_id) FROM department_managers dm WHERE dm.department_id = d.id), '{}') AS manager_user_ids,
        (SELECT count(*)::int FROM users u WHERE u.department_id = d.id AND u.active) AS member_count
      FROM departments d`
    const invitationColumns = sql.literal(
      "id, organization_id, email, name, role, clearance, department_id, invited_at, expires_at, accepted_at, accepted_app_user_id, revoked_at"
    )
    const first = <A>(rows: ReadonlyArray<A>) => rows[0]

    return {
      users: (organizationId: string) =>
        sql<AdminUserRow>`${userSelect} WHERE u.organization_id = ${organizationId} ORDER BY u.name, u.email`.pipe(Effect.orDie),
      user: (organizationId: string, userId: string) =>
        sql<AdminUserRow>`${userSelect} WHERE u.organization_id = ${organizationId} AND u.id = ${userId}`.pipe(Effect.map(first), Effect.orDie),
      userByEmail: (organizationId: string, email: string) =>
        sql<AdminUserRow>`${userSelect} WHERE u.organization_id = ${organizationId} AND lower(u.email) = lower(${email})`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      updateUser: (userId: string, patch: { name?: string; role?: string; clearance?: string; departmentId?: string; active?: boolean }) =>
        sql`
          UPDATE users SET
            name = coalesce(${patch.name ?? null}, name),
            role = coalesce(${patch.role ?? null}, role),
            clearance = coalesce(${patch.clearance ?? null}, clearance),
            department_id = coalesce(${patch.departmentId ?? null}::uuid, department_id),
            active = coalesce(${patch.active ?? null}::boolean, active),
            updated_at = now()
          WHERE id = ${userId}`.pipe(Effect.asVoid, Effect.orDie),
      insertUser: (row: { organizationId: string; departmentId: string; email: string; name: string; role: string; clearance: string }) =>
        sql<{ id: string }>`
          INSERT INTO users (organization_id, department_id, email, name, role, clearance)
          VALUES (${row.organizationId}, ${row.departmentId}, ${row.email}, ${row.name}, ${row.role}, ${row.clearance})
          RETURNING id`.pipe(Effect.map((rows) => rows[0]!.id), Effect.orDie),
      /** Active users who can administer the organization (ADMIN role or ORG_ADMIN), for last-admin guards. */
      activeAdministrators: (organizationId: string) =>
        sql<{ id: string }>`
          SELECT u.id FROM users u WHERE u.organization_id = ${organizationId} AND u.active
            AND (u.role = 'ADMIN' OR EXISTS (SELECT 1 FROM platform_role_members m WHERE m.user_id = u.id AND m.role = 'ORG_ADMIN'))
          FOR UPDATE OF u`.pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie),

      roleMembers: (organizationId: string) =>
        sql<{ role: string; userId: string }>`
          SELECT m.role, m.user_id FROM platform_role_members m JOIN users u ON u.id = m.user_id
          WHERE u.organization_id = ${organizationId} ORDER BY m.role, m.assigned_at, m.user_id`.pipe(Effect.orDie),
      addRoleMember: (role: string, userId: string) =>
        sql`INSERT INTO platform_role_members (role, user_id) VALUES (${role}, ${userId}) ON CONFLICT DO NOTHING`.pipe(
          Effect.map(() => undefined),
          Effect.orDie
        ),
      removeRoleMember: (role: string, userId: string) =>
        sql<{ role: string }>`DELETE FROM platform_role_members WHERE role = ${role} AND user_id = ${userId} RETURNING role`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      departments: (organizationId: string) =>
        sql<DepartmentRow>`${departmentSelect} WHERE d.organization_id = ${organizationId} ORDER BY d.name`.pipe(Effect.orDie),
      department: (organizationId: string, departmentId: string) =>
        sql<DepartmentRow>`${departmentSelect} WHERE d.organization_id = ${organizationId} AND d.id = ${departmentId}`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      departmentByName: (organizationId: string, name: string) =>
        sql<{ id: string }>`SELECT id FROM departments WHERE organization_id = ${organizationId} AND lower(name) = lower(${name})`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      insertDepartment: (organizationId: string, name: string) =>
        sql<{ id: string }>`INSERT INTO departments (organization_id, name) VALUES (${organizationId}, ${name}) RETURNING id`.pipe(
          Effect.map((rows) => rows[0]!.id),
          Effect.orDie
        ),
      renameDepartment: (departmentId: string, name: string) =>
        sql`UPDATE departments SET name = ${name} WHERE id = ${departmentId}`.pipe(Effect.asVoid, Effect.orDie),
      addManager: (departmentId: string, userId: string) =>
        sql`INSERT INTO department_managers (department_id, user_id) VALUES (${departmentId}, ${userId}) ON CONFLICT DO NOTHING`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      removeManager: (departmentId: string, userId: string) =>
        sql<{ userId: string }>`DELETE FROM department_managers WHERE department_id = ${departmentId} AND user_id = ${userId} RETURNING user_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        ),

      invitations: (organizationId: string) =>
        sql<InvitationRow>`SELECT ${invitationColumns} FROM invitations WHERE organization_id = ${organizationId} ORDER BY invited_at DESC, id`.pipe(
          Effect.orDie
        ),
      invitation: (organizationId: string, invitationId: string) =>
        sql<InvitationRow>`SELECT ${invitationColumns} FROM invitations WHERE organization_id = ${organizationId} AND id = ${invitationId}`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      /** Locks the invitation row so two acceptances of one code cannot both succeed. */
      invitationByCodeForUpdate: (codeHash: string) =>
        sql<InvitationRow>`SELECT ${invitationColumns} FROM invitations WHERE code_hash = ${codeHash} FOR UPDATE`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      pendingInvitationFor: (organizationId: string, email: string) =>
        sql<{ id: string }>`
          SELECT id FROM invitations WHERE organization_id = ${organizationId} AND lower(email) = lower(${email})
            AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`.pipe(Effect.map(first), Effect.orDie),
      insertInvitation: (row: {
        organizationId: string; email: string; name: string | null; role: string; clearance: string
        departmentId: string; codeHash: string; invitedBy: string; expiresAt: Date
      }) =>
        sql<InvitationRow>`
          INSERT INTO invitations (organization_id, email, name, role, clearance, department_id, code_hash, invited_by, expires_at)
          VALUES (${row.organizationId}, ${row.email}, ${row.name}, ${row.role}, ${row.clearance}, ${row.departmentId},
                  ${row.codeHash}, ${row.invitedBy}, ${row.expiresAt})
          RETURNING ${invitationColumns}`.pipe(Effect.map((rows) => rows[0]!), Effect.orDie),
      revokeInvitation: (invitationId: string) =>
        sql`UPDATE invitations SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${invitationId}`.pipe(Effect.asVoid, Effect.orDie),
      markAccepted: (invitationId: string, userId: string) =>
        sql`UPDATE invitations SET accepted_at = now(), accepted_app_user_id = ${userId} WHERE id = ${invitationId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    }
  })
}) {}
