import { Effect } from "effect"
import type { DocumentAcl, KindContext, NativeAcl, PermissionPage } from "../Kind"
import { basePermissionOf, emailDirectory, organizationMembership, type Repository, repositoryAcl, repositoryGroups } from "./Access"
import { failureOf, type GitHubClient, githubClient, GitHubError } from "./Client"
import { parseGitHubCredential, readGitHubConfig } from "./Config"

/** Where a permission sync is: the documents Lore holds (their repositories' ACLs), then each repository's group, then the organization. */
export interface PermissionCursor {
  readonly phase: "ACLS" | "GROUPS" | "ORGANIZATION"
  readonly after: string | null
  readonly repoIndex: number
  /** Whether a repository's ACL names the organization's members (internal, or private with a base permission). */
  readonly organizationNamed: boolean
}

const ACL_PAGE = 200

type Access = { readonly repository: Repository; readonly acl: NativeAcl | null } | { readonly missing: true }

const accessOf = async (client: GitHubClient, owner: string, repo: string): Promise<Access> => {
  try {
    const repository = (await client.rest.repos.get({ owner, repo })).data
    return { repository, acl: repositoryAcl(repository, await basePermissionOf(client, repository)) }
  } catch (error) {
    if (error instanceof GitHubError && error.status === 404) return { missing: true }
    throw error
  }
}

/**
 * One permission-sync step, no content fetched: the documents Lore holds take their repository's ACL as GitHub
 * now says (visibility, base permission: one repository read per step, not per document); then each repository's
 * group (collaborators, teams) and its teams' members; then the organization's members. A repository gone (404)
 * leaves its documents to the crawl; a group Lore cannot read keeps the members it had (PARTIAL, nothing widens).
 */
export const syncGitHubPermissions = (context: KindContext, checkpoint: unknown): Effect.Effect<PermissionPage> =>
  Effect.promise(async (): Promise<PermissionPage> => {
    const read = readGitHubConfig(context.sourceConfig, context.settings)
    const credential = parseGitHubCredential(context.credential)
    const cursor = (checkpoint ?? { phase: "ACLS", after: null, repoIndex: 0, organizationNamed: false }) as PermissionCursor
    const empty = { acls: [], groups: [] }
    if (!read.ok) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "INVALID_CONFIG", message: "The GitHub configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No GitHub credential is set", fatal: true }] }
    const config = read.config
    const client = githubClient(config, credential, context.settings)
    const owner = config.owner
    try {
      if (cursor.phase === "ACLS") {
        if (!context.documents) return { ...empty, checkpoint: { ...cursor, phase: "GROUPS" }, done: false }
        const ids = await Effect.runPromise(context.documents.page(cursor.after, ACL_PAGE))
        const repositories = new Map<string, Promise<Access>>()
        const acls: Array<DocumentAcl> = []
        let organizationNamed = cursor.organizationNamed
        for (const externalId of ids) {
          const [idOwner, repo] = externalId.split("/")
          if (idOwner !== owner || !repo || !config.repositories.includes(repo)) continue
          let found = repositories.get(repo)
          if (!found) {
            found = accessOf(client, owner, repo)
            repositories.set(repo, found)
          }
          const access = await found
          if ("missing" in access) continue
          if ((access.acl?.organizations ?? []).length > 0) organizationNamed = true
          acls.push({ externalId, acl: access.acl })
        }
        const more = ids.length === ACL_PAGE
        return { acls, groups: [], checkpoint: more ? { ...cursor, after: ids.at(-1)!, organizationNamed } : { ...cursor, phase: "GROUPS", after: null, organizationNamed }, done: false }
      }
      if (cursor.phase === "GROUPS") {
        const repo = config.repositories[cursor.repoIndex]
        if (repo === undefined) return { ...empty, checkpoint: { ...cursor, phase: "ORGANIZATION" }, done: false }
        const following = { ...cursor, repoIndex: cursor.repoIndex + 1 }
        try {
          const access = await accessOf(client, owner, repo)
          if ("missing" in access || access.acl === null || access.acl.groups.length === 0) return { ...empty, checkpoint: following, done: false }
          const emails = access.repository.owner.type === "Organization" ? await emailDirectory(client, owner) : new Map<string, string>()
          const organizationNamed = cursor.organizationNamed || (access.acl.organizations ?? []).length > 0
          return { acls: [], groups: await repositoryGroups(client, access.repository, emails), checkpoint: { ...following, organizationNamed }, done: false }
        } catch (error) {
          const failure = failureOf(error, "PERMISSION_SYNC_FAILED")
          if (failure.fatal) throw error
          return { ...empty, failures: [{ ...failure, message: `${owner}/${repo}: ${failure.message}` }], checkpoint: following, done: false }
        }
      }
      if (!cursor.organizationNamed) return { ...empty, checkpoint: null, done: true }
      return { acls: [], groups: [await organizationMembership(client, owner, await emailDirectory(client, owner))], checkpoint: null, done: true }
    } catch (error) {
      return { ...empty, checkpoint: cursor, done: true, failures: [failureOf(error, "PERMISSION_SYNC_FAILED")] }
    }
  })
