import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { LoreApi } from "../http/Api"
import { Administration } from "./Administration"
import { asCaller } from "./CurrentUser"

export const UsersAdminHttp = HttpApiBuilder.group(LoreApi, "adminUsers", (handlers) =>
  Effect.gen(function* () {
    const admin = yield* Administration
    return handlers
      .handle("listUsers", () => asCaller(admin.users))
      .handle("updateUser", ({ path, payload }) => asCaller((me) => admin.updateUser(me, path.userId, payload)))
      .handle("getUserPermissions", ({ path }) => asCaller((me) => admin.permissions(me, path.userId)))
      .handle("listRoles", () => asCaller(admin.roles))
      .handle("addRoleMember", ({ path, payload }) => asCaller((me) => admin.addRoleMember(me, path.role, payload.userId)))
      .handle("removeRoleMember", ({ path }) => asCaller((me) => admin.removeRoleMember(me, path.role, path.userId)))
      .handle("listDepartments", () => asCaller(admin.departments))
      .handle("createDepartment", ({ payload }) => asCaller((me) => admin.createDepartment(me, payload.name)))
      .handle("renameDepartment", ({ path, payload }) => asCaller((me) => admin.renameDepartment(me, path.departmentId, payload.name)))
      .handle("addDepartmentManager", ({ path, payload }) => asCaller((me) => admin.setManager(me, path.departmentId, payload.userId, true)))
      .handle("removeDepartmentManager", ({ path }) => asCaller((me) => admin.setManager(me, path.departmentId, path.userId, false)))
      .handle("listInvitations", () => asCaller(admin.invitations))
      .handle("createInvitation", ({ payload }) => asCaller((me) => admin.invite(me, payload)))
      .handle("deleteInvitation", ({ path }) => asCaller((me) => admin.revokeInvitation(me, path.invitationId)))
  })
)

export const InvitationsHttp = HttpApiBuilder.group(LoreApi, "invitations", (handlers) =>
  Effect.map(Administration, (admin) =>
    handlers.handle("acceptInvitation", ({ payload }) => admin.acceptInvitation(payload.code, payload.name))
  )
)
