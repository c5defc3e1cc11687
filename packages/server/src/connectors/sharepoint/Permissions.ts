import type { DriveItem } from "@microsoft/microsoft-graph-types"
import { Effect } from "effect"
import type { DocumentAcl, KindContext, PermissionPage, SourceGroupMembership } from "../Kind"
import { parseSiteGroupId } from "./Acl"
import { failureOf, SharePointError, sharePointClient } from "./Client"
import { parseSharePointCredential, readSharePointConfig } from "./Config"
import { aclOfItem, parseItemExternalId } from "./Crawl"
import { entraGroupMembers, organizationMembership, siteGroupMembers } from "./Groups"

/**
 * Where a permission sync is: the ACLs of the documents Lore holds (in external-id order), which name the groups;
 * then those groups' members (Entra groups, SharePoint site groups, which may hold Entra groups in turn); then the
 * tenant's member users, the organization-wide principal.
 */
export interface PermissionCursor {
  readonly phase: "ACLS" | "GROUPS" | "ORGANIZATION"
  readonly after: string | null
  /** Groups named so far, in order of discovery; those before `groupIndex` are done. */
  readonly groups: ReadonlyArray<string>
  readonly groupIndex: number
}

const ACL_PAGE = 50
const GROUPS_PER_STEP = 20
const MAX_GROUPS = 20_000

/**
 * One permission-sync step, no content fetched: the ACLs of a page of the documents Lore holds (each item's
 * permissions read again), then the members of every group those ACLs name, then the tenant's member users (the
 * organization-wide principal admits them, never guests). A document gone at the source is left to the crawl.
 */
export const syncSharePointPermissions = (context: KindContext, checkpoint: unknown): Effect.Effect<PermissionPage> =>
  Effect.promise(async (): Promise<PermissionPage> => {
    const read = readSharePointConfig(context.sourceConfig, context.settings)
    const credential = parseSharePointCredential(context.credential)
    const cursor = (checkpoint ?? { phase: "ACLS", after: null, groups: [], groupIndex: 0 }) as PermissionCursor
    const empty = { acls: [], groups: [] }
    if (!read.ok) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "INVALID_CONFIG", message: "The SharePoint configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No SharePoint credential is set", fatal: true }] }
    const config = read.config
    const client = sharePointClient(config, credential, context.settings)
    const known = new Set(cursor.groups)
    const groupsNamed = [...cursor.groups]
    const discover = (group: string) => {
      if (!known.has(group) && groupsNamed.length < MAX_GROUPS) {
        known.add(group)
        groupsNamed.push(group)
      }
    }
    try {
      if (cursor.phase === "ACLS") {
        if (!context.documents) return { ...empty, checkpoint: { ...cursor, phase: "GROUPS" }, done: false }
        const ids = await Effect.runPromise(context.documents.page(cursor.after, ACL_PAGE))
        const acls: Array<DocumentAcl> = []
        const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
        const sites = new Map<string, Promise<string | null>>()
        const siteOfDrive = (driveId: string) => {
          let found = sites.get(driveId)
          if (!found) {
            found = client.graph<DriveItem>(`/v1.0/drives/${encodeURIComponent(driveId)}/root?$select=id,parentReference`).then((root) => root.parentReference?.siteId ?? null)
            sites.set(driveId, found)
          }
          return found
        }
        for (const externalId of ids) {
          const item = parseItemExternalId(externalId)
          if (!item) continue
          try {
            const acl = await aclOfItem(client, item.driveId, item.itemId, config.tenantId, await siteOfDrive(item.driveId))
            for (const group of acl.groups) discover(group.id)
            acls.push({ externalId, acl })
          } catch (error) {
            if (error instanceof SharePointError && error.status === 404) continue
            const failure = failureOf(error, "PERMISSION_SYNC_FAILED")
            if (failure.fatal) throw error
            failures.push({ ...failure, message: `${externalId.slice(0, 120)}: ${failure.message}` })
          }
        }
        const more = ids.length === ACL_PAGE
        return {
          acls,
          groups: [],
          failures,
          checkpoint: more ? { ...cursor, after: ids.at(-1)!, groups: groupsNamed } : { ...cursor, phase: "GROUPS", after: null, groups: groupsNamed },
          done: false
        }
      }
      if (cursor.phase === "GROUPS") {
        const memberships: Array<SourceGroupMembership> = []
        const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
        const end = Math.min(groupsNamed.length, cursor.groupIndex + GROUPS_PER_STEP)
        for (let index = cursor.groupIndex; index < end; index++) {
          const id = groupsNamed[index]!
          const siteGroup = parseSiteGroupId(id)
          try {
            const members = siteGroup
              ? await siteGroupMembers(client, siteGroup.siteId, siteGroup.groupId, config.tenantId, discover)
              : await entraGroupMembers(client, id)
            memberships.push({ id, members })
          } catch (error) {
            const failure = failureOf(error, "PERMISSION_SYNC_FAILED")
            if (failure.fatal) throw error
            // A group Lore cannot read keeps the members it had: the failure is recorded (PARTIAL), nothing widens.
            failures.push({ ...failure, message: `group ${id.slice(0, 120)}: ${failure.message}` })
          }
        }
        const more = groupsNamed.length > end
        return { acls: [], groups: memberships, failures, checkpoint: more ? { ...cursor, groups: groupsNamed, groupIndex: end } : { ...cursor, phase: "ORGANIZATION", groups: [], groupIndex: 0 }, done: false }
      }
      return { acls: [], groups: [await organizationMembership(client, config.tenantId)], checkpoint: null, done: true }
    } catch (error) {
      return { ...empty, checkpoint: cursor, done: true, failures: [failureOf(error, "PERMISSION_SYNC_FAILED")] }
    }
  })

