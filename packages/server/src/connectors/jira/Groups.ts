import type { Version3Models } from "jira.js"
import type { NativeAcl, NativeOrganization, SourceGroupMembership } from "../Kind"
import { nativeUser } from "./Acl"
import type { JiraClient, JiraUser } from "./Client"

const MEMBER_PAGE = 50
const MAX_MEMBER_PAGES = 2000
const USER_PAGE = 100
const MAX_USER_PAGES = 2000

/** A group's whole membership, page by page (`startAt` after what was read, until `isLast`), active users only. */
export const groupMembership = async (client: JiraClient, name: string): Promise<SourceGroupMembership> => {
  const users: Array<JiraUser> = []
  for (let page = 0; page < MAX_MEMBER_PAGES; page++) {
    const found = await client.json<Version3Models.PageUserDetails>(`${client.api}/group/member?groupname=${encodeURIComponent(name)}&includeInactiveUsers=false&startAt=${users.length}&maxResults=${MEMBER_PAGE}`)
    users.push(...(found.values ?? []))
    if (found.isLast !== false || (found.values ?? []).length === 0) break
  }
  return {
    id: name,
    displayName: name,
    members: { users: users.filter((user) => user.active !== false).map(nativeUser).filter((user) => user.id !== ""), groups: [] }
  }
}

/**
 * The site's organization-wide principal with its members: the active people of the site (Cloud: `accountType`
 * atlassian, which leaves out apps and customers; Data Center: every active user the directory lists).
 */
export const organizationMembership = async (client: JiraClient, organization: NativeOrganization): Promise<SourceGroupMembership> => {
  const users: Array<JiraUser> = []
  // Pages may come shorter than asked (Jira filters after paging): read on from what was read until an empty page.
  let read = 0
  for (let page = 0; page < MAX_USER_PAGES; page++) {
    const path = client.cloud
      ? `${client.api}/users/search?startAt=${read}&maxResults=${USER_PAGE}`
      : `${client.api}/user/search?username=.&includeInactive=false&startAt=${read}&maxResults=${USER_PAGE}`
    const found = await client.json<ReadonlyArray<Version3Models.User>>(path)
    if (!Array.isArray(found) || found.length === 0) break
    read += found.length
    users.push(...found.filter((user) => user.active !== false && (!client.cloud || user.accountType === "atlassian")))
  }
  return {
    id: organization.id,
    kind: "SOURCE_ORGANIZATION",
    displayName: organization.displayName,
    members: { users: users.map(nativeUser).filter((user) => user.id !== ""), groups: [] }
  }
}

/** Past this many groups a crawl or sync stops remembering which it read (each step then reads its groups again). */
const MAX_REMEMBERED = 5000

/**
 * The memberships of the groups and organizations the ACLs name (their intersections' too) that `synced` (what this
 * crawl or sync already read) does not hold; `synced` is returned with them, emptied past MAX_REMEMBERED.
 */
export const membershipsNamed = async (client: JiraClient, acls: ReadonlyArray<NativeAcl | null>, synced: ReadonlyArray<string>) => {
  const seen = new Set(synced)
  const groups: Array<SourceGroupMembership> = []
  for (const acl of acls) {
    for (const principals of acl ? [acl, ...(acl.requireAlso ?? [])] : []) {
      for (const organization of principals.organizations ?? []) {
        if (seen.has(organization.id)) continue
        seen.add(organization.id)
        groups.push(await organizationMembership(client, organization))
      }
      for (const { id } of principals.groups) {
        if (seen.has(id)) continue
        seen.add(id)
        groups.push(await groupMembership(client, id))
      }
    }
  }
  return { groups, synced: seen.size > MAX_REMEMBERED ? [] : [...seen] }
}
