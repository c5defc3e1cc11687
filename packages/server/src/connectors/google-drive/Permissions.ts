import { Effect } from "effect"
import type { KindContext, PermissionPage } from "../Kind"
import { walkPermissions } from "../PermissionWalk"
import { failureOf, GoogleDriveError, googleDriveClient } from "./Client"
import { parseGoogleDriveCredential, readGoogleDriveConfig } from "./Config"
import { aclOfFile, parseFileExternalId, subjectOf } from "./Drives"
import { membershipOf } from "./Groups"

/**
 * One permission-sync step (connectors/PermissionWalk.ts), no content fetched: each held file's permissions read
 * again as the unit's subject, then the members of every group and the users of every domain those ACLs name. Group
 * membership changes never appear in Drive's change feed: this is where a removal is caught.
 */
export const syncGoogleDrivePermissions = (context: KindContext, checkpoint: unknown): Effect.Effect<PermissionPage> =>
  Effect.promise(async (): Promise<PermissionPage> => {
    const read = readGoogleDriveConfig(context.sourceConfig)
    const key = parseGoogleDriveCredential(context.credential)
    const empty = { acls: [], groups: [], checkpoint: checkpoint ?? null, done: true }
    if (!read.ok) return { ...empty, failures: [{ code: "INVALID_CONFIG", message: "The Google Drive configuration is invalid", fatal: true }] }
    if (!key) return { ...empty, failures: [{ code: "CREDENTIAL_MISSING", message: "No service-account key is set", fatal: true }] }
    const config = read.config
    const client = googleDriveClient(key, context.settings)
    return walkPermissions(context.documents, checkpoint, {
      aclOf: async (externalId) => {
        const file = parseFileExternalId(externalId)
        if (!file) return undefined
        try {
          return await aclOfFile(client, subjectOf(file.unit, config), file.fileId)
        } catch (error) {
          if (error instanceof GoogleDriveError && error.status === 404) return undefined
          throw error
        }
      },
      groupsOf: (acl) => [...acl.groups.map((group) => group.id), ...(acl.organizations ?? []).map((organization) => organization.id)],
      membersOf: (id, discover) => membershipOf(client, config.adminSubject, id, discover),
      failureOf: (error) => failureOf(error, "PERMISSION_SYNC_FAILED"),
      groupLabel: (id) => id.slice(0, 120)
    })
  })
