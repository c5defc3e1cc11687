import type { Version3Models } from "jira.js"
import { Effect } from "effect"
import type { ConnectionTestResult, ConnectorKindModule, Scope } from "./Kind"
import { aclReader } from "./jira/Acl"
import { JiraError, jiraClient } from "./jira/Client"
import { parseJiraCredential, readJiraConfig, readJiraCredential } from "./jira/Config"
import { crawlJira } from "./jira/Crawl"
import { syncJiraPermissions } from "./jira/Permissions"

const failedTest = (errorCode: string): ConnectionTestResult =>
  ({ authenticated: false, accountName: null, identityName: null, canReadContent: false, errorCode })

const SCHEME_INSTRUCTION =
  "Lore cannot read this project's permission scheme: connect with a Jira administrator's token (Administer Jira), or give the account Administer projects on this project; until then its issues admit nobody"

/**
 * JIRA: Cloud (email + API token, REST v3) or Data Center (personal access token, REST v2), through the shared
 * outbound guard. Chosen projects' issues, one document each (key and summary, status, people, labels, description
 * and comments as text, a link to /browse/KEY); changes read by JQL `updated >=`, a full walk every
 * `reconcileEveryHours` (24) to find deletions. Permissions: the project's BROWSE_PROJECTS grants AND the issue's
 * security level, re-read with the groups they name by the permission sync, which fetches no content.
 */
export const JiraKind: ConnectorKindModule = {
  sourceSystem: "JIRA",
  displayName: "Jira (Cloud or Data Center)",
  credentialRequirement: "REQUIRED",
  credentialHint: "Cloud: {\"email\", \"apiToken\"} of a Jira administrator's account; Data Center: {\"token\"}, an administrator's personal access token (permission schemes are readable by administrators only)",
  validateConfig: (sourceConfig, settings) => {
    const read = readJiraConfig(sourceConfig, settings)
    return read.ok ? [] : read.errors
  },
  readCredential: readJiraCredential,
  testCredentials: (context) =>
    Effect.promise(async () => {
      const read = readJiraConfig(context.sourceConfig, context.settings)
      if (!read.ok) return failedTest("INVALID_CONFIG")
      const credential = parseJiraCredential(context.credential)
      if (!credential) return failedTest("CREDENTIAL_MISSING")
      const client = jiraClient(read.config, credential, context.settings)
      try {
        const user = await client.json<Pick<Version3Models.User, "displayName" | "name">>(`${client.api}/myself`)
        let canReadContent = true
        try {
          await client.json<Pick<Version3Models.Project, "key">>(`${client.api}/project/${encodeURIComponent(read.config.projects[0]!)}`)
        } catch {
          canReadContent = false
        }
        return { authenticated: true, accountName: new URL(read.config.baseUrl).host, identityName: user.displayName ?? user.name ?? null, canReadContent, errorCode: canReadContent ? null : "PROJECT_UNREADABLE" }
      } catch (error) {
        return failedTest(error instanceof JiraError ? error.code : "SOURCE_UNREACHABLE")
      }
    }),
  listScopes: (context) =>
    Effect.promise(async (): Promise<ReadonlyArray<Scope>> => {
      const read = readJiraConfig(context.sourceConfig, context.settings)
      const credential = parseJiraCredential(context.credential)
      if (!read.ok || !credential) return []
      const client = jiraClient(read.config, credential, context.settings)
      const reader = aclReader(client, read.config.baseUrl)
      const scopes: Array<Scope> = []
      for (const key of read.config.projects) {
        try {
          const project = await client.json<Pick<Version3Models.Project, "key" | "name">>(`${client.api}/project/${encodeURIComponent(key)}`)
          const grant = await reader.projectGrant(key)
          scopes.push({ key, displayName: project.name ?? key, reachable: true, admissible: grant !== null, instruction: grant === null ? SCHEME_INSTRUCTION : null })
        } catch {
          scopes.push({ key, displayName: key, reachable: false, admissible: false, instruction: "The connector's account cannot see this project: give it the project's Browse projects permission (and Administer Jira, so Lore can read who may browse it)" })
        }
      }
      return scopes
    }),
  describeCheckpoint: (checkpoint) => {
    const cursor = checkpoint as { active?: boolean; mode?: string; phase?: string; startedAt?: string; lastFullAt?: string } | null
    return {
      cursor: cursor ? { mode: cursor.mode, phase: cursor.phase, startedAt: cursor.startedAt, lastFullAt: cursor.lastFullAt } : null,
      inProgress: cursor?.active === true
    }
  },
  crawl: crawlJira,
  syncPermissions: syncJiraPermissions
}
