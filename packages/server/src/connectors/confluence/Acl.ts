import type { Models } from "confluence.js"
import type { NativeAcl, NativePrincipals, NativeUser } from "../Kind"
import { type ConfluenceClient, ConfluenceError } from "./Client"

/** A Confluence user's native id: Cloud's accountId, Data Center's userKey (stable across renames). */
export const userId = (user: Pick<Models.User, "accountId" | "userKey" | "username">) => user.accountId || user.userKey || user.username || ""

const nativeUser = (user: Models.User): NativeUser => ({
  id: userId(user),
  ...(user.email ? { email: user.email } : {}),
  ...(user.displayName ? { displayName: user.displayName } : {})
})

/** Groups are named by their name: restrictions and the group API of both deployments name them so. */
const principalsOf = (users: ReadonlyArray<Models.User>, groups: ReadonlyArray<Models.Group>): NativePrincipals => ({
  users: users.map(nativeUser).filter((user) => user.id !== ""),
  groups: groups.map((group) => ({ id: group.name, displayName: group.name }))
})

/**
 * The permissions of the content Lore reads, cached for one crawl or permission-sync step: who may view each space
 * (its `read` space permissions; null when the account may not read them) and each page's read restriction
 * ("none" when the page has none; null when it could not be read).
 */
export const aclReader = (client: ConfluenceClient) => {
  const spaces = new Map<string, Promise<NativePrincipals | null>>()
  const restrictions = new Map<string, Promise<NativePrincipals | "none" | null>>()

  const spaceReaders = (spaceKey: string) => {
    let found = spaces.get(spaceKey)
    if (!found) {
      found = client.json<Models.Space>(`/rest/api/space/${encodeURIComponent(spaceKey)}?expand=permissions`).then(
        (space) => {
          // Without the space-admin permission Confluence leaves `permissions` out: Lore then cannot say who reads.
          if (!Array.isArray(space.permissions)) return null
          const read = space.permissions.filter((p) => p.operation?.operation === "read" && p.operation?.targetType === "space")
          return principalsOf(read.flatMap((p) => p.subjects?.user?.results ?? []), read.flatMap((p) => p.subjects?.group?.results ?? []))
        },
        (error) => {
          if (error instanceof ConfluenceError && error.status === 401) throw error
          return null
        }
      )
      spaces.set(spaceKey, found)
    }
    return found
  }

  const readRestriction = (contentId: string) => {
    let found = restrictions.get(contentId)
    if (!found) {
      found = client.json<Models.ContentRestriction>(`/rest/api/content/${encodeURIComponent(contentId)}/restriction/byOperation/read?expand=restrictions.user,restrictions.group`).then(
        (restriction) => {
          const users = restriction.restrictions?.user?.results ?? []
          const groups = restriction.restrictions?.group?.results ?? []
          return users.length === 0 && groups.length === 0 ? "none" as const : principalsOf(users, groups)
        },
        (error) => {
          if (error instanceof ConfluenceError && error.status === 401) throw error
          return null
        }
      )
      restrictions.set(contentId, found)
    }
    return found
  }

  /**
   * A page's or blog post's ACL: the space's readers, AND its own read restriction, AND each restricted ancestor's
   * (Confluence's view restrictions inherit down the page tree). Anything unreadable makes it unresolved: it admits
   * nobody until a permission sync can read it. Anonymous access is not honoured (Lore has no anonymous readers).
   */
  const aclOf = async (content: Pick<Models.Content, "id" | "space" | "ancestors">, spaceKey: string): Promise<NativeAcl> => {
    const unresolved: NativeAcl = { users: [], groups: [], unresolved: true }
    const space = await spaceReaders(content.space?.key ?? spaceKey)
    if (space === null) return unresolved
    const chain = [content.id, ...(content.ancestors ?? []).map((ancestor) => ancestor.id)]
    const found = await Promise.all(chain.map(readRestriction))
    if (found.some((r) => r === null)) return unresolved
    const requireAlso = found.filter((r): r is NativePrincipals => r !== "none" && r !== null)
    return { ...space, ...(requireAlso.length > 0 ? { requireAlso } : {}) }
  }

  return { spaceReaders, aclOf }
}
