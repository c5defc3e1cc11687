import type { AdminUser, Department } from "@lore/sdk"
import type { Labels } from "../arguments"
import type { Me } from "../command"
import { type Cell, styled, type View } from "../output/view"
import { clearanceText } from "./clearance"

/** How people and their departments appear in views: by email and name, with ids dimmed. */

export const userCell = (labels: Labels, userId: string | null | undefined): string => (userId ? (labels.users.get(userId) ?? userId) : "-")

export const departmentCell = (labels: Labels, departmentId: string | null | undefined): string =>
  departmentId ? (labels.departments.get(departmentId) ?? departmentId) : "-"

export const idCell = (id: string): Cell => styled(id, "muted")

export const activeCell = (active: boolean): Cell => (active ? styled("active", "success") : styled("deactivated", "warning"))

export const listCell = (values: ReadonlyArray<string>) => (values.length > 0 ? values.join(", ") : "-")

/** The caller (`GET /api/me`), for whoami, status and a freshly accepted invitation. */
export const meFields = (me: Me): Array<readonly [string, Cell]> => [
  ["Name", styled(me.name, "accent")],
  ["Email", me.email],
  ["Role", me.role],
  ["Clearance", clearanceText(me.clearance)],
  ["Department", me.departmentName],
  ["Platform roles", listCell(me.platformRoles)],
  ["User id", idCell(me.userId)],
  ["Organization id", idCell(me.organizationId)]
]

/** A user as administrators see one (admin users show/update). */
export const adminUserFields = (user: AdminUser, labels: Labels): Array<readonly [string, Cell]> => [
  ["Name", styled(user.name, "accent")],
  ["Email", user.email],
  ["Role", user.role],
  ["Clearance", clearanceText(user.clearance)],
  ["Department", departmentCell(labels, user.departmentId)],
  ["Status", activeCell(user.active)],
  ["Platform roles", listCell(user.platformRoles)],
  ["User id", idCell(user.id)]
]

/** A department after a change: what happened, then its id, member count and managers. */
export const departmentView = (message: string, department: Department): View => [
  { kind: "message", tone: "success", text: message },
  {
    kind: "fields",
    fields: [
      ["Id", idCell(department.id)],
      ["Members", String(department.memberCount)],
      ["Manager ids", listCell(department.managerUserIds)]
    ]
  }
]
