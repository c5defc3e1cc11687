import type { drive_v3 } from "@googleapis/drive"
import type { NativeAcl, NativeGroup, NativeUser } from "../Kind"

/** A Google Workspace domain's organization-wide principal (a `domain` permission: "anyone at acme.com"). */
export const domainPrincipalId = (domain: string) => `domain:${domain.toLowerCase()}`
/** A Google group, by its email (Drive names groups only by email). */
export const groupPrincipalId = (email: string) => `group:${email.toLowerCase()}`
export const parsePrincipalId = (id: string): { readonly kind: "domain" | "group"; readonly key: string } | null => {
  const match = /^(domain|group):([^\s/?#]{1,320})$/.exec(id)
  return match ? { kind: match[1] as "domain" | "group", key: match[2]! } : null
}

/** Every Drive role lets its holder read the file (reader, commenter, writer, fileOrganizer, organizer, owner). */
const GRANTING_ROLES = new Set(["reader", "commenter", "writer", "fileorganizer", "organizer", "owner"])

/**
 * Who a file's permissions (`permissions.list`, which on a shared drive's file includes the drive's members) let
 * read it. Users by their email, groups by theirs (members read from the Directory), `domain` as that domain's
 * organization-wide principal (the directory's users of the domain). `anyone` (public, or anyone with the link)
 * admits only the principals listed explicitly: Lore cannot tell who holds a link, so it fails closed. Permissions
 * that are deleted (the account is gone), expired, or only for a published view are left out.
 */
export const aclOfPermissions = (permissions: ReadonlyArray<drive_v3.Schema$Permission>, now = Date.now()): NativeAcl => {
  const users = new Map<string, NativeUser>()
  const groups = new Map<string, NativeGroup>()
  const domains = new Set<string>()
  for (const permission of permissions) {
    if (!GRANTING_ROLES.has((permission.role ?? "").toLowerCase()) || permission.deleted || permission.view === "published") continue
    if (permission.expirationTime && Date.parse(permission.expirationTime) < now) continue
    const email = permission.emailAddress?.toLowerCase()
    if (permission.type === "user" && email) users.set(email, { id: email, email, ...(permission.displayName ? { displayName: permission.displayName } : {}) })
    else if (permission.type === "group" && email) groups.set(email, { id: groupPrincipalId(email), ...(permission.displayName ? { displayName: permission.displayName } : {}) })
    else if (permission.type === "domain" && permission.domain) domains.add(permission.domain.toLowerCase())
  }
  return {
    users: [...users.values()],
    groups: [...groups.values()],
    ...(domains.size > 0 ? { organizations: [...domains].map((domain) => ({ id: domainPrincipalId(domain), displayName: `Everyone at ${domain}` })) } : {})
  }
}
