import type { LoreFetchClient } from "../../fetchClient"
import { AdminAccessArea, AdminAuditArea, AdminSpacesArea } from "./access"
import { AdminAiArea } from "./ai"
import { AdminAssistantArea } from "./assistant"
import { AdminProvisioningArea } from "./provisioning"
import { AdminConnectorsArea, AdminSourceIdentityArea } from "./connectors"
import { AdminSsoArea } from "./sso"
import { AdminDepartmentsArea, AdminInvitationsArea, AdminRolesArea, AdminUsersArea } from "./users"

export { AdminAccessArea, AdminAuditArea, AdminSpacesArea, type AuditQuery } from "./access"
export { AdminAiArea } from "./ai"
export { AdminAssistantArea } from "./assistant"
export { AdminProvisioningArea } from "./provisioning"
export { AdminConnectorsArea, AdminSourceIdentityArea } from "./connectors"
export { AdminSsoArea, ssoStartUrl } from "./sso"
export { AdminDepartmentsArea, AdminInvitationsArea, AdminRolesArea, AdminUsersArea } from "./users"

/** Everything under /api/admin; each call needs the matching permission (403 PERMISSION_DENIED otherwise). */
export class AdminArea {
  readonly users: AdminUsersArea
  readonly departments: AdminDepartmentsArea
  readonly roles: AdminRolesArea
  readonly invitations: AdminInvitationsArea
  readonly spaces: AdminSpacesArea
  readonly access: AdminAccessArea
  readonly audit: AdminAuditArea
  readonly ai: AdminAiArea
  readonly assistant: AdminAssistantArea
  readonly provisioning: AdminProvisioningArea
  readonly connectors: AdminConnectorsArea
  readonly sourceIdentity: AdminSourceIdentityArea
  readonly sso: AdminSsoArea

  constructor(client: LoreFetchClient) {
    this.users = new AdminUsersArea(client)
    this.departments = new AdminDepartmentsArea(client)
    this.roles = new AdminRolesArea(client)
    this.invitations = new AdminInvitationsArea(client)
    this.spaces = new AdminSpacesArea(client)
    this.access = new AdminAccessArea(client)
    this.audit = new AdminAuditArea(client)
    this.ai = new AdminAiArea(client)
    this.assistant = new AdminAssistantArea(client)
    this.provisioning = new AdminProvisioningArea(client)
    this.connectors = new AdminConnectorsArea(client)
    this.sourceIdentity = new AdminSourceIdentityArea(client)
    this.sso = new AdminSsoArea(client)
  }
}
