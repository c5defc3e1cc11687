import type { admin_directory_v1 } from "@googleapis/admin"
import type { NativeGroup, NativeUser, SourceGroupMembership } from "../Kind"
import { domainPrincipalId, groupPrincipalId, parsePrincipalId } from "./Acl"
import { failureOf, GoogleDriveError, type GoogleDriveClient, googlePages, withPageToken } from "./Client"

/**
 * A Google group's direct members from the Directory (`members.list`): users by email, member groups by theirs (read
 * as groups in turn: nesting is kept, the framework flattens it). Suspended members and `CUSTOMER` entries (the whole
 * account, every domain of it) admit nobody through the group: fail closed. A group the Directory does not know
 * (outside the domain) has no members Lore can read: it admits nobody.
 */
export const groupMembers = async (client: GoogleDriveClient, adminSubject: string, groupEmail: string, discovered: (group: string) => void) => {
  const users: Array<NativeUser> = []
  const groups: Array<NativeGroup> = []
  try {
    const path = `/admin/directory/v1/groups/${encodeURIComponent(groupEmail)}/members?maxResults=200`
    for await (const page of googlePages((token) => client.json<admin_directory_v1.Schema$Members>("admin", adminSubject, withPageToken(path, token)))) {
      for (const member of page.members ?? []) {
        const email = member.email?.toLowerCase()
        if (!email || member.status === "SUSPENDED") continue
        if (member.type === "USER") users.push({ id: email, email })
        else if (member.type === "GROUP") {
          groups.push({ id: groupPrincipalId(email) })
          discovered(groupPrincipalId(email))
        }
      }
    }
  } catch (error) {
    if (error instanceof GoogleDriveError && error.status === 404) return { users: [], groups: [] }
    throw error
  }
  return { users, groups }
}

/**
 * A domain's organization-wide principal: the directory's users whose primary email is in that domain (`users.list`,
 * suspended and archived accounts left out). An address in the domain the directory does not know reads nothing
 * through domain sharing; a domain that is not the account's has no members.
 */
export const domainMembership = async (client: GoogleDriveClient, adminSubject: string, domain: string): Promise<SourceGroupMembership> => {
  const users: Array<NativeUser> = []
  const suffix = `@${domain.toLowerCase()}`
  try {
    const path = `/admin/directory/v1/users?domain=${encodeURIComponent(domain)}&maxResults=500&projection=basic`
    for await (const page of googlePages((token) => client.json<admin_directory_v1.Schema$Users>("admin", adminSubject, withPageToken(path, token)))) {
      for (const user of page.users ?? []) {
        const email = user.primaryEmail?.toLowerCase()
        if (!email || !email.endsWith(suffix) || user.suspended || user.archived) continue
        users.push({ id: email, email, ...(user.name?.fullName ? { displayName: user.name.fullName } : {}) })
      }
    }
  } catch (error) {
    if (!(error instanceof GoogleDriveError && (error.status === 400 || error.status === 404))) throw error
  }
  return { id: domainPrincipalId(domain), kind: "SOURCE_ORGANIZATION", displayName: `Everyone at ${domain}`, members: { users, groups: [] } }
}

/** One principal's membership: a group's members or a domain's users. */
export const membershipOf = async (client: GoogleDriveClient, adminSubject: string, id: string, discovered: (group: string) => void): Promise<SourceGroupMembership | null> => {
  const principal = parsePrincipalId(id)
  if (!principal) return null
  if (principal.kind === "domain") return domainMembership(client, adminSubject, principal.key)
  return { id, members: await groupMembers(client, adminSubject, principal.key, discovered) }
}

/**
 * The memberships of the groups and domains named (nested groups found on the way too), each read once per
 * `resolved` set and at most `limit` of them: what a crawl step yields beside the documents that name them, so a
 * first crawl admits their members at once rather than after the next permission sync. A group the Directory will
 * not give keeps the members it had (the failure is recorded, nothing widens).
 */
export const membershipsOf = async (client: GoogleDriveClient, adminSubject: string, named: ReadonlyArray<string>, resolved: Set<string>, limit: number) => {
  const memberships: Array<SourceGroupMembership> = []
  const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
  const queue = named.filter((id) => !resolved.has(id))
  while (queue.length > 0 && resolved.size < limit) {
    const id = queue.shift()!
    if (resolved.has(id)) continue
    resolved.add(id)
    try {
      const membership = await membershipOf(client, adminSubject, id, (nested) => queue.push(nested))
      if (membership) memberships.push(membership)
    } catch (error) {
      const failure = failureOf(error, "PERMISSION_SYNC_FAILED")
      if (failure.fatal) throw error
      failures.push({ ...failure, message: `${id.slice(0, 120)}: ${failure.message}` })
    }
  }
  return { memberships, failures }
}
