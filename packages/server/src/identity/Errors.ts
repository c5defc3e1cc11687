import { ProblemError } from "../domain/Errors"

export class UserExists extends ProblemError<UserExists>()("UserExists", {
  status: 409, code: "USER_EXISTS", description: "A user with this email exists already"
}) {}

export class LastAdministrator extends ProblemError<LastAdministrator>()("LastAdministrator", {
  status: 409, code: "LAST_ADMINISTRATOR", description: "The change would leave the organization without an active administrator"
}) {}

export class RoleNotFound extends ProblemError<RoleNotFound>()("RoleNotFound", {
  status: 404, code: "ROLE_NOT_FOUND", description: "No platform role by this name"
}) {}

export class RoleMemberNotFound extends ProblemError<RoleMemberNotFound>()("RoleMemberNotFound", {
  status: 404, code: "ROLE_MEMBER_NOT_FOUND", description: "The user does not hold this platform role"
}) {}

export class DepartmentExists extends ProblemError<DepartmentExists>()("DepartmentExists", {
  status: 409, code: "DEPARTMENT_EXISTS", description: "A department with this name exists already"
}) {}

export class ManagerNotFound extends ProblemError<ManagerNotFound>()("ManagerNotFound", {
  status: 404, code: "MANAGER_NOT_FOUND", description: "The user does not manage this department"
}) {}

export class InvitationNotFound extends ProblemError<InvitationNotFound>()("InvitationNotFound", {
  status: 404, code: "INVITATION_NOT_FOUND", description: "No invitation with this id or code"
}) {}

export class InvitationPending extends ProblemError<InvitationPending>()("InvitationPending", {
  status: 409, code: "INVITATION_PENDING", description: "The email has a pending invitation already; delete it first"
}) {}

export class InvitationAccepted extends ProblemError<InvitationAccepted>()("InvitationAccepted", {
  status: 409, code: "INVITATION_ACCEPTED", description: "The invitation has been used already"
}) {}

export class InvitationRevoked extends ProblemError<InvitationRevoked>()("InvitationRevoked", {
  status: 409, code: "INVITATION_REVOKED", description: "The invitation was revoked"
}) {}

export class InvitationExpired extends ProblemError<InvitationExpired>()("InvitationExpired", {
  status: 409, code: "INVITATION_EXPIRED", description: "The invitation has expired"
}) {}

export class TokenNotFound extends ProblemError<TokenNotFound>()("TokenNotFound", {
  status: 404, code: "TOKEN_NOT_FOUND", description: "The caller has no access token with this id"
}) {}

export class SelfAdministration extends ProblemError<SelfAdministration>()("SelfAdministration", {
  status: 403, code: "SELF_ADMINISTRATION", description: "Nobody changes their own role, clearance, department, active state or platform roles"
}) {}

export class ClearanceAboveOwn extends ProblemError<ClearanceAboveOwn>()("ClearanceAboveOwn", {
  status: 403, code: "CLEARANCE_ABOVE_OWN", description: "Nobody grants a clearance above their own"
}) {}
