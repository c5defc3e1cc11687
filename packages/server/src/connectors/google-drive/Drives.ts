import type { drive_v3 } from "@googleapis/drive"
import type { NativeAcl } from "../Kind"
import { aclOfPermissions } from "./Acl"
import { GoogleDriveError, type GoogleDriveClient, googlePages, withPageToken } from "./Client"
import type { GoogleDriveConfig } from "./Config"

/** What a crawl walks: a shared drive (read as the admin subject) or a user's My Drive (read as that user). */
export interface DriveUnit {
  readonly kind: "shared" | "user"
  /** The shared drive's id, or the user's email. */
  readonly id: string
  readonly name: string
}

export const unitKey = (unit: Pick<DriveUnit, "kind" | "id">) => `${unit.kind === "shared" ? "d" : "u"}:${unit.id}`
/** Who the service account acts as to read a unit's files. */
export const subjectOf = (unit: Pick<DriveUnit, "kind" | "id">, config: GoogleDriveConfig) => (unit.kind === "shared" ? config.adminSubject : unit.id)

/** A document's external id: its unit and its Drive file id (a file moved to another unit is retired and read again there). */
export const fileExternalId = (unit: Pick<DriveUnit, "kind" | "id">, fileId: string) => `${unitKey(unit)}/${fileId}`
export const parseFileExternalId = (externalId: string): { readonly unit: Pick<DriveUnit, "kind" | "id">; readonly fileId: string } | null => {
  const match = /^(d|u):([^/\s]{1,320})\/([A-Za-z0-9_-]{1,200})$/.exec(externalId)
  return match ? { unit: { kind: match[1] === "d" ? "shared" : "user", id: match[2]! }, fileId: match[3]! } : null
}

/**
 * The units a crawl walks, in a stable order: the chosen shared drives (or every one the admin subject is a member
 * of), then each chosen user's My Drive. A shared drive that cannot be read is a failure beside them.
 */
export const resolveUnits = async (client: GoogleDriveClient, config: GoogleDriveConfig) => {
  const units: Array<DriveUnit> = []
  const failures: Array<{ key: string; error: unknown }> = []
  if (config.sharedDrives.length === 0) {
    const path = "/drive/v3/drives?pageSize=100&fields=nextPageToken,drives(id,name)"
    for await (const page of googlePages((token) => client.json<drive_v3.Schema$DriveList>("drive", config.adminSubject, withPageToken(path, token)))) {
      for (const drive of page.drives ?? []) if (drive.id) units.push({ kind: "shared", id: drive.id, name: drive.name ?? drive.id })
    }
  } else {
    for (const id of config.sharedDrives) {
      try {
        const drive = await client.json<drive_v3.Schema$Drive>("drive", config.adminSubject, `/drive/v3/drives/${encodeURIComponent(id)}?fields=id,name`)
        units.push({ kind: "shared", id, name: drive.name ?? id })
      } catch (error) {
        failures.push({ key: id, error })
      }
    }
  }
  for (const user of config.users) units.push({ kind: "user", id: user, name: `My Drive: ${user}` })
  return { units, failures }
}

const PERMISSION_FIELDS = "nextPageToken,permissions(id,type,role,emailAddress,domain,displayName,deleted,expirationTime,view)"

/** A file's permissions (all pages) as an ACL; unresolved (admits nobody) when Drive will not give them. */
export const aclOfFile = async (client: GoogleDriveClient, subject: string, fileId: string): Promise<NativeAcl> => {
  const permissions: Array<drive_v3.Schema$Permission> = []
  const path = `/drive/v3/files/${encodeURIComponent(fileId)}/permissions?supportsAllDrives=true&pageSize=100&fields=${PERMISSION_FIELDS}`
  try {
    for await (const page of googlePages((token) => client.json<drive_v3.Schema$PermissionList>("drive", subject, withPageToken(path, token)))) {
      permissions.push(...(page.permissions ?? []))
    }
  } catch (error) {
    if (error instanceof GoogleDriveError && (error.status === 403 || error.code === "TOO_LARGE")) return { users: [], groups: [], unresolved: true }
    throw error
  }
  return aclOfPermissions(permissions)
}
