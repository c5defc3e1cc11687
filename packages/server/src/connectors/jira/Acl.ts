import type { Version3Models } from "jira.js"
import type { NativeAcl, NativeGroup, NativeOrganization, NativePrincipals, NativeUser } from "../Kind"
import { type JiraClient, JiraError, type JiraIssue, type JiraUser, jiraUserId } from "./Client"

/** The site's organization-wide principal: everyone with an application role (Jira's "any logged-in user"). */
export const organizationOf = (baseUrl: string): NativeOrganization => ({ id: `jira:${new URL(baseUrl).host}`, displayName: `Everyone with access to ${new URL(baseUrl).host}` })

/**
 * Who a permission grant admits, before the issue is known: named users and groups, the organization, and the holders
 * Jira resolves per issue (its reporter, its assignee, the users or groups in a user-picker or group-picker field).
 */
export interface Grant {
  readonly users: ReadonlyArray<NativeUser>
  readonly groups: ReadonlyArray<NativeGroup>
  readonly organization: boolean
  readonly reporter: boolean
  readonly assignee: boolean
  readonly userFields: ReadonlyArray<string>
  readonly groupFields: ReadonlyArray<string>
}

/** Permission keys that let a user see a project's issues: BROWSE_PROJECTS (Data Center's older schemes say BROWSE). */
const BROWSE = new Set(["BROWSE_PROJECTS", "BROWSE"])
const CUSTOM_FIELD = /^customfield_\d{1,18}$/
const MAX_LEVEL_MEMBER_PAGES = 50

export const nativeUser = (user: JiraUser): NativeUser => ({
  id: jiraUserId(user),
  ...(user.emailAddress ? { email: user.emailAddress } : {}),
  ...(user.displayName ? { displayName: user.displayName } : {})
})

const isUser = (value: unknown): value is JiraUser =>
  typeof value === "object" && value !== null && (typeof (value as JiraUser).accountId === "string" || typeof (value as JiraUser).name === "string")

/** A custom field's users (a single or multi user picker), or its groups (a group picker: objects with a name). */
const usersIn = (value: unknown): ReadonlyArray<NativeUser> =>
  (Array.isArray(value) ? value : [value]).filter(isUser).map(nativeUser).filter((user) => user.id !== "")
const groupsIn = (value: unknown): ReadonlyArray<NativeGroup> =>
  (Array.isArray(value) ? value : [value])
    .filter((group): group is { name: string } => typeof group === "object" && group !== null && typeof (group as { name?: unknown }).name === "string")
    .map((group) => ({ id: group.name, displayName: group.name }))

/** A grant resolved for one issue: the holders Jira names per issue read from its fields. */
export const principalsFor = (grant: Grant, issue: Pick<JiraIssue, "fields">, organization: NativeOrganization): NativePrincipals => {
  const users = [...grant.users]
  const groups = [...grant.groups]
  if (grant.reporter && issue.fields.reporter) users.push(nativeUser(issue.fields.reporter))
  if (grant.assignee && issue.fields.assignee) users.push(nativeUser(issue.fields.assignee))
  for (const field of grant.userFields) users.push(...usersIn(issue.fields[field as `customfield_${string}`]))
  for (const field of grant.groupFields) groups.push(...groupsIn(issue.fields[field as `customfield_${string}`]))
  const unique = <T extends { id: string }>(list: ReadonlyArray<T>) => [...new Map(list.filter((p) => p.id !== "").map((p) => [p.id, p])).values()]
  return { users: unique(users), groups: unique(groups), ...(grant.organization ? { organizations: [organization] } : {}) }
}

/** The custom fields an issue must be read with so its per-issue holders resolve. */
export const fieldsOf = (grants: ReadonlyArray<Grant | null>) =>
  [...new Set(grants.flatMap((grant) => grant ? [...grant.userFields, ...grant.groupFields] : []))].sort()

/**
 * The permissions of the issues Lore reads, cached for one crawl or permission-sync step: each project's browse grant
 * (null when its permission scheme cannot be read: the token is not a Jira administrator's) and each issue security
 * level's members (null when they cannot be read).
 */
export const aclReader = (client: JiraClient, baseUrl: string) => {
  const organization = organizationOf(baseUrl)
  const projects = new Map<string, Promise<Grant | null>>()
  const levels = new Map<string, Promise<Grant | null>>()
  const refused = (error: unknown) => {
    // A revoked credential or an unreachable site stops the step; a refusal (403, 404) makes the ACL unresolved.
    if (error instanceof JiraError && (error.status === 401 || error.status === 0 || error.status >= 500)) throw error
    return null
  }

  /** Holders as a Grant; `role` resolves a projectRole holder's actors (null: unreadable, the whole grant is). */
  const grantOf = async (holders: ReadonlyArray<Version3Models.PermissionHolder & { user?: JiraUser }>, role: (id: string) => Promise<Grant | null>, lead: () => Promise<JiraUser | null>): Promise<Grant | null> => {
    const users: Array<NativeUser> = []
    const groups: Array<NativeGroup> = []
    const userFields: Array<string> = []
    const groupFields: Array<string> = []
    let organizationToo = false
    let reporter = false
    let assignee = false
    for (const holder of holders) {
      const parameter = holder.parameter ?? ""
      switch (holder.type) {
        case "user":
          if (holder.user && jiraUserId(holder.user)) users.push(nativeUser(holder.user))
          else if (parameter) users.push({ id: parameter })
          break
        case "group":
          // Cloud names the group in `parameter` (its id in `value`); Data Center in `parameter`. An empty group is "anyone".
          if (parameter) groups.push({ id: parameter, displayName: parameter })
          else organizationToo = true
          break
        case "projectRole": {
          const actors = await role(parameter || holder.value || "")
          if (actors === null) return null
          users.push(...actors.users)
          groups.push(...actors.groups)
          break
        }
        case "reporter":
        case "reporterWithCreatePermission":
          reporter = true
          break
        case "assignee":
        case "assigneeWithTransitionPermission":
          assignee = true
          break
        case "userCustomField":
          if (CUSTOM_FIELD.test(parameter)) userFields.push(parameter)
          break
        case "groupCustomField":
          if (CUSTOM_FIELD.test(parameter)) groupFields.push(parameter)
          break
        case "projectLead": {
          const found = await lead()
          if (found) users.push(nativeUser(found))
          break
        }
        // Any user with access to the product (Cloud's application roles, Data Center's "any logged in user") and
        // "anyone" (Lore has no anonymous readers): the site's organization-wide principal.
        case "applicationRole":
        case "anyone":
          organizationToo = true
          break
        default:
          // Holders Lore cannot resolve (service desk customers, for instance) admit nobody more.
          break
      }
    }
    return { users, groups, organization: organizationToo, reporter, assignee, userFields, groupFields }
  }

  const roleActors = (projectKey: string) => async (roleId: string): Promise<Grant | null> => {
    if (!/^\d{1,18}$/.test(roleId)) return null
    try {
      const role = await client.json<Version3Models.ProjectRole>(`${client.api}/project/${encodeURIComponent(projectKey)}/role/${roleId}`)
      const users: Array<NativeUser> = []
      const groups: Array<NativeGroup> = []
      for (const actor of role.actors ?? []) {
        if (actor.type === "atlassian-group-role-actor") {
          const name = actor.actorGroup?.name ?? actor.name
          if (name) groups.push({ id: name, displayName: actor.actorGroup?.displayName ?? name })
        } else if (actor.type === "atlassian-user-role-actor") {
          const id = actor.actorUser?.accountId ?? actor.name
          if (id) users.push({ id, ...(actor.displayName ? { displayName: actor.displayName } : {}) })
        }
      }
      return { users, groups, organization: false, reporter: false, assignee: false, userFields: [], groupFields: [] }
    } catch (error) {
      return refused(error)
    }
  }

  const projectLead = (projectKey: string) => async () => {
    try {
      const project = await client.json<Pick<Version3Models.Project, "lead">>(`${client.api}/project/${encodeURIComponent(projectKey)}`)
      return project.lead ?? null
    } catch (error) {
      return refused(error)
    }
  }

  /** A project's browse grant from its permission scheme; null when the scheme cannot be read. */
  const projectGrant = (projectKey: string) => {
    let found = projects.get(projectKey)
    if (!found) {
      found = client.json<Version3Models.PermissionScheme>(`${client.api}/project/${encodeURIComponent(projectKey)}/permissionscheme?expand=permissions,user,group,projectRole,field`).then(
        (scheme) => {
          if (!Array.isArray(scheme.permissions)) return null
          const holders = scheme.permissions.filter((grant) => BROWSE.has(grant.permission ?? "")).flatMap((grant) => grant.holder ? [grant.holder] : [])
          return grantOf(holders, roleActors(projectKey), projectLead(projectKey))
        },
        refused
      )
      projects.set(projectKey, found)
    }
    return found
  }

  /** An issue security level's members as a Grant (Cloud's level-member API); null when they cannot be read. */
  const levelGrant = (levelId: string, projectKey: string) => {
    let found = levels.get(levelId)
    if (!found) {
      found = (async () => {
        if (!/^\d{1,18}$/.test(levelId)) return null
        const holders: Array<Version3Models.PermissionHolder> = []
        let read = 0
        try {
          for (let page = 0; page < MAX_LEVEL_MEMBER_PAGES; page++) {
            const members = await client.json<Version3Models.PageSecurityLevelMember>(`${client.api}/issuesecurityschemes/level/member?levelId=${levelId}&startAt=${read}&maxResults=50&expand=user,group`)
            read += (members.values ?? []).length
            for (const member of members.values ?? []) if (member.holder) holders.push(member.holder)
            if (members.isLast !== false || (members.values ?? []).length === 0) break
          }
        } catch (error) {
          return refused(error)
        }
        return grantOf(holders, roleActors(projectKey), projectLead(projectKey))
      })()
      levels.set(levelId, found)
    }
    return found
  }

  /**
   * An issue's ACL: its project's browse grant AND, when it has a security level, the level's members (an
   * intersection). Anything unreadable makes it unresolved: it admits nobody until a permission sync can read it.
   */
  const aclOf = async (issue: Pick<JiraIssue, "fields">): Promise<NativeAcl> => {
    const unresolved: NativeAcl = { users: [], groups: [], unresolved: true }
    const projectKey = issue.fields.project?.key
    if (!projectKey) return unresolved
    const grant = await projectGrant(projectKey)
    if (grant === null) return unresolved
    const readers = principalsFor(grant, issue, organization)
    const levelId = issue.fields.security?.id
    if (!levelId) return readers
    const level = await levelGrant(levelId, projectKey)
    if (level === null) return unresolved
    return { ...readers, requireAlso: [principalsFor(level, issue, organization)] }
  }

  return { projectGrant, aclOf, organization }
}

export type JiraAclReader = ReturnType<typeof aclReader>
