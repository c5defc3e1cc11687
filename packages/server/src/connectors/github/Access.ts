import type { RestEndpointMethodTypes } from "@octokit/rest"
import type { NativeAcl, NativeUser, SourceGroupMembership } from "../Kind"
import { type GitHubClient, GitHubError } from "./Client"

export type Repository = RestEndpointMethodTypes["repos"]["get"]["response"]["data"]
type SimpleUser = { readonly id: number; readonly login: string; readonly email?: string | null | undefined; readonly name?: string | null | undefined }

/** The organization's members: its organization-wide principal (outside collaborators are not members). */
export const organizationId = (owner: string) => `org:${owner.toLowerCase()}`
export const teamId = (owner: string, slug: string) => `team:${owner.toLowerCase()}/${slug.toLowerCase()}`
/** Who a private repository admits by name: its direct and outside collaborators and its teams. */
export const repositoryGroupId = (owner: string, repo: string) => `repo:${owner.toLowerCase()}/${repo.toLowerCase()}`

/** Emails of logins an administrator's mapping needs (SAML identities, verified-domain emails), lower-case keys. */
export type EmailDirectory = ReadonlyMap<string, string>

export const nativeUserOf = (user: SimpleUser, emails: EmailDirectory): NativeUser => {
  const email = emails.get(user.login.toLowerCase()) ?? (user.email ? user.email.toLowerCase() : undefined)
  return { id: `user:${user.id}`, displayName: user.login, ...(email ? { email } : {}) }
}

/**
 * Who reads a repository's content. Public: everyone the Lore space admits (no source ACL). Internal: the
 * organization's members (its organization-wide principal; enterprise members of other organizations are left
 * out: narrower, never wider). Private: the repository's group (direct and outside collaborators, teams) and,
 * when the organization's base permission is not `none`, every member of the organization. A visibility Lore does
 * not know admits nobody.
 */
export const repositoryAcl = (repository: Pick<Repository, "visibility" | "private" | "name" | "owner">, basePermission: string | null): NativeAcl | null => {
  const owner = repository.owner.login
  const visibility = repository.visibility ?? (repository.private ? "private" : "public")
  if (visibility === "public" && !repository.private) return null
  const organization = { id: organizationId(owner), displayName: `Members of ${owner}` }
  if (visibility === "internal") return { users: [], groups: [], organizations: [organization] }
  if (visibility === "private") {
    const base = repository.owner.type === "Organization" && basePermission !== null && basePermission !== "none"
    return { users: [], groups: [{ id: repositoryGroupId(owner, repository.name), displayName: `${owner}/${repository.name}` }], ...(base ? { organizations: [organization] } : {}) }
  }
  return { users: [], groups: [], unresolved: true }
}

/** The organization's base permission (`default_repository_permission`), or null when GitHub does not show it to the app (then not applied: narrower). */
export const basePermissionOf = async (client: GitHubClient, repository: Repository): Promise<string | null> => {
  if (repository.owner.type !== "Organization") return null
  try {
    const organization = (await client.rest.orgs.get({ org: repository.owner.login })).data
    return organization.default_repository_permission ?? null
  } catch (error) {
    if (error instanceof GitHubError && (error.status === 403 || error.status === 404)) return null
    throw error
  }
}

const MAX_PAGES = 1000

/** Every page of a REST listing (100 a page), to its end or MAX_PAGES. */
const allPages = async <A>(list: (page: number) => Promise<{ readonly data: ReadonlyArray<A>; readonly headers: { readonly link?: string | undefined } }>): Promise<Array<A>> => {
  const all: Array<A> = []
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await list(page)
    all.push(...answer.data)
    if (!answer.headers.link?.includes('rel="next"')) break
  }
  return all
}

/**
 * The repository's group (users: its direct and outside collaborators; groups: its teams) and each team's members
 * (GitHub lists a team's members with those of its child teams, so nested teams are covered). A user-owned
 * repository's owner is a member too.
 */
export const repositoryGroups = async (client: GitHubClient, repository: Repository, emails: EmailDirectory): Promise<Array<SourceGroupMembership>> => {
  const owner = repository.owner.login
  const repo = repository.name
  const collaborators = await allPages((page) => client.rest.repos.listCollaborators({ owner, repo, affiliation: "direct", per_page: 100, page }))
  const users = collaborators.map((user) => nativeUserOf(user, emails))
  if (repository.owner.type !== "Organization") users.push(nativeUserOf(repository.owner, emails))
  const memberships: Array<SourceGroupMembership> = []
  const teams = repository.owner.type === "Organization" ? await allPages((page) => client.rest.repos.listTeams({ owner, repo, per_page: 100, page })) : []
  for (const team of teams) {
    const members = await allPages((page) => client.rest.teams.listMembersInOrg({ org: owner, team_slug: team.slug, per_page: 100, page }))
    memberships.push({ id: teamId(owner, team.slug), displayName: `${owner}/${team.slug}`, members: { users: members.map((user) => nativeUserOf(user, emails)), groups: [] } })
  }
  memberships.unshift({
    id: repositoryGroupId(owner, repo),
    displayName: `${owner}/${repo}`,
    members: { users, groups: teams.map((team) => ({ id: teamId(owner, team.slug), displayName: `${owner}/${team.slug}` })) }
  })
  return memberships
}

/** The organization-wide principal: the organization's members (outside collaborators are not members). */
export const organizationMembership = async (client: GitHubClient, owner: string, emails: EmailDirectory): Promise<SourceGroupMembership> => {
  const members = await allPages((page) => client.rest.orgs.listMembers({ org: owner, per_page: 100, page }))
  return { id: organizationId(owner), kind: "SOURCE_ORGANIZATION", displayName: `Members of ${owner}`, members: { users: members.map((user) => nativeUserOf(user, emails)), groups: [] } }
}

/** GraphQL: the organization's SAML external identities (who each member is at the identity provider). */
export interface SamlIdentitiesAnswer {
  readonly organization: {
    readonly samlIdentityProvider: {
      readonly externalIdentities: {
        readonly pageInfo: { readonly hasNextPage: boolean; readonly endCursor: string | null }
        readonly nodes: ReadonlyArray<{
          readonly samlIdentity: { readonly nameId: string | null; readonly emails: ReadonlyArray<{ readonly value: string }> | null } | null
          readonly user: { readonly login: string } | null
        }>
      }
    } | null
  } | null
}

/** GraphQL: the organization's members with the emails of its verified domains (and the public one). */
export interface VerifiedEmailsAnswer {
  readonly organization: {
    readonly membersWithRole: {
      readonly pageInfo: { readonly hasNextPage: boolean; readonly endCursor: string | null }
      readonly nodes: ReadonlyArray<{ readonly login: string; readonly email: string; readonly organizationVerifiedDomainEmails: ReadonlyArray<string> }>
    }
  } | null
}

export const SAML_QUERY = `query($org: String!, $after: String) { organization(login: $org) { samlIdentityProvider { externalIdentities(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { samlIdentity { nameId emails { value } } user { login } } } } } }`
export const VERIFIED_QUERY = `query($org: String!, $after: String) { organization(login: $org) { membersWithRole(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { login email organizationVerifiedDomainEmails(login: $org) } } } }`

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}$/

/**
 * Members' emails even when GitHub keeps them private: the SAML identity's email (SSO-enforced organizations), else
 * an email on one of the organization's verified domains, else the public one. What the app may not read is left
 * out: those users stay unmapped source principals an administrator maps, never dropped.
 */
export const emailDirectory = async (client: GitHubClient, owner: string): Promise<Map<string, string>> => {
  const emails = new Map<string, string>()
  const keep = (login: string | undefined, email: string | null | undefined) => {
    if (login && email && EMAIL.test(email) && !emails.has(login.toLowerCase())) emails.set(login.toLowerCase(), email.toLowerCase())
  }
  try {
    let after: string | null = null
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer: SamlIdentitiesAnswer = await client.graphql<SamlIdentitiesAnswer>(SAML_QUERY, { org: owner, after })
      const identities = answer.organization?.samlIdentityProvider?.externalIdentities
      if (!identities) break
      for (const node of identities.nodes) keep(node.user?.login, node.samlIdentity?.emails?.[0]?.value ?? node.samlIdentity?.nameId)
      if (!identities.pageInfo.hasNextPage) break
      after = identities.pageInfo.endCursor
    }
  } catch (error) {
    if (!(error instanceof GitHubError) || error.code === "AUTHENTICATION_FAILED" || error.code === "ADDRESS_NOT_ALLOWED") throw error
  }
  try {
    let after: string | null = null
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer: VerifiedEmailsAnswer = await client.graphql<VerifiedEmailsAnswer>(VERIFIED_QUERY, { org: owner, after })
      const members = answer.organization?.membersWithRole
      if (!members) break
      for (const node of members.nodes) keep(node.login, node.organizationVerifiedDomainEmails[0] ?? (node.email || null))
      if (!members.pageInfo.hasNextPage) break
      after = members.pageInfo.endCursor
    }
  } catch (error) {
    if (!(error instanceof GitHubError) || error.code === "AUTHENTICATION_FAILED" || error.code === "ADDRESS_NOT_ALLOWED") throw error
  }
  return emails
}

/** The repository's ACL and the memberships it names (its group, its teams, and unless already read the organization's members). */
export const repositoryAccess = async (client: GitHubClient, repository: Repository, options: { readonly organization: boolean } = { organization: true }) => {
  const acl = repositoryAcl(repository, await basePermissionOf(client, repository))
  if (acl === null || acl.unresolved) return { acl, groups: [] as Array<SourceGroupMembership> }
  const owner = repository.owner.login
  const emails = repository.owner.type === "Organization" ? await emailDirectory(client, owner) : new Map<string, string>()
  const groups = acl.groups.length > 0 ? await repositoryGroups(client, repository, emails) : []
  if (options.organization && (acl.organizations ?? []).length > 0) groups.push(await organizationMembership(client, owner, emails))
  return { acl, groups }
}
