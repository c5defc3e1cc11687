import type { Permission, SharePointIdentitySet } from "@microsoft/microsoft-graph-types"
import type { NativeAcl, NativeGroup, NativeUser } from "../Kind"

/** The tenant's organization-wide principal ("people in your organization" links, "Everyone except external users"). */
export const organizationId = (tenantId: string) => `tenant:${tenantId.toLowerCase()}`

/** A SharePoint site group, which belongs to one site: its numeric id is unique only there. */
export const siteGroupId = (siteId: string, groupId: string) => `sitegroup:${siteId}|${groupId}`
export const parseSiteGroupId = (id: string) => {
  const match = /^sitegroup:([A-Za-z0-9.,-]{1,400})\|(\d{1,10})$/.exec(id)
  return match ? { siteId: match[1]!, groupId: match[2]! } : null
}

/** Claims SharePoint writes into login names: a member (`i:0#.f|membership|ann@acme.com`) names a user by UPN. */
export const emailOfLoginName = (loginName: string | null | undefined): string | null => {
  const match = /^i:0#\.f\|membership\|([^|\s]{3,320})$/i.exec(loginName ?? "")
  return match && match[1]!.includes("@") ? match[1]!.toLowerCase() : null
}

/** A user a SharePoint login name names, by the `upn:` id (SharePoint REST gives no Entra object id). */
export const userOfLoginName = (loginName: string | null | undefined, displayName?: string | null): NativeUser | null => {
  const email = emailOfLoginName(loginName)
  return email ? { id: `upn:${email}`, email, ...(displayName ? { displayName } : {}) } : null
}

const GRANTING_ROLES = new Set(["read", "write", "owner", "sp.full control", "sp.edit", "sp.view", "sp.owner", "sp.member", "sp.visitor"])

/**
 * Who a driveItem's permissions let read it. Graph lists the item's own permissions and those it inherits
 * (`inheritedFrom` names the ancestor), which is how SharePoint inherits them: they are all read alike. Users by their
 * Entra object id, Entra groups by theirs, SharePoint site groups by site and number. Sharing links: "people in
 * your organization" admits the tenant's organization-wide principal; "specific people" the people it lists;
 * "anyone with the link" (anonymous) only the principals it lists explicitly (nobody else: Lore cannot tell who holds
 * the link, so it fails closed). `restrictedView` alone and permissions without a granting role are left out.
 */
export const aclOfPermissions = (permissions: ReadonlyArray<Permission>, tenantId: string, siteId: string | null): NativeAcl => {
  const users = new Map<string, NativeUser>()
  const groups = new Map<string, NativeGroup>()
  let organization = false
  const admit = (set: SharePointIdentitySet | null | undefined) => {
    if (!set) return
    const user = set.user as ({ id?: string | null; displayName?: string | null; email?: string | null } | null | undefined)
    if (user?.id) users.set(user.id, { id: user.id, ...(user.email ? { email: user.email.toLowerCase() } : {}), ...(user.displayName ? { displayName: user.displayName } : {}) })
    if (set.group?.id) groups.set(set.group.id, { id: set.group.id, ...(set.group.displayName ? { displayName: set.group.displayName } : {}) })
    if (set.siteGroup?.id && siteId) {
      const id = siteGroupId(siteId, set.siteGroup.id)
      groups.set(id, { id, ...(set.siteGroup.displayName ? { displayName: set.siteGroup.displayName } : {}) })
    }
    if (set.siteUser?.loginName) {
      const found = userOfLoginName(set.siteUser.loginName, set.siteUser.displayName)
      if (found && ![...users.values()].some((u) => u.email === found.email)) users.set(found.id, found)
    }
  }
  for (const permission of permissions) {
    const roles = (permission.roles ?? []).map((role) => role.toLowerCase())
    if (!roles.some((role) => GRANTING_ROLES.has(role))) continue
    if (permission.expirationDateTime && Date.parse(permission.expirationDateTime) < Date.now()) continue
    const scope = permission.link?.scope ?? null
    if (scope === "organization") organization = true
    if (scope === "existingAccess") continue
    admit(permission.grantedToV2 ?? (permission.grantedTo as SharePointIdentitySet | null | undefined))
    for (const set of permission.grantedToIdentitiesV2 ?? permission.grantedToIdentities ?? []) admit(set as SharePointIdentitySet)
  }
  return {
    users: [...users.values()],
    groups: [...groups.values()],
    ...(organization ? { organizations: [{ id: organizationId(tenantId), displayName: "People in the organization" }] } : {})
  }
}
