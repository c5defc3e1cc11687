import type { Models } from "confluence.js"
import { Effect } from "effect"
import type { DocumentAcl, KindContext, PermissionPage, SourceGroupMembership } from "../Kind"
import { aclReader, userId } from "./Acl"
import { ConfluenceError, confluenceClient } from "./Client"
import { parseCredential, readConfluenceConfig } from "./Config"
import { governingContentId } from "./Crawl"

/** Where a permission sync is: the site's groups page by page, then the documents Lore holds, in external-id order. */
export interface PermissionCursor {
  readonly phase: "GROUPS" | "ACLS"
  readonly next: string | null
  readonly after: string | null
}

const GROUP_PAGE = 50
const MEMBER_PAGE = 200
const MAX_MEMBER_PAGES = 250
const ACL_PAGE = 50

/** A group's whole membership, page by page (`start`), from the group API both deployments speak. */
const membersOf = async (client: ReturnType<typeof confluenceClient>, name: string) => {
  const users: Array<Models.User> = []
  for (let page = 0; page < MAX_MEMBER_PAGES; page++) {
    const found = await client.json<Models.UserArray>(`/rest/api/group/${encodeURIComponent(name)}/member?start=${page * MEMBER_PAGE}&limit=${MEMBER_PAGE}`)
    users.push(...found.results)
    if (found.results.length < MEMBER_PAGE) break
  }
  return users
}

/**
 * One permission-sync step, no content fetched: a page of the site's groups with their members, or the ACLs of a
 * page of the documents Lore holds (each read again: space permissions AND the read restrictions of the page and
 * its ancestors). A document gone at the source is left to the content crawl, which retires it.
 */
export const syncConfluencePermissions = (context: KindContext, checkpoint: unknown): Effect.Effect<PermissionPage> =>
  Effect.promise(async (): Promise<PermissionPage> => {
    const read = readConfluenceConfig(context.sourceConfig, context.settings)
    const credential = parseCredential(context.credential)
    const cursor = (checkpoint ?? { phase: "GROUPS", next: null, after: null }) as PermissionCursor
    const empty = { acls: [], groups: [] }
    if (!read.ok) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "INVALID_CONFIG", message: "The Confluence configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No Confluence credential is set", fatal: true }] }
    const client = confluenceClient(read.config, credential, context.settings)
    const fatal = (error: unknown) =>
      error instanceof ConfluenceError && (error.status === 401 || error.code === "ADDRESS_NOT_ALLOWED" || error.code === "SOURCE_UNREACHABLE")
    const failureOf = (error: unknown) => ({
      code: error instanceof ConfluenceError ? error.code : "PERMISSION_SYNC_FAILED",
      message: String((error as Error)?.message ?? error).slice(0, 300),
      fatal: fatal(error)
    })
    try {
      if (cursor.phase === "GROUPS") {
        const page = await client.json<Models.GroupArrayWithLinks>(cursor.next ?? `/rest/api/group?limit=${GROUP_PAGE}`)
        const groups: Array<SourceGroupMembership> = []
        for (const group of page.results) {
          const users = await membersOf(client, group.name)
          groups.push({
            id: group.name,
            displayName: group.name,
            members: { users: users.map((user) => ({ id: userId(user), ...(user.email ? { email: user.email } : {}), ...(user.displayName ? { displayName: user.displayName } : {}) })).filter((u) => u.id !== ""), groups: [] }
          })
        }
        const next = typeof page._links?.next === "string" ? page._links.next : null
        return { acls: [], groups, checkpoint: next ? { ...cursor, next } : { phase: "ACLS", next: null, after: null }, done: false }
      }
      if (!context.documents) return { ...empty, checkpoint: null, done: true }
      const ids = await Effect.runPromise(context.documents.page(cursor.after, ACL_PAGE))
      const reader = aclReader(client)
      const acls: Array<DocumentAcl> = []
      const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
      for (const externalId of ids) {
        const contentId = governingContentId(externalId)
        if (contentId === null) continue
        try {
          const content = await client.json<Models.Content>(`/rest/api/content/${encodeURIComponent(contentId)}?expand=space,ancestors`)
          acls.push({ externalId, acl: await reader.aclOf(content, content.space?.key ?? "") })
        } catch (error) {
          if (error instanceof ConfluenceError && error.status === 404) continue
          if (fatal(error)) throw error
          failures.push({ ...failureOf(error), message: `${externalId}: ${failureOf(error).message}` })
        }
      }
      const done = ids.length < ACL_PAGE
      return { acls, groups: [], failures, checkpoint: done ? null : { ...cursor, after: ids.at(-1)! }, done }
    } catch (error) {
      return { ...empty, checkpoint: cursor, done: true, failures: [failureOf(error)] }
    }
  })
