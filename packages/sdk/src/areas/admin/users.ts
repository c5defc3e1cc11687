import type { LoreFetchClient } from "../../fetchClient"
import { unwrap, unwrapEmpty } from "../../response"
import type {
  AdminUser,
  CreateInvitation,
  Department,
  Invitation,
  IssuedInvitation,
  PlatformRole,
  RoleList,
  UpdateUser,
  UserPermissions
} from "../../generated/openapi"

/** Users of the organization (`users.read` / `users.manage`). */
export class AdminUsersArea {
  constructor(private readonly client: LoreFetchClient) {}

  list(): Promise<Array<AdminUser>> {
    return unwrap(this.client.GET("/api/admin/users"))
  }

  /** Changes name, role, clearance, department or active; deactivating a user ends their tokens and sessions. */
  update(userId: string, patch: UpdateUser): Promise<AdminUser> {
    return unwrap(this.client.PATCH("/api/admin/users/{userId}", { params: { path: { userId } }, body: patch }))
  }

  /** Every permission name mapped to ALLOWED or DENIED for that user. */
  permissions(userId: string): Promise<UserPermissions> {
    return unwrap(this.client.GET("/api/admin/users/{userId}/permissions", { params: { path: { userId } } }))
  }
}

/** Departments and their managers. */
export class AdminDepartmentsArea {
  constructor(private readonly client: LoreFetchClient) {}

  list(): Promise<Array<Department>> {
    return unwrap(this.client.GET("/api/admin/departments"))
  }

  create(name: string): Promise<Department> {
    return unwrap(this.client.POST("/api/admin/departments", { body: { name } }))
  }

  rename(departmentId: string, name: string): Promise<Department> {
    return unwrap(this.client.PATCH("/api/admin/departments/{departmentId}", { params: { path: { departmentId } }, body: { name } }))
  }

  addManager(departmentId: string, userId: string): Promise<Department> {
    return unwrap(this.client.POST("/api/admin/departments/{departmentId}/managers", { params: { path: { departmentId } }, body: { userId } }))
  }

  removeManager(departmentId: string, userId: string): Promise<Department> {
    return unwrap(this.client.DELETE("/api/admin/departments/{departmentId}/managers/{userId}", { params: { path: { departmentId, userId } } }))
  }
}

/** Platform roles (ORG_ADMIN, KNOWLEDGE_ADMIN, ASSET_REVIEWER, CONNECTOR_ADMIN, AUDITOR) and who holds them. */
export class AdminRolesArea {
  constructor(private readonly client: LoreFetchClient) {}

  list(): Promise<RoleList> {
    return unwrap(this.client.GET("/api/admin/roles"))
  }

  addMember(role: PlatformRole, userId: string): Promise<void> {
    return unwrapEmpty(this.client.POST("/api/admin/roles/{role}/members", { params: { path: { role } }, body: { userId } }))
  }

  removeMember(role: PlatformRole, userId: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/admin/roles/{role}/members/{userId}", { params: { path: { role, userId } } }))
  }
}

/** Invitations; the invitee redeems the code with `lore.invitations.accept`. */
export class AdminInvitationsArea {
  constructor(private readonly client: LoreFetchClient) {}

  list(): Promise<Array<Invitation>> {
    return unwrap(this.client.GET("/api/admin/invitations"))
  }

  /** `invitationCode` in the answer is the secret to hand to the invitee, shown this once. */
  create(input: CreateInvitation): Promise<IssuedInvitation> {
    return unwrap(this.client.POST("/api/admin/invitations", { body: input }))
  }

  revoke(invitationId: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/admin/invitations/{invitationId}", { params: { path: { invitationId } } }))
  }
}
