import type { DriveItem } from "@microsoft/microsoft-graph-types"
import { Effect } from "effect"
import type { KindContext, PermissionPage } from "../Kind"
import { walkPermissions } from "../PermissionWalk"
import { parseSiteGroupId } from "./Acl"
import { failureOf, SharePointError, sharePointClient } from "./Client"
import { parseSharePointCredential, readSharePointConfig } from "./Config"
import { aclOfItem, parseItemExternalId } from "./Crawl"
import { entraGroupMembers, organizationMembership, siteGroupMembers } from "./Groups"

/**
 * One permission-sync step (connectors/PermissionWalk.ts), no content fetched: each held item's permissions read
 * again, then the members of every group those ACLs name (Entra groups, SharePoint site groups, which may hold Entra
 * groups in turn), then the tenant's member users (the organization-wide principal admits them, never guests).
 */
export const syncSharePointPermissions = (context: KindContext, checkpoint: unknown): Effect.Effect<PermissionPage> =>
  Effect.promise(async (): Promise<PermissionPage> => {
    const read = readSharePointConfig(context.sourceConfig, context.settings)
    const credential = parseSharePointCredential(context.credential)
    const empty = { acls: [], groups: [], checkpoint: checkpoint ?? null, done: true }
    if (!read.ok) return { ...empty, failures: [{ code: "INVALID_CONFIG", message: "The SharePoint configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, failures: [{ code: "CREDENTIAL_MISSING", message: "No SharePoint credential is set", fatal: true }] }
    const config = read.config
    const client = sharePointClient(config, credential, context.settings)
    // A drive's site, read once per step (its site groups' ids carry it).
    const sites = new Map<string, Promise<string | null>>()
    const siteOfDrive = (driveId: string) => {
      let found = sites.get(driveId)
      if (!found) {
        found = client.graph<DriveItem>(`/v1.0/drives/${encodeURIComponent(driveId)}/root?$select=id,parentReference`).then((root) => root.parentReference?.siteId ?? null)
        sites.set(driveId, found)
      }
      return found
    }
    return walkPermissions(context.documents, checkpoint, {
      aclOf: async (externalId) => {
        const item = parseItemExternalId(externalId)
        if (!item) return undefined
        try {
          return await aclOfItem(client, item.driveId, item.itemId, config.tenantId, await siteOfDrive(item.driveId))
        } catch (error) {
          if (error instanceof SharePointError && error.status === 404) return undefined
          throw error
        }
      },
      groupsOf: (acl) => acl.groups.map((group) => group.id),
      membersOf: async (id, discover) => {
        const siteGroup = parseSiteGroupId(id)
        const members = siteGroup
          ? await siteGroupMembers(client, siteGroup.siteId, siteGroup.groupId, config.tenantId, discover)
          : await entraGroupMembers(client, id)
        return { id, members }
      },
      failureOf: (error) => failureOf(error, "PERMISSION_SYNC_FAILED"),
      groupLabel: (id) => `group ${id.slice(0, 120)}`,
      organization: () => organizationMembership(client, config.tenantId)
    })
  })
