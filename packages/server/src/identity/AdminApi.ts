import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AccessState, Classification, Clearance, PlatformRole, UserRole } from "../domain/Model"
import { DepartmentNotFound, UserNotFound } from "../domain/Errors"
import { Body, created, Timestamp } from "../domain/Schemas"
import { isPublic, requires } from "../domain/Security"
import {
  DepartmentExists, InvitationAccepted, InvitationExpired, InvitationNotFound, InvitationPending, InvitationRevoked,
  LastAdministrator, ManagerNotFound, RoleMemberNotFound, RoleNotFound, UserExists, SelfAdministration, ClearanceAboveOwn
} from "./Errors"
import { IssuedAccessToken } from "./Api"


export const AdminUser = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  email: Schema.String,
  role: UserRole,
  clearance: Clearance,
  departmentId: Schema.UUID,
  active: Schema.Boolean,
  signInLinked: Schema.Boolean.annotations({ description: "The user signs in through single sign-on (linked to an OpenID subject) or holds a live token" }),
  mappedPrincipalCount: Schema.Int,
  platformRoles: Schema.Array(PlatformRole),
  createdAt: Timestamp
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
  evaluatedAt: Timestamp
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
  createdAt: Timestamp
}).annotations({ identifier: "Department" })

const DepartmentName = Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))
export const CreateDepartment = Body({ name: DepartmentName }).annotations({ identifier: "CreateDepartment" })
export const RenameDepartment = Body({ name: DepartmentName }).annotations({ identifier: "RenameDepartment" })

export const InvitationStatus = Schema.Literal("PENDING", "ACCEPTED", "REVOKED", "EXPIRED").annotations({ identifier: "InvitationStatus" })
export const Invitation = Schema.Struct({
  id: Schema.UUID,
  email: Schema.String,
  role: UserRole,
  clearance: Clearance,
  departmentId: Schema.UUID,
  status: InvitationStatus,
  invitedAt: Timestamp,
  expiresAt: Timestamp,
  acceptedAt: Schema.NullOr(Timestamp),
  acceptedAppUserId: Schema.NullOr(Schema.UUID)
}).annotations({ identifier: "Invitation" })

/** What a person will be able to read, so an administrator sees the effect of a clearance before it surprises anyone. */
export const Readability = Schema.Struct({
  classifications: Schema.Array(Classification).annotations({ description: "The classifications their clearance reads" }),
  knowledgeSpaces: Schema.Array(Schema.Struct({ id: Schema.UUID, key: Schema.String, name: Schema.String })).annotations({
    description: "The knowledge spaces their department and role give them viewer access to on acceptance"
  }),
  summary: Schema.String.annotations({ description: "The same in one sentence, for a person" })
}).annotations({ identifier: "Readability" })

export const IssuedInvitation = Schema.Struct({
  ...Invitation.fields,
  invitationCode: Schema.String.annotations({ description: "Give this to the invitee; shown only in this response" }),
  canRead: Readability
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
const RolePath = Schema.Struct({ role: Schema.String })
const DepartmentPath = Schema.Struct({ departmentId: Schema.UUID })

export class UsersAdminApi extends HttpApiGroup.make("adminUsers")
  .add(HttpApiEndpoint.get("listUsers", "/admin/users").addSuccess(Schema.Array(AdminUser)).pipe(requires("users.read")))
  .add(
    HttpApiEndpoint.patch("updateUser", "/admin/users/:userId")
      .setPath(UserPath)
      .setPayload(UpdateUser)
      .addSuccess(AdminUser)
      .addError(UserNotFound)
      .addError(DepartmentNotFound)
      .addError(LastAdministrator)
      .addError(SelfAdministration)
      .addError(ClearanceAboveOwn)
      .pipe(requires("users.manage"))
  )
  .add(
    HttpApiEndpoint.get("getUserPermissions", "/admin/users/:userId/permissions")
      .setPath(UserPath)
      .addSuccess(UserPermissions)
      .addError(UserNotFound)
      .pipe(requires("users.read"))
  )
  .add(HttpApiEndpoint.get("listRoles", "/admin/roles").addSuccess(RoleList).pipe(requires("users.read")))
  .add(
    HttpApiEndpoint.post("addRoleMember", "/admin/roles/:role/members")
      .setPath(RolePath)
      .setPayload(RoleMember)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(RoleNotFound)
      .addError(UserNotFound)
      .addError(SelfAdministration)
      .pipe(requires("roles.manage"))
  )
  .add(
    HttpApiEndpoint.del("removeRoleMember", "/admin/roles/:role/members/:userId")
      .setPath(Schema.Struct({ ...RolePath.fields, ...UserPath.fields }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(RoleNotFound)
      .addError(UserNotFound)
      .addError(RoleMemberNotFound)
      .addError(LastAdministrator)
      .addError(SelfAdministration)
      .pipe(requires("roles.manage"))
  )
  .add(HttpApiEndpoint.get("listDepartments", "/admin/departments").addSuccess(Schema.Array(Department)).pipe(requires("users.read")))
  .add(
    HttpApiEndpoint.post("createDepartment", "/admin/departments")
      .setPayload(CreateDepartment)
      .addSuccess(created(Department))
      .addError(DepartmentExists)
      .pipe(requires("departments.manage"))
  )
  .add(
    HttpApiEndpoint.patch("renameDepartment", "/admin/departments/:departmentId")
      .setPath(DepartmentPath)
      .setPayload(RenameDepartment)
      .addSuccess(Department)
      .addError(DepartmentNotFound)
      .addError(DepartmentExists)
      .pipe(requires("departments.manage"))
  )
  .add(
    HttpApiEndpoint.post("addDepartmentManager", "/admin/departments/:departmentId/managers")
      .setPath(DepartmentPath)
      .setPayload(RoleMember)
      .addSuccess(Department)
      .addError(DepartmentNotFound)
      .addError(UserNotFound)
      .pipe(requires("departments.manage"))
  )
  .add(
    HttpApiEndpoint.del("removeDepartmentManager", "/admin/departments/:departmentId/managers/:userId")
      .setPath(Schema.Struct({ ...DepartmentPath.fields, ...UserPath.fields }))
      .addSuccess(Department)
      .addError(DepartmentNotFound)
      .addError(UserNotFound)
      .addError(ManagerNotFound)
      .pipe(requires("departments.manage"))
  )
  .add(HttpApiEndpoint.get("listInvitations", "/admin/invitations").addSuccess(Schema.Array(Invitation)).pipe(requires("invitations.manage")))
  .add(
    HttpApiEndpoint.post("createInvitation", "/admin/invitations")
      .setPayload(CreateInvitation)
      .addSuccess(created(IssuedInvitation))
      .addError(DepartmentNotFound)
      .addError(UserExists)
      .addError(InvitationPending)
      .addError(ClearanceAboveOwn)
      .pipe(requires("invitations.manage"))
  )
  .add(
    HttpApiEndpoint.del("deleteInvitation", "/admin/invitations/:invitationId")
      .setPath(Schema.Struct({ invitationId: Schema.UUID }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(InvitationNotFound)
      .pipe(requires("invitations.manage"))
  )
  .annotate(OpenApi.Title, "Administration: people")
  .annotate(OpenApi.Description, "Users, departments, platform roles and invitations") {}

export class InvitationsApi extends HttpApiGroup.make("invitations")
  .add(
    HttpApiEndpoint.post("acceptInvitation", "/invitations/accept")
      .setPayload(AcceptInvitation)
      .addSuccess(created(AcceptedInvitation))
      .addError(InvitationNotFound)
      .addError(InvitationAccepted)
      .addError(InvitationRevoked)
      .addError(InvitationExpired)
      .addError(UserExists)
      .pipe(isPublic)
  )
  .annotate(OpenApi.Title, "Invitations")
  .annotate(OpenApi.Description, "Accepting an invitation creates the user and a personal access token, shown once") {}
