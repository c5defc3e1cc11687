import { Effect } from "effect"
import type { DocumentAcl, KindContext, PermissionPage, SourceGroupMembership } from "../Kind"
import { failureOf, GoogleDriveError, googleDriveClient } from "./Client"
import { parseGoogleDriveCredential, readGoogleDriveConfig } from "./Config"
import { aclOfFile, parseFileExternalId, subjectOf } from "./Drives"
import { membershipOf } from "./Groups"

/**
 * Where a permission sync is: the ACLs of the documents Lore holds (in external-id order), which name the groups and
 * domains; then those groups' members (nested groups found on the way) and those domains' users.
 */
export interface PermissionCursor {
  readonly phase: "ACLS" | "GROUPS"
  readonly after: string | null
  /** Groups and domains named so far, in order of discovery; those before `groupIndex` are done. */
  readonly groups: ReadonlyArray<string>
  readonly groupIndex: number
}

const ACL_PAGE = 50
const GROUPS_PER_STEP = 20
const MAX_GROUPS = 20_000

/**
 * One permission-sync step, no content fetched: the ACLs of a page of the documents Lore holds (each file's
 * permissions read again, as the unit's subject), then the members of every group and the users of every domain
 * those ACLs name. Group membership changes never appear in Drive's change feed: this is where a removal is caught.
 * A document gone at the source is left to the crawl.
 */
export const syncGoogleDrivePermissions = (context: KindContext, checkpoint: unknown): Effect.Effect<PermissionPage> =>
  Effect.promise(async (): Promise<PermissionPage> => {
    const read = readGoogleDriveConfig(context.sourceConfig)
    const key = parseGoogleDriveCredential(context.credential)
    const cursor = (checkpoint ?? { phase: "ACLS", after: null, groups: [], groupIndex: 0 }) as PermissionCursor
    const empty = { acls: [], groups: [] }
    if (!read.ok) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "INVALID_CONFIG", message: "The Google Drive configuration is invalid", fatal: true }] }
    if (!key) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No service-account key is set", fatal: true }] }
    const config = read.config
    const client = googleDriveClient(key, context.settings)
    const known = new Set(cursor.groups)
    const named = [...cursor.groups]
    const discover = (id: string) => {
      if (!known.has(id) && named.length < MAX_GROUPS) {
        known.add(id)
        named.push(id)
      }
    }
    try {
      if (cursor.phase === "ACLS") {
        if (!context.documents) return { ...empty, checkpoint: { ...cursor, phase: "GROUPS" }, done: false }
        const ids = await Effect.runPromise(context.documents.page(cursor.after, ACL_PAGE))
        const acls: Array<DocumentAcl> = []
        const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
        for (const externalId of ids) {
          const file = parseFileExternalId(externalId)
          if (!file) continue
          try {
            const acl = await aclOfFile(client, subjectOf(file.unit, config), file.fileId)
            for (const group of acl.groups) discover(group.id)
            for (const organization of acl.organizations ?? []) discover(organization.id)
            acls.push({ externalId, acl })
          } catch (error) {
            if (error instanceof GoogleDriveError && error.status === 404) continue
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
          checkpoint: more ? { ...cursor, after: ids.at(-1)!, groups: named } : { ...cursor, phase: "GROUPS", after: null, groups: named },
          done: false
        }
      }
      const memberships: Array<SourceGroupMembership> = []
      const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
      const end = Math.min(named.length, cursor.groupIndex + GROUPS_PER_STEP)
      for (let index = cursor.groupIndex; index < end; index++) {
        const id = named[index]!
        try {
          const membership = await membershipOf(client, config.adminSubject, id, discover)
          if (membership) memberships.push(membership)
        } catch (error) {
          const failure = failureOf(error, "PERMISSION_SYNC_FAILED")
          if (failure.fatal) throw error
          // A group Lore cannot read keeps the members it had: the failure is recorded (PARTIAL), nothing widens.
          failures.push({ ...failure, message: `${id.slice(0, 120)}: ${failure.message}` })
        }
      }
      const more = named.length > end
      return { acls: [], groups: memberships, failures, checkpoint: more ? { ...cursor, groups: named, groupIndex: end } : null, done: !more }
    } catch (error) {
      return { ...empty, checkpoint: cursor, done: true, failures: [failureOf(error, "PERMISSION_SYNC_FAILED")] }
    }
  })
