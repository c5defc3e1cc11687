import { Effect } from "effect"
import type { DocumentAcl, KnownDocuments, NativeAcl, PermissionPage, SourceGroupMembership } from "./Kind"

/**
 * Where a permission sync that walks what Lore holds is: the ACLs of the documents Lore holds (in external-id
 * order), which name the groups; then those groups' members (nested groups found on the way); then, for a kind
 * that has one, its organization-wide principal.
 */
export interface PermissionCursor {
  readonly phase: "ACLS" | "GROUPS" | "ORGANIZATION"
  readonly after: string | null
  /** Groups named so far, in order of discovery; those before `groupIndex` are done. */
  readonly groups: ReadonlyArray<string>
  readonly groupIndex: number
}

type Failure = { readonly code: string; readonly message: string; readonly fatal?: boolean }

const ACL_PAGE = 50
const GROUPS_PER_STEP = 20
const MAX_GROUPS = 20_000

/** What a kind reads at the source; the walk does the paging, the discovery of groups and the failures. */
export interface PermissionSource {
  /** A held document's ACL read again; undefined when the id is not this kind's or the item is gone (404). */
  readonly aclOf: (externalId: string) => Promise<NativeAcl | undefined>
  /** The groups (and groups of a kind's own, such as Drive's domains) an ACL names. */
  readonly groupsOf: (acl: NativeAcl) => ReadonlyArray<string>
  /** A group's members, calling `discover` for the nested groups found; nothing when there is nothing to apply. */
  readonly membersOf: (id: string, discover: (id: string) => void) => Promise<SourceGroupMembership | null | undefined>
  readonly failureOf: (error: unknown) => Failure
  /** How a group is named in a failure's message (at most ~120 characters of its id). */
  readonly groupLabel: (id: string) => string
  /** The organization-wide principal, read after the groups, for a kind that has one. */
  readonly organization?: () => Promise<SourceGroupMembership>
}

/**
 * One step of a permission sync, no content fetched: a page of the held documents' ACLs, then a batch of the named
 * groups' members, then the organization. A group's membership changes rarely reach a vendor's change feed: this walk
 * is where a removal is caught. A document gone at the source is left to the crawl; a group Lore cannot read keeps
 * the members it had (the failure is recorded, PARTIAL: nothing widens); a fatal failure ends the sync where it is.
 */
export const walkPermissions = async (documents: KnownDocuments | undefined, checkpoint: unknown, source: PermissionSource): Promise<PermissionPage> => {
  const cursor = (checkpoint ?? { phase: "ACLS", after: null, groups: [], groupIndex: 0 }) as PermissionCursor
  const known = new Set(cursor.groups)
  const named = [...cursor.groups]
  const discover = (id: string) => {
    if (!known.has(id) && named.length < MAX_GROUPS) {
      known.add(id)
      named.push(id)
    }
  }
  const failures: Array<Failure> = []
  const recorded = (error: unknown, label: string) => {
    const failure = source.failureOf(error)
    if (failure.fatal) throw error
    failures.push({ ...failure, message: `${label}: ${failure.message}` })
  }
  try {
    if (cursor.phase === "ACLS") {
      if (!documents) return { acls: [], groups: [], checkpoint: { ...cursor, phase: "GROUPS" }, done: false }
      const ids = await Effect.runPromise(documents.page(cursor.after, ACL_PAGE))
      const acls: Array<DocumentAcl> = []
      for (const externalId of ids) {
        try {
          const acl = await source.aclOf(externalId)
          if (acl === undefined) continue
          for (const group of source.groupsOf(acl)) discover(group)
          acls.push({ externalId, acl })
        } catch (error) {
          recorded(error, externalId.slice(0, 120))
        }
      }
      const more = ids.length === ACL_PAGE
      const checkpoint = more ? { ...cursor, after: ids.at(-1)!, groups: named } : { ...cursor, phase: "GROUPS" as const, after: null, groups: named }
      return { acls, groups: [], failures, checkpoint, done: false }
    }
    if (cursor.phase === "GROUPS") {
      const memberships: Array<SourceGroupMembership> = []
      const end = Math.min(named.length, cursor.groupIndex + GROUPS_PER_STEP)
      for (let index = cursor.groupIndex; index < end; index++) {
        const id = named[index]!
        try {
          const membership = await source.membersOf(id, discover)
          if (membership) memberships.push(membership)
        } catch (error) {
          recorded(error, source.groupLabel(id))
        }
      }
      if (named.length > end) return { acls: [], groups: memberships, failures, checkpoint: { ...cursor, groups: named, groupIndex: end }, done: false }
      if (!source.organization) return { acls: [], groups: memberships, failures, checkpoint: null, done: true }
      return { acls: [], groups: memberships, failures, checkpoint: { ...cursor, phase: "ORGANIZATION", groups: [], groupIndex: 0 }, done: false }
    }
    return { acls: [], groups: source.organization ? [await source.organization()] : [], checkpoint: null, done: true }
  } catch (error) {
    return { acls: [], groups: [], checkpoint: cursor, done: true, failures: [source.failureOf(error)] }
  }
}
