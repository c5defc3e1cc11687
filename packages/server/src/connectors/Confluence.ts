import type { Models } from "confluence.js"
import { Effect } from "effect"
import type { ConnectionTestResult, ConnectorKindModule, Scope } from "./Kind"
import { aclReader } from "./confluence/Acl"
import { ConfluenceError, confluenceClient } from "./confluence/Client"
import { parseCredential, readConfluenceConfig, readConfluenceCredential } from "./confluence/Config"
import { crawlConfluence } from "./confluence/Crawl"
import { syncConfluencePermissions } from "./confluence/Permissions"

const failedTest = (errorCode: string): ConnectionTestResult =>
  ({ authenticated: false, accountName: null, identityName: null, canReadContent: false, errorCode })

const SPACE_PERMISSION_INSTRUCTION =
  "Lore cannot read this space's permissions: give the connector's account the space's Admin permission (Space settings > Permissions), or its documents admit nobody"

/**
 * CONFLUENCE: Cloud (email + API token) or Data Center (personal access token), over REST v1 (which both speak),
 * through the shared outbound guard. Chosen spaces' pages and blog posts with their attachments, the body as text
 * with its headings; changes read by CQL `lastmodified`, a full walk every `reconcileEveryHours` (24) to find
 * deletions. Permissions: the space's read permission AND the read restrictions of the page and every ancestor,
 * re-read with the site's groups by the permission sync, which fetches no content.
 */
export const ConfluenceKind: ConnectorKindModule = {
  sourceSystem: "CONFLUENCE",
  displayName: "Confluence (Cloud or Data Center)",
  credentialRequirement: "REQUIRED",
  credentialHint: "Cloud: {\"email\", \"apiToken\"} of the crawling account; Data Center: {\"token\"}, a personal access token",
  validateConfig: (sourceConfig, settings) => {
    const read = readConfluenceConfig(sourceConfig, settings)
    return read.ok ? [] : read.errors
  },
  readCredential: readConfluenceCredential,
  testCredentials: (context) =>
    Effect.promise(async () => {
      const read = readConfluenceConfig(context.sourceConfig, context.settings)
      if (!read.ok) return failedTest("INVALID_CONFIG")
      const credential = parseCredential(context.credential)
      if (!credential) return failedTest("CREDENTIAL_MISSING")
      const client = confluenceClient(read.config, credential, context.settings)
      try {
        const user = await client.json<Models.User>("/rest/api/user/current")
        if (user.type === "anonymous") return failedTest("AUTHENTICATION_FAILED")
        let canReadContent = true
        try {
          await client.json<Models.Space>(`/rest/api/space/${encodeURIComponent(read.config.spaces[0]!)}`)
        } catch {
          canReadContent = false
        }
        return { authenticated: true, accountName: new URL(read.config.baseUrl).host, identityName: user.displayName ?? null, canReadContent, errorCode: canReadContent ? null : "SPACE_UNREADABLE" }
      } catch (error) {
        return failedTest(error instanceof ConfluenceError ? error.code : "SOURCE_UNREACHABLE")
      }
    }),
  listScopes: (context) =>
    Effect.promise(async (): Promise<ReadonlyArray<Scope>> => {
      const read = readConfluenceConfig(context.sourceConfig, context.settings)
      const credential = parseCredential(context.credential)
      if (!read.ok || !credential) return []
      const client = confluenceClient(read.config, credential, context.settings)
      const reader = aclReader(client)
      const scopes: Array<Scope> = []
      for (const key of read.config.spaces) {
        try {
          const space = await client.json<Models.Space>(`/rest/api/space/${encodeURIComponent(key)}`)
          const readers = await reader.spaceReaders(key)
          scopes.push({ key, displayName: space.name ?? key, reachable: true, admissible: readers !== null, instruction: readers === null ? SPACE_PERMISSION_INSTRUCTION : null })
        } catch {
          scopes.push({ key, displayName: key, reachable: false, admissible: false, instruction: "The connector's account cannot see this space: give it the space's View permission (and Admin, so Lore can read who may view it)" })
        }
      }
      return scopes
    }),
  describeCheckpoint: (checkpoint) => {
    const cursor = checkpoint as { active?: boolean; mode?: string; spaceIndex?: number; phase?: string; startedAt?: string; lastFullAt?: string } | null
    return {
      cursor: cursor ? { mode: cursor.mode, phase: cursor.phase, spaceIndex: cursor.spaceIndex, startedAt: cursor.startedAt, lastFullAt: cursor.lastFullAt } : null,
      inProgress: cursor?.active === true
    }
  },
  crawl: crawlConfluence,
  syncPermissions: syncConfluencePermissions
}
