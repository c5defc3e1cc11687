import { Context } from "effect"
import type { Principal } from "./Principal"
import type { PlatformRole } from "./Model"

/** Capabilities over Lore itself. Endpoints name the one they need; roles grant sets of them. */
export const permissions = [
  "users.read",
  "users.manage",
  "departments.manage",
  "roles.manage",
  "invitations.manage",
  "spaces.read",
  "spaces.manage",
  "grants.manage",
  "access.explain",
  "audit.read",
  "connectors.manage",
  "ai.manage",
  "provisioning.manage",
  "assets.review",
  "assets.govern"
] as const
export type Permission = (typeof permissions)[number]

const all = [...permissions]

/** What each platform role may do. The user role ADMIN holds everything ORG_ADMIN does. */
export const rolePermissions: Record<PlatformRole, ReadonlyArray<Permission>> = {
  ORG_ADMIN: all,
  KNOWLEDGE_ADMIN: ["users.read", "spaces.read", "spaces.manage", "grants.manage", "access.explain", "departments.manage", "assets.govern"],
  CONNECTOR_ADMIN: ["users.read", "spaces.read", "connectors.manage", "access.explain"],
  ASSET_REVIEWER: ["assets.review"],
  AUDITOR: ["users.read", "spaces.read", "access.explain", "audit.read"]
}

export const permissionsOf = (principal: Pick<Principal, "role" | "platformRoles">): ReadonlySet<Permission> =>
  new Set(principal.role === "ADMIN" ? all : principal.platformRoles.flatMap((role) => rolePermissions[role] ?? []))

export const holds = (principal: Pick<Principal, "role" | "platformRoles">, permission: Permission) =>
  permissionsOf(principal).has(permission)

/** Endpoint annotation: the permission a caller needs. Read by the Authorization middleware. */
export class RequiredPermission extends Context.Tag("lore/RequiredPermission")<RequiredPermission, Permission>() {}
