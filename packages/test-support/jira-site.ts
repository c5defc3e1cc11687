import type { Version2Models, Version3Models } from "jira.js"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A loopback server speaking Jira's REST API from a model the test edits: Cloud's v3 (Basic email + API token, ADF
 * descriptions and comments, /search/jql paged by nextPageToken) or Data Center's v2 (Bearer personal access token,
 * wiki markup, /search paged by startAt). Projects with their permission schemes (BROWSE_PROJECTS holders: users,
 * groups, project roles, reporter, assignee, user-picker fields, application roles), roles with actors, issue
 * security levels with members, groups with members, the site's users. Every answer is typed against jira.js's own
 * models (`satisfies`). It pages at most `pageLimit` items (2 by default), reads JQL `updated >=` in the account's
 * time zone (Asia/Kolkata, UTC+5:30, so a Lore that sent UTC would miss changes), can answer one 401 or one 429
 * (Retry-After: 1) before recovering, refuses everything once the token is revoked, and counts what it served (to
 * tell a permission sync from a crawl).
 */

export interface JiraSiteUser { readonly id: string; readonly email: string; readonly displayName: string; readonly accountType?: "atlassian" | "app" }
export interface JiraHolder { readonly type: string; readonly parameter?: string }
export interface JiraSiteProject {
  readonly key: string
  readonly id: string
  readonly name: string
  readonly lead: string
  browse: Array<JiraHolder>
  schemeReadable: boolean
  readonly roles: Map<string, { name: string; users: Array<string>; groups: Array<string> }>
}
export interface JiraSiteComment { readonly id: string; readonly author: string; readonly body: string; readonly created: Date }
export interface JiraSiteIssue {
  readonly id: string
  readonly key: string
  readonly projectKey: string
  summary: string
  /** Plain text paragraphs (blank-line separated); served as ADF on Cloud and as wiki markup on Data Center. */
  description: string
  status: string
  assignee: string | null
  reporter: string
  labels: Array<string>
  updated: Date
  securityLevel: string | null
  comments: Array<JiraSiteComment>
  /** User-picker custom fields: field id → user ids. */
  userFields: Record<string, Array<string>>
}
export interface JiraSiteModel {
  readonly users: Map<string, JiraSiteUser>
  readonly groups: Map<string, Set<string>>
  readonly projects: Map<string, JiraSiteProject>
  readonly levels: Map<string, { readonly name: string; holders: Array<JiraHolder> }>
  readonly issues: Map<string, JiraSiteIssue>
}

export type JiraSiteAuth = { readonly email: string; readonly apiToken: string } | { readonly token: string }

/** The search's issue as Jira answers it when asked for some fields: the model's Issue with those fields only. */
type SearchedIssue3 = Omit<Version3Models.Issue, "fields"> & { fields: Partial<Version3Models.Fields> }
type SearchedIssue2 = Omit<Version2Models.Issue, "fields"> & { fields: Partial<Version2Models.Fields> }

const TIME_ZONE_OFFSET_MINUTES = 330
const SEARCH_COMMENTS = 2

export const startJiraSite = async (model: JiraSiteModel, auth: JiraSiteAuth, options: { readonly pageLimit?: number } = {}) => {
  const cloud = "email" in auth
  const api = cloud ? "/rest/api/3" : "/rest/api/2"
  const pageLimit = options.pageLimit ?? 2
  const expected = cloud ? `Basic ${Buffer.from(`${auth.email}:${auth.apiToken}`).toString("base64")}` : `Bearer ${auth.token}`
  const state = {
    revoked: false,
    unauthorizedOnce: false,
    throttleOnce: false,
    served: { searches: 0, contents: 0, issues: 0, comments: 0, schemes: 0, roles: 0, levels: 0, members: 0, users: 0 },
    answered401: 0,
    answered429: 0,
    lastJql: ""
  }
  let base = ""

  const userOf = (id: string) => {
    const user = model.users.get(id) ?? { id, email: `${id}@example.com`, displayName: id }
    const shared = { emailAddress: user.email, displayName: user.displayName, active: true, timeZone: "Asia/Kolkata" }
    // Cloud names people by accountId; Data Center by username (`name`) and key, with no accountId.
    return cloud
      ? { self: `${base}${api}/user?accountId=${id}`, accountId: user.id, accountType: user.accountType ?? "atlassian", ...shared } satisfies Version3Models.User
      : { self: `${base}${api}/user?username=${id}`, name: user.id, key: `key-${user.id}`, ...shared } satisfies Version2Models.User
  }

  /** The description as the deployment writes it: ADF paragraphs (Cloud) or wiki markup with a heading (Data Center). */
  const adf = (text: string) => ({
    type: "doc",
    version: 1,
    content: text.split(/\n\n/).map((paragraph) => paragraph.startsWith("## ")
      ? { type: "heading", attrs: { level: 2 }, content: [{ type: "text", text: paragraph.slice(3) }] }
      : { type: "paragraph", content: [{ type: "text", text: paragraph }] })
  }) satisfies Version3Models.Document
  const wiki = (text: string) => text.split(/\n\n/).map((paragraph) => paragraph.startsWith("## ") ? `h2. ${paragraph.slice(3)}` : paragraph).join("\n\n")

  const commentOf = (issue: JiraSiteIssue, comment: JiraSiteComment) => ({
    self: `${base}${api}/issue/${issue.id}/comment/${comment.id}`,
    id: comment.id,
    author: userOf(comment.author),
    created: comment.created.toISOString(),
    updated: comment.created.toISOString()
  })

  const fieldsOf = (issue: JiraSiteIssue, wanted: ReadonlySet<string>) => {
    const project = model.projects.get(issue.projectKey)!
    const comments = issue.comments.slice(0, SEARCH_COMMENTS)
    const all = {
      summary: issue.summary,
      status: { id: "1", name: issue.status, self: `${base}${api}/status/1` },
      assignee: issue.assignee ? userOf(issue.assignee) : null,
      reporter: userOf(issue.reporter),
      labels: issue.labels,
      updated: issue.updated.toISOString().replace("Z", "+0000"),
      project: { key: project.key, id: project.id, name: project.name },
      security: issue.securityLevel ? { id: issue.securityLevel, name: model.levels.get(issue.securityLevel)?.name ?? "", self: `${base}${api}/securitylevel/${issue.securityLevel}` } : null,
      comment: { comments: [] as Array<ReturnType<typeof commentOf>>, self: `${base}${api}/issue/${issue.id}/comment`, maxResults: SEARCH_COMMENTS, total: issue.comments.length, startAt: 0 },
      ...Object.fromEntries(Object.entries(issue.userFields).map(([field, ids]) => [field, ids.map(userOf)]))
    }
    const picked: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(all)) if (wanted.has(key)) picked[key] = value
    if (wanted.has("description")) picked.description = cloud ? adf(issue.description) : wiki(issue.description)
    if (wanted.has("comment")) {
      picked.comment = { ...all.comment, comments: comments.map((c) => cloud ? { ...commentOf(issue, c), body: adf(c.body) } : { ...commentOf(issue, c), body: wiki(c.body) }) }
    }
    return picked
  }

  const issueJson = (issue: JiraSiteIssue, wanted: ReadonlySet<string>) => {
    const shape = { expand: "", id: issue.id, self: `${base}${api}/issue/${issue.id}`, key: issue.key }
    return cloud
      ? { ...shape, fields: fieldsOf(issue, wanted) as Partial<Version3Models.Fields> } satisfies SearchedIssue3
      : { ...shape, fields: fieldsOf(issue, wanted) as Partial<Version2Models.Fields> } satisfies SearchedIssue2
  }

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }
  const errors = (res: ServerResponse, status: number, message: string) => send(res, status, { errorMessages: [message], errors: {} })

  /** The JQL Lore sends: `project in ("A", "B") [AND updated >= "yyyy/MM/dd HH:mm"] ORDER BY updated ASC`. */
  const matching = (jql: string) => {
    const projects = /project in \(([^)]*)\)/.exec(jql)?.[1]?.split(",").map((key) => key.trim().replace(/^"|"$/g, "")) ?? []
    const since = /updated >= "(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2})"/.exec(jql)
    const sinceTime = since ? Date.UTC(+since[1]!, +since[2]! - 1, +since[3]!, +since[4]!, +since[5]!) - TIME_ZONE_OFFSET_MINUTES * 60_000 : -Infinity
    for (const key of projects) if (!model.projects.has(key)) return null
    return [...model.issues.values()]
      .filter((issue) => projects.includes(issue.projectKey) && issue.updated.getTime() >= sinceTime)
      .sort((a, b) => a.updated.getTime() - b.updated.getTime() || Number(a.id) - Number(b.id))
  }

  const holderJson = (holder: JiraHolder) => ({
    type: holder.type,
    ...(holder.parameter !== undefined ? { parameter: holder.parameter, value: holder.type === "group" ? `gid-${holder.parameter}` : holder.parameter } : {}),
    ...(holder.type === "user" && holder.parameter ? { user: userOf(holder.parameter) } : {})
  }) satisfies Version3Models.PermissionHolder

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base)
    if (state.revoked || req.headers.authorization !== expected) {
      state.answered401++
      return errors(res, 401, "Unauthorized")
    }
    if (state.unauthorizedOnce) {
      state.unauthorizedOnce = false
      state.answered401++
      return errors(res, 401, "Unauthorized")
    }
    if (state.throttleOnce) {
      state.throttleOnce = false
      state.answered429++
      return send(res, 429, { errorMessages: ["Rate limited"], errors: {} }, { "retry-after": "1" })
    }
    const path = url.pathname
    const wanted = new Set((url.searchParams.get("fields") ?? "").split(",").filter(Boolean))
    const start = Number(url.searchParams.get("startAt") ?? 0)
    const limit = Math.min(pageLimit, Number(url.searchParams.get("maxResults") ?? pageLimit))
    let match: RegExpExecArray | null
    if (path === `${api}/myself`) return send(res, 200, userOf("bot"))
    if ((cloud && path === `${api}/search/jql`) || (!cloud && path === `${api}/search`)) {
      state.served.searches++
      const jql = url.searchParams.get("jql") ?? ""
      state.lastJql = jql
      const all = matching(jql)
      if (!all) return errors(res, 400, "The value does not exist for the field 'project'.")
      const offset = cloud ? Number(Buffer.from(url.searchParams.get("nextPageToken") ?? "", "base64url").toString() || 0) : start
      const issues = all.slice(offset, offset + limit)
      state.served.contents += issues.length
      if (cloud) {
        const next = offset + limit < all.length ? Buffer.from(String(offset + limit)).toString("base64url") : undefined
        return send(res, 200, { issues: issues.map((issue) => issueJson(issue, wanted) as SearchedIssue3), ...(next ? { nextPageToken: next } : {}) } satisfies Omit<Version3Models.SearchAndReconcileResults, "issues"> & { issues: Array<SearchedIssue3> })
      }
      return send(res, 200, { expand: "", startAt: offset, maxResults: limit, total: all.length, issues: issues.map((issue) => issueJson(issue, wanted) as SearchedIssue2) } satisfies Omit<Version2Models.SearchResults, "issues"> & { issues: Array<SearchedIssue2> })
    }
    if ((match = new RegExp(`^${api}/issue/(\\d+)/comment$`).exec(path))) {
      state.served.comments++
      const issue = model.issues.get(match[1]!)
      if (!issue) return errors(res, 404, "Issue does not exist or you do not have permission to see it.")
      const comments = issue.comments.slice(start, start + limit).map((c) => ({ ...commentOf(issue, c), body: cloud ? adf(c.body) : wiki(c.body) }))
      return send(res, 200, { startAt: start, maxResults: limit, total: issue.comments.length, comments } satisfies Version3Models.PageOfComments | Version2Models.PageOfComments)
    }
    if ((match = new RegExp(`^${api}/issue/(\\d+)$`).exec(path))) {
      state.served.issues++
      if (wanted.has("description") || wanted.has("comment") || wanted.size === 0) state.served.contents++
      const issue = model.issues.get(match[1]!)
      return issue ? send(res, 200, issueJson(issue, wanted)) : errors(res, 404, "Issue does not exist or you do not have permission to see it.")
    }
    if ((match = new RegExp(`^${api}/project/([^/]+)/permissionscheme$`).exec(path))) {
      state.served.schemes++
      const project = model.projects.get(decodeURIComponent(match[1]!))
      if (!project) return errors(res, 404, "No project could be found")
      if (!project.schemeReadable) return errors(res, 403, "You do not have permission to view this project's permission scheme.")
      const grants = [
        ...project.browse.map((holder, i) => ({ id: 10_000 + i, self: `${base}${api}/permissionscheme/0/permission/${10_000 + i}`, holder: holderJson(holder), permission: "BROWSE_PROJECTS" })),
        // Other permissions name other holders: only BROWSE_PROJECTS decides who sees issues.
        { id: 20_000, self: `${base}${api}/permissionscheme/0/permission/20000`, holder: holderJson({ type: "group", parameter: "jira-administrators-only" }), permission: "ADMINISTER_PROJECTS" }
      ] satisfies Array<Version3Models.PermissionGrant>
      return send(res, 200, { expand: "permissions,user,group,projectRole,field", id: 0, self: `${base}${api}/permissionscheme/0`, name: `${project.key} scheme`, permissions: grants } satisfies Version3Models.PermissionScheme)
    }
    if ((match = new RegExp(`^${api}/project/([^/]+)/role/(\\d+)$`).exec(path))) {
      state.served.roles++
      const project = model.projects.get(decodeURIComponent(match[1]!))
      const role = project?.roles.get(match[2]!)
      if (!project || !role) return errors(res, 404, "No role")
      const actors = [
        ...role.users.map((id, i) => ({ id: i + 1, displayName: model.users.get(id)?.displayName ?? id, type: "atlassian-user-role-actor", ...(cloud ? { actorUser: { accountId: id } } : { name: id }) })),
        ...role.groups.map((name, i) => ({ id: 100 + i, displayName: name, type: "atlassian-group-role-actor", name, actorGroup: { name, displayName: name, groupId: `gid-${name}` } }))
      ] satisfies Array<Version3Models.RoleActor>
      return send(res, 200, { self: `${base}${api}/project/${project.key}/role/${match[2]}`, name: role.name, id: Number(match[2]), actors } satisfies Version3Models.ProjectRole)
    }
    if ((match = new RegExp(`^${api}/project/([^/]+)$`).exec(path))) {
      const project = model.projects.get(decodeURIComponent(match[1]!))
      if (!project) return errors(res, 404, "No project could be found")
      return send(res, 200, { key: project.key, id: project.id, name: project.name, lead: userOf(project.lead), self: `${base}${api}/project/${project.id}` } satisfies Pick<Version3Models.Project | Version2Models.Project, "key" | "id" | "name" | "lead" | "self">)
    }
    if (path === `${api}/issuesecurityschemes/level/member`) {
      state.served.levels++
      const level = model.levels.get(url.searchParams.get("levelId") ?? "")
      if (!level) return errors(res, 404, "No level")
      const values = level.holders.slice(start, start + limit).map((holder, i) => ({ id: String(start + i), issueSecurityLevelId: url.searchParams.get("levelId")!, issueSecuritySchemeId: "1", holder: holderJson(holder) }))
      return send(res, 200, { startAt: start, maxResults: limit, total: level.holders.length, isLast: start + limit >= level.holders.length, values } satisfies Version3Models.PageSecurityLevelMember)
    }
    if (path === `${api}/group/member`) {
      state.served.members++
      const members = model.groups.get(url.searchParams.get("groupname") ?? "")
      if (!members) return errors(res, 404, "No group")
      const values = [...members].sort().slice(start, start + limit).map(userOf)
      return send(res, 200, { startAt: start, maxResults: limit, total: members.size, isLast: start + limit >= members.size, values } satisfies Version3Models.PageUserDetails)
    }
    if ((cloud && path === `${api}/users/search`) || (!cloud && path === `${api}/user/search`)) {
      state.served.users++
      const all = [...model.users.keys()].sort().map(userOf)
      return send(res, 200, all.slice(start, start + limit) satisfies Array<Version3Models.User | Version2Models.User>)
    }
    return errors(res, 404, `No route ${path}`)
  }

  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  base = `http://127.0.0.1:${port}`
  return {
    host: `127.0.0.1:${port}`,
    baseUrl: base,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
