import type { drive_v3 } from "@googleapis/drive"
import type { admin_directory_v1 } from "@googleapis/admin"
import { Effect } from "effect"
import type { ConnectionTestResult, ConnectorKindModule, Scope } from "./Kind"
import { failureOf, GoogleDriveError, googleDriveClient } from "./google-drive/Client"
import { parseGoogleDriveCredential, readGoogleDriveConfig, readGoogleDriveCredential } from "./google-drive/Config"
import { type CrawlCursor, crawlGoogleDrive } from "./google-drive/Crawl"
import { resolveUnits, subjectOf } from "./google-drive/Drives"
import { syncGoogleDrivePermissions } from "./google-drive/Permissions"

const failedTest = (errorCode: string): ConnectionTestResult =>
  ({ authenticated: false, accountName: null, identityName: null, canReadContent: false, errorCode })

const SHARED_DRIVE_INSTRUCTION =
  "Lore cannot read this shared drive's permissions: add the admin subject to the shared drive as a member (Viewer is enough); until then its documents admit nobody"
const USER_INSTRUCTION =
  "Google refused to act as this user: check the email is a user of the Workspace domain (not suspended) and that domain-wide delegation grants the three scopes (docs/connectors/google-drive.md)"

/**
 * GOOGLE_DRIVE: Google Drive through the Drive API v3 with a service account and domain-wide delegation (a JWT
 * signed with the key, acting as the admin subject for shared drives and the Directory, as each chosen user for their
 * My Drive). Shared drives (chosen, or every one the admin subject is a member of) and chosen users' My Drives, read
 * incrementally by `changes.list` (the start page token per unit as the checkpoint); Docs, Sheets and Slides exported.
 * Permissions from `permissions.list`: users, groups (members and nested groups from the Admin SDK Directory API),
 * domains as the domain's organization-wide principal (the directory's users of it); `anyone` admits nobody more.
 */
export const GoogleDriveKind: ConnectorKindModule = {
  sourceSystem: "GOOGLE_DRIVE",
  displayName: "Google Drive",
  credentialRequirement: "REQUIRED",
  credentialHint: "the service account's key JSON as Google downloads it, with domain-wide delegation of drive.readonly, admin.directory.group.readonly and admin.directory.user.readonly (docs/connectors/google-drive.md)",
  validateConfig: (sourceConfig) => {
    const read = readGoogleDriveConfig(sourceConfig)
    return read.ok ? [] : read.errors
  },
  readCredential: readGoogleDriveCredential,
  testCredentials: (context) =>
    Effect.promise(async () => {
      const read = readGoogleDriveConfig(context.sourceConfig)
      if (!read.ok) return failedTest("INVALID_CONFIG")
      const key = parseGoogleDriveCredential(context.credential)
      if (!key) return failedTest("CREDENTIAL_MISSING")
      const client = googleDriveClient(key, context.settings)
      let identityName: string | null = null
      try {
        // A token as the admin subject, then one call each API the connector needs answers.
        const about = await client.json<drive_v3.Schema$About>("drive", read.config.adminSubject, "/drive/v3/about?fields=user(emailAddress,displayName)")
        identityName = about.user?.emailAddress ?? read.config.adminSubject
      } catch (error) {
        return failedTest(failureOf(error).code)
      }
      const domain = read.config.adminSubject.split("@")[1]!
      let errorCode: string | null = null
      try {
        await client.json<admin_directory_v1.Schema$Users>("admin", read.config.adminSubject, `/admin/directory/v1/users?domain=${encodeURIComponent(domain)}&maxResults=1&projection=basic`)
      } catch (error) {
        errorCode = error instanceof GoogleDriveError && error.status === 403 ? "DIRECTORY_UNREADABLE" : failureOf(error).code
      }
      return { authenticated: true, accountName: key.client_email, identityName, canReadContent: errorCode === null, errorCode }
    }),
  listScopes: (context) =>
    Effect.promise(async (): Promise<ReadonlyArray<Scope>> => {
      const read = readGoogleDriveConfig(context.sourceConfig)
      const key = parseGoogleDriveCredential(context.credential)
      if (!read.ok || !key) return []
      const client = googleDriveClient(key, context.settings)
      let resolved: Awaited<ReturnType<typeof resolveUnits>>
      try {
        resolved = await resolveUnits(client, read.config)
      } catch {
        return []
      }
      const scopes: Array<Scope> = []
      for (const unit of resolved.units) {
        try {
          // A shared drive's id is its root folder's file id: reading its permissions is what each file's needs.
          const path = unit.kind === "shared"
            ? `/drive/v3/files/${encodeURIComponent(unit.id)}/permissions?supportsAllDrives=true&pageSize=1&fields=permissions(id)`
            : "/drive/v3/about?fields=user(emailAddress)"
          await client.json<drive_v3.Schema$PermissionList | drive_v3.Schema$About>("drive", subjectOf(unit, read.config), path)
          scopes.push({ key: unit.kind === "shared" ? unit.id : `user:${unit.id}`, displayName: unit.kind === "shared" ? `Shared drive: ${unit.name}` : unit.name, reachable: true, admissible: true, instruction: null })
        } catch (error) {
          const refused = error instanceof GoogleDriveError && (error.status === 403 || error.status === 401)
          scopes.push({
            key: unit.kind === "shared" ? unit.id : `user:${unit.id}`,
            displayName: unit.kind === "shared" ? `Shared drive: ${unit.name}` : unit.name,
            reachable: unit.kind === "shared",
            admissible: false,
            instruction: refused ? (unit.kind === "shared" ? SHARED_DRIVE_INSTRUCTION : USER_INSTRUCTION) : `Lore could not read it (${failureOf(error).code})`
          })
        }
      }
      for (const failed of resolved.failures) {
        scopes.push({
          key: failed.key.slice(0, 300),
          displayName: failed.key.slice(0, 300),
          reachable: false,
          admissible: false,
          instruction: "The admin subject cannot see this shared drive: check its id and add the admin subject as a member"
        })
      }
      return scopes
    }),
  describeCheckpoint: (checkpoint) => {
    const cursor = checkpoint as CrawlCursor | null
    return {
      cursor: cursor
        ? { phase: cursor.phase, unit: cursor.unitIndex, units: cursor.units?.length ?? 0, unitsWithStartToken: Object.keys(cursor.startTokens ?? {}).length }
        : null,
      inProgress: cursor?.active === true
    }
  },
  crawl: crawlGoogleDrive,
  syncPermissions: syncGoogleDrivePermissions
}
