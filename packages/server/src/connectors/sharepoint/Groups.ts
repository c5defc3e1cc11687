import type { DirectoryObject, Site, User } from "@microsoft/microsoft-graph-types"
import type { NativePrincipals, NativeUser, SourceGroupMembership } from "../Kind"
import { organizationId, parseSiteGroupId, userOfLoginName } from "./Acl"
import { failureOf, type SharePointClient, SharePointError } from "./Client"
import { pagesOf } from "./Drives"

export const USER_SELECT = "$select=id,mail,userPrincipalName,displayName,userType"

/** SharePoint REST's site-group member (`/_api/web/sitegroups/getbyid(n)/users`, odata=nometadata). */
export interface SiteGroupMember {
  readonly Id: number
  readonly LoginName: string
  readonly Title: string
  readonly Email?: string | null
  /** 1 user, 4 security group (an Entra group), 8 SharePoint group. */
  readonly PrincipalType: number
}

export const nativeUserOf = (user: Pick<User, "id" | "mail" | "userPrincipalName" | "displayName">): NativeUser | null => {
  if (!user.id) return null
  const email = user.mail ?? (user.userPrincipalName?.includes("@") && !user.userPrincipalName.includes("#EXT#") ? user.userPrincipalName : null)
  return { id: user.id, ...(email ? { email: email.toLowerCase() } : {}), ...(user.displayName ? { displayName: user.displayName } : {}) }
}

/** An Entra group's members, nested groups flattened by Graph (`transitiveMembers`), users only. */
export const entraGroupMembers = async (client: SharePointClient, groupId: string): Promise<NativePrincipals> => {
  const users: Array<NativeUser> = []
  for await (const page of pagesOf<DirectoryObject & User>(client, `/v1.0/groups/${encodeURIComponent(groupId)}/transitiveMembers/microsoft.graph.user?${USER_SELECT}&$top=999`)) {
    for (const member of page) {
      const user = nativeUserOf(member)
      if (user) users.push(user)
    }
  }
  return { users, groups: [] }
}

/**
 * A site group's members from SharePoint REST on the site's host (Graph does not list them): users by login name,
 * Entra security groups by object id (their own members are read as groups too), "Everyone except external users"
 * as the organization. Other claims (everyone including guests, other tenants) admit nobody: fail closed.
 */
export const siteGroupMembers = async (client: SharePointClient, siteId: string, groupId: string, tenantId: string, discovered: (group: string) => void): Promise<NativePrincipals> => {
  const site = await client.graph<Site>(`/v1.0/sites/${encodeURIComponent(siteId)}?$select=id,webUrl`)
  const webUrl = site.webUrl ? new URL(site.webUrl) : null
  const path = webUrl ? webUrl.pathname.replace(/\/+$/, "") : ""
  // A OneDrive's site lives on the personal-sites host (acme-my.sharepoint.com): its groups are read there, with a
  // token for that host. A site Graph places on any other host is not asked (its group admits nobody).
  if (webUrl && !client.isSharePointOrigin(webUrl.origin)) throw new SharePointError(0, "SITE_GROUPS_UNREADABLE", `site ${siteId.slice(0, 120)} is on ${webUrl.host.slice(0, 120)}, not a SharePoint host of this tenant`)
  const found = await client.sharepoint<{ value: ReadonlyArray<SiteGroupMember> }>(`${path}/_api/web/sitegroups/getbyid(${Number(groupId)})/users`, webUrl?.origin)
  const users: Array<NativeUser> = []
  const groups: Array<{ id: string }> = []
  let organization = false
  for (const member of found.value ?? []) {
    if (member.PrincipalType === 1) {
      const user = userOfLoginName(member.LoginName, member.Title)
      if (user) users.push(user)
    } else if (member.PrincipalType === 4) {
      const entra = /^c:0t\.c\|tenant\|([0-9a-f-]{36})$/i.exec(member.LoginName)
      if (entra) {
        groups.push({ id: entra[1]! })
        discovered(entra[1]!)
      } else if (/^c:0-\.f\|rolemanager\|spo-grid-all-users\//i.test(member.LoginName)) organization = true
    }
  }
  return { users, groups, ...(organization ? { organizations: [{ id: organizationId(tenantId) }] } : {}) }
}

/** The organization-wide principal's members: the tenant's users, guests (userType Guest, #EXT# names) left out. */
export const organizationMembership = async (client: SharePointClient, tenantId: string): Promise<SourceGroupMembership> => {
  const users: Array<NativeUser> = []
  for await (const page of pagesOf<User>(client, `/v1.0/users?${USER_SELECT}&$top=999`)) {
    for (const user of page) {
      if (user.userType === "Guest" || user.userPrincipalName?.includes("#EXT#")) continue
      const native = nativeUserOf(user)
      if (native) users.push(native)
    }
  }
  return { id: organizationId(tenantId), kind: "SOURCE_ORGANIZATION", displayName: "People in the organization", members: { users, groups: [] } }
}

/**
 * The memberships of the groups named (Entra groups and site groups, and the Entra groups site groups hold), each
 * read once per `resolved` set: what a crawl step yields beside the documents that name them, so a first crawl
 * admits their members at once rather than after the next permission sync.
 */
export const membershipsOf = async (client: SharePointClient, named: ReadonlyArray<string>, tenantId: string, resolved: Set<string>) => {
  const memberships: Array<SourceGroupMembership> = []
  const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
  const queue = named.filter((id) => !resolved.has(id))
  while (queue.length > 0) {
    const id = queue.shift()!
    if (resolved.has(id)) continue
    resolved.add(id)
    const siteGroup = parseSiteGroupId(id)
    try {
      const members = siteGroup
        ? await siteGroupMembers(client, siteGroup.siteId, siteGroup.groupId, tenantId, (nested) => queue.push(nested))
        : await entraGroupMembers(client, id)
      memberships.push({ id, members })
    } catch (error) {
      const failure = failureOf(error, "PERMISSION_SYNC_FAILED")
      if (failure.fatal) throw error
      failures.push({ ...failure, message: `group ${id.slice(0, 120)}: ${failure.message}` })
    }
  }
  return { memberships, failures }
}
