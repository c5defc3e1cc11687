import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Clearance, PlatformRole, UserRole } from "../access/Model"
import { RequiredPermission } from "../access/Permissions"
import { BadRequest, Conflict, Forbidden, NotFound } from "../http/Problem"
import { Body } from "../http/Schemas"
import { Authentication } from "../http/Security"
import { IssuedAccessToken } from "./Api"

export const AccessState = Schema.Literal("ALLOWED", "DENIED")

export const AdminUser = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  email: Schema.String,
  role: UserRole,
  clearance: Clearance,
  departmentId: Schema.UUID,
  active: Schema.Boolean,
  signInLinked: Schema.Boolean.annotations({ description: "The user holds a live token or session" }),
  mappedPrincipalCount: Schema.Int,
  platformRoles: Schema.Array(PlatformRole),
  createdAt: Schema.Date
}).annotations({ identifier: "AdminUser" })

export const UpdateUser = Body({
  name: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))),
  role: Schema.optional(UserRole),
  clearance: Schema.optional(Clearance),
  departmentId: Schema.optional(Schema.UUID),
  active: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "UpdateUser" })

export const UserPermissions = Schema.Struct({
  userId: Schema.UUID,
  permissions: Schema.Record({ key: Schema.String, value: AccessState }),
  evaluatedAt: Schema.Date
}).annotations({ identifier: "UserPermissions" })

export const RoleList = Schema.Struct({
  roles: Schema.Array(Schema.Struct({ role: PlatformRole, assignees: Schema.Array(Schema.UUID) })),
  complete: Schema.Boolean,
  policyVersion: Schema.String
}).annotations({ identifier: "RoleList" })

export const RoleMember = Body({ userId: Schema.UUID }).annotations({ identifier: "RoleMember" })

export const Department = Schema.Struct({
  id: Schema.UUID,
  organizationId: Schema.UUID,
  name: Schema.String,
  managerUserIds: Schema.Array(Schema.UUID),
  memberCount: Schema.Int,
  createdAt: Schema.Date
}).annotations({ identifier: "Department" })

const DepartmentName = Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))
export const CreateDepartment = Body({ name: DepartmentName }).annotations({ identifier: "CreateDepartment" })
export const RenameDepartment = Body({ name: DepartmentName }).annotations({ identifier: "RenameDepartment" })

export const InvitationStatus = Schema.Literal("PENDING", "ACCEPTED", "REVOKED", "EXPIRED")
export const Invitation = Schema.Struct({
  id: Schema.UUID,
  email: Schema.String,
  role: UserRole,
  clearance: Clearance,
  departmentId: Schema.UUID,
  status: InvitationStatus,
  invitedAt: Schema.Date,
  expiresAt: Schema.Date,
  acceptedAt: Schema.NullOr(Schema.Date),
  acceptedAppUserId: Schema.NullOr(Schema.UUID)
}).annotations({ identifier: "Invitation" })

export const IssuedInvitation = Schema.Struct({
  ...Invitation.fields,
  invitationCode: Schema.String.annotations({ description: "Give this to the invitee; shown only in this response" })
}).annotations({ identifier: "IssuedInvitation" })

export const CreateInvitation = Body({
  email: Schema.String.pipe(Schema.trimmed(), Schema.pattern(/^[^@\s]+@[^@\s]+$/), Schema.maxLength(320)),
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  role: Schema.optionalWith(UserRole, { default: () => "EMPLOYEE" as const }),
  clearance: Schema.optionalWith(Clearance, { default: () => "STANDARD" as const }),
  departmentId: Schema.UUID,
  expiresInDays: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 90)), { default: () => 14 })
}).annotations({ identifier: "CreateInvitation" })

export const AcceptInvitation = Body({
  code: Schema.String.pipe(Schema.minLength(1)),
  name: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)))
}).annotations({ identifier: "AcceptInvitation" })

export const AcceptedInvitation = Schema.Struct({
  user: AdminUser,
  token: IssuedAccessToken
}).annotations({ identifier: "AcceptedInvitation" })

const UserPath = Schema.Struct({ userId: Schema.UUID })
const needs = RequiredPermission

export class UsersAdminApi extends HttpApiGroup.make("adminUsers")
  .add(HttpApiEndpoint.get("listUsers", "/admin/users").addSuccess(Schema.Array(AdminUser)).annotate(needs, "users.read"))
  .add(
    HttpApiEndpoint.patch("updateUser", "/admin/users/:userId")
      .setPath(UserPath)
      .setPayload(UpdateUser)
      .addSuccess(AdminUser)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(needs, "users.manage")
  )
  .add(
    HttpApiEndpoint.get("getUserPermissions", "/admin/users/:userId/permissions")
      .setPath(UserPath)
      .addSuccess(UserPermissions)
      .addError(NotFound)
      .annotate(needs, "users.read")
  )
  .add(HttpApiEndpoint.get("listRoles", "/admin/roles").addSuccess(RoleList).annotate(needs, "users.read"))
  .add(
    HttpApiEndpoint.post("addRoleMember", "/admin/roles/:role/members")
      .setPath(Schema.Struct({ role: Schema.String }))
      .setPayload(RoleMember)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotate(needs, "roles.manage")
  )
  .add(
    HttpApiEndpoint.del("removeRoleMember", "/admin/roles/:role/members/:userId")
      .setPath(Schema.Struct({ role: Schema.String, userId: Schema.UUID }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(needs, "roles.manage")
  )
  .add(HttpApiEndpoint.get("listDepartments", "/admin/departments").addSuccess(Schema.Array(Department)).annotate(needs, "users.read"))
  .add(
    HttpApiEndpoint.post("createDepartment", "/admin/departments")
      .setPayload(CreateDepartment)
      .addSuccess(Department, { status: 201 })
      .addError(Conflict)
      .annotate(needs, "departments.manage")
  )
  .add(
    HttpApiEndpoint.patch("renameDepartment", "/admin/departments/:departmentId")
      .setPath(Schema.Struct({ departmentId: Schema.UUID }))
      .setPayload(RenameDepartment)
      .addSuccess(Department)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(needs, "departments.manage")
  )
  .add(
    HttpApiEndpoint.post("addDepartmentManager", "/admin/departments/:departmentId/managers")
      .setPath(Schema.Struct({ departmentId: Schema.UUID }))
      .setPayload(RoleMember)
      .addSuccess(Department)
      .addError(NotFound)
      .annotate(needs, "departments.manage")
  )
  .add(
    HttpApiEndpoint.del("removeDepartmentManager", "/admin/departments/:departmentId/managers/:userId")
      .setPath(Schema.Struct({ departmentId: Schema.UUID, userId: Schema.UUID }))
      .addSuccess(Department)
      .addError(NotFound)
      .annotate(needs, "departments.manage")
  )
  .add(HttpApiEndpoint.get("listInvitations", "/admin/invitations").addSuccess(Schema.Array(Invitation)).annotate(needs, "invitations.manage"))
  .add(
    HttpApiEndpoint.post("createInvitation", "/admin/invitations")
      .setPayload(CreateInvitation)
      .addSuccess(IssuedInvitation, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
      .annotate(needs, "invitations.manage")
  )
  .add(
    HttpApiEndpoint.del("deleteInvitation", "/admin/invitations/:invitationId")
      .setPath(Schema.Struct({ invitationId: Schema.UUID }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotate(needs, "invitations.manage")
  )
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Administration: people")
  .annotate(OpenApi.Description, "Users, departments, platform roles and invitations") {}

export class InvitationsApi extends HttpApiGroup.make("invitations")
  .add(
    HttpApiEndpoint.post("acceptInvitation", "/invitations/accept")
      .setPayload(AcceptInvitation)
      .addSuccess(AcceptedInvitation, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
  )
  .annotate(OpenApi.Title, "Invitations")
  .annotate(OpenApi.Description, "Accepting an invitation creates the user and a personal access token, shown once") {}
