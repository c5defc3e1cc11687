import { Effect } from "effect"
import { repositoryAcl } from "./github/Access"
import { failureOf, githubClient, GitHubError } from "./github/Client"
import { parseGitHubCredential, readGitHubConfig, readGitHubCredential } from "./github/Config"
import { type CrawlCursor, crawlGitHub } from "./github/Crawl"
import { syncGitHubPermissions } from "./github/Permissions"
import type { ConnectionTestResult, ConnectorKindModule, Scope } from "./Kind"

const failedTest = (errorCode: string): ConnectionTestResult =>
  ({ authenticated: false, accountName: null, identityName: null, canReadContent: false, errorCode })

const MEMBERS_INSTRUCTION =
  "Lore cannot read who may see this repository: give the GitHub App the `Members: read` organization permission (and `Metadata: read` on the repository), or use a token that may list its collaborators and teams; until then its content admits nobody"

/**
 * GITHUB: chosen repositories of an organization (or user) on github.com or GitHub Enterprise Server, through a
 * GitHub App installation (or a fine-grained token) with Octokit over the outbound guard. Issues with their
 * comments and pull requests with their review comments (REST, `since` and ETags), discussions (GraphQL), Markdown
 * files on the default branch (git trees and blobs). Permissions: public repositories carry no source ACL, internal
 * ones admit the organization's members, private ones their collaborators, teams and the base permission.
 */
export const GitHubKind: ConnectorKindModule = {
  sourceSystem: "GITHUB",
  displayName: "GitHub",
  credentialRequirement: "REQUIRED",
  credentialHint: "{\"appId\", \"installationId\", \"privateKeyPem\"} of a GitHub App installed on the repositories, or {\"token\"}: a fine-grained token (docs/connectors/github.md)",
  validateConfig: (sourceConfig, settings) => {
    const read = readGitHubConfig(sourceConfig, settings)
    return read.ok ? [] : read.errors
  },
  readCredential: readGitHubCredential,
  testCredentials: (context) =>
    Effect.promise(async () => {
      const read = readGitHubConfig(context.sourceConfig, context.settings)
      if (!read.ok) return failedTest("INVALID_CONFIG")
      const credential = parseGitHubCredential(context.credential)
      if (!credential) return failedTest("CREDENTIAL_MISSING")
      const client = githubClient(read.config, credential, context.settings)
      const owner = read.config.owner
      const repo = read.config.repositories[0]!
      try {
        await client.rest.repos.get({ owner, repo })
      } catch (error) {
        if (!(error instanceof GitHubError && error.status === 404)) return failedTest(failureOf(error).code)
        return { authenticated: true, accountName: owner, identityName: credential.kind === "APP" ? `app ${credential.appId}` : "token", canReadContent: false, errorCode: "REPOSITORY_UNREADABLE" }
      }
      let canReadContent = true
      try {
        await client.rest.issues.listForRepo({ owner, repo, per_page: 1 })
      } catch {
        canReadContent = false
      }
      return { authenticated: true, accountName: owner, identityName: credential.kind === "APP" ? `app ${credential.appId}` : "token", canReadContent, errorCode: canReadContent ? null : "REPOSITORY_UNREADABLE" }
    }),
  listScopes: (context) =>
    Effect.promise(async (): Promise<ReadonlyArray<Scope>> => {
      const read = readGitHubConfig(context.sourceConfig, context.settings)
      const credential = parseGitHubCredential(context.credential)
      if (!read.ok || !credential) return []
      const client = githubClient(read.config, credential, context.settings)
      const owner = read.config.owner
      const scopes: Array<Scope> = []
      for (const repo of read.config.repositories) {
        const key = `${owner}/${repo}`
        try {
          const repository = (await client.rest.repos.get({ owner, repo })).data
          const acl = repositoryAcl(repository, null)
          if (acl !== null && acl.groups.length > 0) await client.rest.repos.listCollaborators({ owner, repo, affiliation: "direct", per_page: 1 })
          if (acl !== null && (acl.organizations ?? []).length > 0) await client.rest.orgs.listMembers({ org: owner, per_page: 1 })
          scopes.push({ key, displayName: `${key} (${repository.visibility ?? (repository.private ? "private" : "public")})`, reachable: true, admissible: true, instruction: null })
        } catch (error) {
          const failure = failureOf(error)
          if (error instanceof GitHubError && error.status === 404) {
            scopes.push({ key, displayName: key, reachable: false, admissible: false, instruction: "The app cannot see this repository: install it on the repository (the installation's repository access) or check its name" })
          } else if (error instanceof GitHubError && error.status === 403) {
            scopes.push({ key, displayName: key, reachable: true, admissible: false, instruction: MEMBERS_INSTRUCTION })
          } else {
            if (failure.fatal) return []
            scopes.push({ key, displayName: key, reachable: false, admissible: false, instruction: `Lore could not read this repository (${failure.code})` })
          }
        }
      }
      return scopes
    }),
  describeCheckpoint: (checkpoint) => {
    const cursor = checkpoint as CrawlCursor | null
    return {
      cursor: cursor ? { repository: cursor.repoIndex, phase: cursor.phase, page: cursor.page, startedAt: cursor.startedAt, repositoriesSeen: Object.keys(cursor.repos ?? {}).length } : null,
      inProgress: cursor?.active === true
    }
  },
  crawl: crawlGitHub,
  syncPermissions: syncGitHubPermissions
}
