import type { Permission, User } from "@microsoft/microsoft-graph-types"
import { Effect } from "effect"
import type { ConnectionTestResult, ConnectorKindModule, Scope } from "./Kind"
import { failureOf, SharePointError, sharePointClient } from "./sharepoint/Client"
import { parseSharePointCredential, readSharePointConfig, readSharePointCredential } from "./sharepoint/Config"
import { type CrawlCursor, crawlSharePoint } from "./sharepoint/Crawl"
import { type Page, resolveDrives } from "./sharepoint/Drives"
import { syncSharePointPermissions } from "./sharepoint/Permissions"

const failedTest = (errorCode: string): ConnectionTestResult =>
  ({ authenticated: false, accountName: null, identityName: null, canReadContent: false, errorCode })

const PERMISSIONS_INSTRUCTION =
  "Lore cannot read this library's permissions: grant the app `fullcontrol` on the site (Graph POST /sites/{site-id}/permissions, Sites.Selected consented): listing permissions needs SharePoint's Enumerate Permissions right; until then its documents admit nobody"

/**
 * SHAREPOINT: SharePoint Online and OneDrive for Business through Microsoft Graph, with SharePoint REST for site
 * groups, app-only with a certificate (msal-node). Chosen sites' document libraries (or every site's) and chosen
 * users' OneDrives, read incrementally by Graph delta queries (the deltaLink as the checkpoint, a full walk when it
 * expires). Permissions: each driveItem's permissions as SharePoint inherits them, Entra groups' transitive members,
 * site groups' members, "people in the organization" links as the tenant's organization-wide principal.
 */
export const SharePointKind: ConnectorKindModule = {
  sourceSystem: "SHAREPOINT",
  displayName: "SharePoint Online and OneDrive",
  credentialRequirement: "REQUIRED",
  credentialHint: "{\"certificatePem\", \"privateKeyPem\"}: the app registration's certificate and its private key (docs/connectors/sharepoint.md)",
  validateConfig: (sourceConfig, settings) => {
    const read = readSharePointConfig(sourceConfig, settings)
    return read.ok ? [] : read.errors
  },
  readCredential: readSharePointCredential,
  testCredentials: (context) =>
    Effect.promise(async () => {
      const read = readSharePointConfig(context.sourceConfig, context.settings)
      if (!read.ok) return failedTest("INVALID_CONFIG")
      const credential = parseSharePointCredential(context.credential)
      if (!credential) return failedTest("CREDENTIAL_MISSING")
      const client = sharePointClient(read.config, credential, context.settings)
      try {
        // A token, then one Graph call the least permissions allow (User.Read.All): the app signs in and Graph answers.
        await client.graph<Page<User>>("/v1.0/users?$top=1&$select=id")
      } catch (error) {
        return failedTest(failureOf(error).code)
      }
      let canReadContent = true
      try {
        const { drives, failures } = await resolveDrives(client, { ...read.config, sites: read.config.sites.slice(0, 1), users: read.config.users.slice(0, 1) })
        canReadContent = drives.length > 0 && failures.length === 0
      } catch {
        canReadContent = false
      }
      return { authenticated: true, accountName: read.config.tenantId, identityName: read.config.clientId, canReadContent, errorCode: canReadContent ? null : "SITE_UNREADABLE" }
    }),
  listScopes: (context) =>
    Effect.promise(async (): Promise<ReadonlyArray<Scope>> => {
      const read = readSharePointConfig(context.sourceConfig, context.settings)
      const credential = parseSharePointCredential(context.credential)
      if (!read.ok || !credential) return []
      const client = sharePointClient(read.config, credential, context.settings)
      let resolved: Awaited<ReturnType<typeof resolveDrives>>
      try {
        resolved = await resolveDrives(client, read.config)
      } catch {
        return []
      }
      const scopes: Array<Scope> = []
      for (const drive of resolved.drives) {
        try {
          await client.graph<Page<Permission>>(`/v1.0/drives/${encodeURIComponent(drive.id)}/root/permissions`)
          scopes.push({ key: drive.id, displayName: drive.name, reachable: true, admissible: true, instruction: null })
        } catch (error) {
          const denied = error instanceof SharePointError && error.status === 403
          scopes.push({ key: drive.id, displayName: drive.name, reachable: true, admissible: false, instruction: denied ? PERMISSIONS_INSTRUCTION : `Lore could not read this library's permissions (${failureOf(error).code})` })
        }
      }
      for (const failed of resolved.failures) {
        scopes.push({
          key: failed.key.slice(0, 300),
          displayName: failed.key.slice(0, 300),
          reachable: false,
          admissible: false,
          instruction: "The app cannot see this site or OneDrive: grant it `fullcontrol` on the site (POST /sites/{site-id}/permissions) or check the user's email"
        })
      }
      return scopes
    }),
  describeCheckpoint: (checkpoint) => {
    const cursor = checkpoint as CrawlCursor | null
    return {
      cursor: cursor
        ? { phase: cursor.phase, drive: cursor.driveIndex, drives: cursor.drives?.length ?? 0, startedAt: cursor.startedAt, drivesWithDeltaToken: Object.keys(cursor.deltaLinks ?? {}).length }
        : null,
      inProgress: cursor?.active === true
    }
  },
  crawl: crawlSharePoint,
  syncPermissions: syncSharePointPermissions
}
