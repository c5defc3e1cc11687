import type { components } from "@octokit/openapi-types"
import { createHash, createPublicKey, generateKeyPairSync, verify } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

type Schemas = components["schemas"]

/**
 * A loopback GitHub for the GITHUB kind: the App token exchange (an RS256 JWT verified against the app's public key,
 * answered with an installation token), REST (repositories, organizations, collaborators, teams and their members,
 * issues with `since`, sort and page numbers, comments, review comments, git trees and blobs) and GraphQL (SAML
 * identities, verified-domain emails, discussions), all from a model the test edits. Every REST answer is typed with
 * `satisfies` against @octokit/openapi-types (the fields it serves, `Pick`ed from GitHub's own schemas), the GraphQL
 * answers against Lore's declared shapes of them. It pages by Link headers, answers 304 to a matching
 * If-None-Match, can answer one 401 (the client mints a new token) or one secondary rate limit (403, Retry-After: 1),
 * refuses the app once its key is revoked, and counts content requests apart from permission requests.
 */

export interface FakeUser { readonly id: number; readonly login: string; readonly publicEmail?: string }
export interface FakeComment { readonly author: string; readonly body: string; readonly path?: string }
export interface FakeIssue {
  readonly number: number
  title: string
  body: string
  state: "open" | "closed"
  readonly pull: boolean
  merged?: boolean
  readonly author: string
  comments: Array<FakeComment>
  updatedAt: string
  readonly createdAt: string
}
export interface FakeDiscussion { readonly number: number; title: string; body: string; readonly author: string; comments: Array<FakeComment>; updatedAt: string }
export interface FakeRepository {
  readonly id: number
  readonly name: string
  visibility: "public" | "private" | "internal"
  readonly defaultBranch: string
  collaborators: Set<string>
  teams: Set<string>
  readonly issues: Map<number, FakeIssue>
  readonly discussions: Map<number, FakeDiscussion>
  /** Markdown (and other) files on the default branch, path → content. */
  readonly files: Map<string, string>
}
export interface GitHubModel {
  readonly org: string
  readonly appId: number
  readonly installationId: number
  basePermission: "none" | "read" | "write" | "admin"
  readonly users: Map<string, FakeUser>
  readonly members: Set<string>
  readonly samlEmails: Map<string, string>
  readonly verifiedEmails: Map<string, string>
  readonly teams: Map<string, Set<string>>
  readonly repositories: Map<string, FakeRepository>
  /** Seconds after 2026-01-01 of the last change (timestamps are made from it). */
  clock: number
}

/** An RSA key pair for the fake app (its private key is the credential Lore keeps). */
export const makeAppKey = () => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  return { privateKeyPem: privateKey.export({ type: "pkcs1", format: "pem" }).toString(), publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString() }
}

/** The model's next timestamp, as GitHub writes them (seconds, `Z`). */
export const tick = (model: GitHubModel) => new Date(Date.UTC(2026, 0, 1) + ++model.clock * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")

/** GraphQL pages: `after` is the index the page starts at (GitHub's cursors are opaque strings; these are numbers). */
const window = <A>(all: ReadonlyArray<A>, after: number, size: number) => ({
  nodes: all.slice(after, after + size),
  pageInfo: { hasNextPage: after + size < all.length, endCursor: after + size < all.length ? String(after + size) : null }
})

/** `organization.samlIdentityProvider.externalIdentities` (null provider when the organization has no SAML). */
export const samlAnswer = (model: GitHubModel, after: number) => {
  const identities = [...model.samlEmails].map(([login, email]) => ({ samlIdentity: { nameId: email, emails: [{ value: email }] }, user: { login } }))
  return { data: { organization: { samlIdentityProvider: model.samlEmails.size > 0 ? { externalIdentities: window(identities, after, 100) } : null } } }
}

/** `organization.membersWithRole` with each member's verified-domain emails and public email. */
export const verifiedEmailsAnswer = (model: GitHubModel, after: number) => {
  const members = [...model.members].map((login) => ({ login, email: model.users.get(login)?.publicEmail ?? "", organizationVerifiedDomainEmails: model.verifiedEmails.has(login) ? [model.verifiedEmails.get(login)!] : [] }))
  return { data: { organization: { membersWithRole: window(members, after, 100) } } }
}

/** `repository.discussions`, newest first, 25 a page, with their comments. */
export const discussionsAnswer = (model: GitHubModel, name: string, after: number) => {
  const repo = model.repositories.get(name)
  if (!repo) return { data: { repository: null }, errors: [{ type: "NOT_FOUND", message: "Could not resolve to a Repository" }] }
  const all = [...repo.discussions.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)).map((d) => ({
    number: d.number,
    title: d.title,
    body: d.body,
    url: `https://github.example/${model.org}/${repo.name}/discussions/${d.number}`,
    updatedAt: d.updatedAt,
    createdAt: d.updatedAt,
    author: { login: d.author },
    category: { name: "General" },
    comments: { nodes: d.comments.map((c) => ({ body: c.body, createdAt: d.updatedAt, author: { login: c.author } })) }
  }))
  return { data: { repository: { discussions: window(all, after, 25) } } }
}

const PAGE_MAX = 100

export const startGitHub = async (model: GitHubModel, publicKeyPem: string) => {
  const state = {
    revoked: false,
    unauthorizedOnce: false,
    throttleOnce: false,
    tokensIssued: 0,
    answered401: 0,
    answered403Throttled: 0,
    answered304: 0,
    /** Requests for content (issues, comments, discussions, blobs, trees) and for permissions (repositories, members). */
    served: { content: 0, permissions: 0 },
    /** Paths answered with a body larger than any client should read (hostile test). */
    hugePaths: new Set<string>(),
    tokens: new Map<string, number>()
  }
  const users = (logins: Iterable<string>) =>
    [...logins].map((login) => model.users.get(login)).filter((u): u is FakeUser => u !== undefined).map((u) => simpleUser(u))
  const simpleUser = (user: FakeUser) => ({ id: user.id, login: user.login, type: "User", ...(user.publicEmail ? { email: user.publicEmail } : {}) }) satisfies Pick<Schemas["simple-user"], "id" | "login" | "type" | "email">
  const owner = () => ({ id: 1, login: model.org, type: "Organization" }) satisfies Pick<Schemas["simple-user"], "id" | "login" | "type">

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
    res.end(JSON.stringify(body))
  }
  const paged = <A>(req: IncomingMessage, res: ServerResponse, url: URL, all: ReadonlyArray<A>, etagged = false) => {
    const perPage = Math.min(PAGE_MAX, Math.max(1, Number(url.searchParams.get("per_page") ?? 30)))
    const page = Math.max(1, Number(url.searchParams.get("page") ?? 1))
    const slice = all.slice((page - 1) * perPage, page * perPage)
    const headers: Record<string, string> = {}
    if (page * perPage < all.length) {
      const next = new URL(url)
      next.searchParams.set("page", String(page + 1))
      headers.link = `<${next.href}>; rel="next"`
    }
    if (etagged) {
      const etag = `W/"${createHash("sha256").update(JSON.stringify(slice)).digest("hex").slice(0, 32)}"`
      if (req.headers["if-none-match"] === etag) {
        state.answered304++
        res.writeHead(304, { etag })
        res.end()
        return
      }
      headers.etag = etag
    }
    json(res, 200, slice, headers)
  }
  const authorized = (req: IncomingMessage): boolean => {
    const match = /^token (\S+)$/.exec(req.headers.authorization ?? "")
    const expires = match ? state.tokens.get(match[1]!) : undefined
    return expires !== undefined && expires > Date.now() && !state.revoked
  }
  const appJwtValid = (req: IncomingMessage): boolean => {
    const match = /^bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/i.exec(req.headers.authorization ?? "")
    if (!match || state.revoked) return false
    const header = JSON.parse(Buffer.from(match[1]!, "base64url").toString()) as { alg?: string }
    const claims = JSON.parse(Buffer.from(match[2]!, "base64url").toString()) as { iss?: string | number; exp?: number; iat?: number }
    if (header.alg !== "RS256" || String(claims.iss) !== String(model.appId) || (claims.exp ?? 0) * 1000 < Date.now()) return false
    return verify("RSA-SHA256", Buffer.from(`${match[1]}.${match[2]}`), createPublicKey(publicKeyPem), Buffer.from(match[3]!, "base64url"))
  }
  const repositoryOf = (name: string) => {
    const repo = model.repositories.get(name)!
    return {
      id: repo.id,
      name: repo.name,
      full_name: `${model.org}/${repo.name}`,
      private: repo.visibility !== "public",
      visibility: repo.visibility,
      default_branch: repo.defaultBranch,
      html_url: `https://github.example/${model.org}/${repo.name}`,
      owner: owner()
    } satisfies Pick<Schemas["full-repository"], "id" | "name" | "full_name" | "private" | "visibility" | "default_branch" | "html_url"> & { owner: Pick<Schemas["simple-user"], "id" | "login" | "type"> }
  }
  const issueOf = (repo: FakeRepository, issue: FakeIssue) => ({
    id: repo.id * 100_000 + issue.number,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    comments: issue.comments.length,
    user: simpleUser(model.users.get(issue.author)!),
    labels: [],
    assignee: null,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.state === "closed" ? issue.updatedAt : null,
    html_url: `https://github.example/${model.org}/${repo.name}/${issue.pull ? "pull" : "issues"}/${issue.number}`,
    ...(issue.pull ? { pull_request: { url: "", html_url: null, diff_url: null, patch_url: null, merged_at: issue.merged ? issue.updatedAt : null } } : {})
  }) satisfies Pick<Schemas["issue"], "id" | "number" | "title" | "body" | "state" | "comments" | "labels" | "assignee" | "created_at" | "updated_at" | "closed_at" | "html_url" | "pull_request"> & { user: Pick<Schemas["simple-user"], "id" | "login"> }
  const commentOf = (comment: FakeComment, index: number, at: string) => ({
    id: index + 1,
    body: comment.body,
    user: simpleUser(model.users.get(comment.author)!),
    created_at: at,
    ...(comment.path ? { path: comment.path, line: 1 } : {})
  }) satisfies Pick<Schemas["issue-comment"], "id" | "body" | "created_at"> & { user: Pick<Schemas["simple-user"], "id" | "login"> } & Partial<Pick<Schemas["pull-request-review-comment"], "path" | "line">>
  const blobSha = (content: string) => createHash("sha1").update(`blob ${Buffer.byteLength(content)}\0${content}`).digest("hex")

  const graphql = (body: { query?: string; variables?: Record<string, unknown> }) => {
    const query = body.query ?? ""
    const variables = body.variables ?? {}
    const after = typeof variables.after === "string" ? Number(variables.after) : 0
    if (query.includes("samlIdentityProvider")) {
      state.served.permissions++
      return samlAnswer(model, after)
    }
    if (query.includes("membersWithRole")) {
      state.served.permissions++
      return verifiedEmailsAnswer(model, after)
    }
    if (query.includes("discussions")) {
      state.served.content++
      return discussionsAnswer(model, String(variables.name), after)
    }
    return { errors: [{ type: "UNKNOWN", message: "unknown query" }] }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const path = url.pathname
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (state.hugePaths.has(path)) {
      // Declares more than any vendor answer Lore reads, and never sends it.
      res.writeHead(200, { "content-type": "application/json", "content-length": String(64 * 1024 * 1024) })
      res.write("[")
      setTimeout(() => res.destroy(), 200)
      return
    }
    const installation = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path)
    if (installation && req.method === "POST") {
      if (Number(installation[1]) !== model.installationId || !appJwtValid(req)) return json(res, 401, { message: "A JSON web token could not be decoded" })
      const token = `ghs_${createHash("sha256").update(String(Math.random())).digest("hex").slice(0, 36)}`
      state.tokens.set(token, Date.now() + 3600_000)
      state.tokensIssued++
      return json(res, 201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: { issues: "read", contents: "read", metadata: "read" }, repository_selection: "selected" } satisfies Pick<Schemas["installation-token"], "token" | "expires_at" | "permissions" | "repository_selection">)
    }
    if (!authorized(req)) {
      if (process.env.GH_DEBUG) console.log("AUTH", req.method, req.url, req.headers.authorization)
      state.answered401++
      return json(res, 401, { message: "Bad credentials" })
    }
    if (state.unauthorizedOnce) {
      state.unauthorizedOnce = false
      state.answered401++
      // The token in hand stops working (it expired early): the client must mint a new one.
      state.tokens.delete(/^token (\S+)$/.exec(req.headers.authorization ?? "")![1]!)
      return json(res, 401, { message: "Bad credentials" })
    }
    if (state.throttleOnce) {
      state.throttleOnce = false
      state.answered403Throttled++
      return json(res, 403, { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." }, { "retry-after": "1" })
    }
    if (path === "/graphql" && req.method === "POST") {
      const answer = graphql(JSON.parse(Buffer.concat(chunks).toString() || "{}") as { query?: string; variables?: Record<string, unknown> })
      return json(res, 200, answer)
    }
    const org = /^\/orgs\/([^/]+)(\/.*)?$/.exec(path)
    if (org && org[1] === model.org) {
      state.served.permissions++
      const rest = org[2] ?? ""
      if (rest === "") return json(res, 200, { id: 1, login: model.org, default_repository_permission: model.basePermission } satisfies Pick<Schemas["organization-full"], "id" | "login" | "default_repository_permission">)
      if (rest === "/members") return paged(req, res, url, users([...model.members].sort()))
      const team = /^\/teams\/([^/]+)\/members$/.exec(rest)
      if (team && model.teams.has(team[1]!)) return paged(req, res, url, users([...model.teams.get(team[1]!)!].sort()))
      return json(res, 404, { message: "Not Found" })
    }
    const match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path)
    const repo = match && match[1] === model.org ? model.repositories.get(match[2]!) : undefined
    if (!match || !repo) return json(res, 404, { message: "Not Found" })
    const rest = match[3] ?? ""
    if (rest === "") {
      state.served.permissions++
      return json(res, 200, repositoryOf(repo.name))
    }
    if (rest === "/collaborators") {
      state.served.permissions++
      return paged(req, res, url, users([...repo.collaborators].sort()).map((u) => ({ ...u, permissions: { pull: true, triage: false, push: false, maintain: false, admin: false }, role_name: "read" }) satisfies Pick<Schemas["collaborator"], "id" | "login" | "type" | "permissions" | "role_name">))
    }
    if (rest === "/teams") {
      state.served.permissions++
      return paged(req, res, url, [...repo.teams].sort().map((slug, i) => ({ id: i + 1, slug, name: slug, permission: "pull" }) satisfies Pick<Schemas["team"], "id" | "slug" | "name" | "permission">))
    }
    state.served.content++
    if (rest === "/issues") {
      const since = url.searchParams.get("since")
      const sort = url.searchParams.get("sort") ?? "created"
      const asc = url.searchParams.get("direction") === "asc"
      const all = [...repo.issues.values()]
        .filter((issue) => since === null || issue.updatedAt >= since)
        .sort((a, b) => (sort === "updated" ? a.updatedAt.localeCompare(b.updatedAt) || a.number - b.number : a.number - b.number) * (asc ? 1 : -1))
      return paged(req, res, url, all.map((issue) => issueOf(repo, issue)), true)
    }
    const comments = /^\/(issues|pulls)\/(\d+)\/comments$/.exec(rest)
    if (comments) {
      const issue = repo.issues.get(Number(comments[2]))
      if (!issue) return json(res, 404, { message: "Not Found" })
      return paged(req, res, url, issue.comments.map((c, i) => commentOf(c, i, issue.updatedAt)))
    }
    const tree = /^\/git\/trees\/([^/]+)$/.exec(rest)
    if (tree) {
      const entries = [...repo.files].sort(([a], [b]) => a.localeCompare(b)).map(([filePath, content]) => ({ path: filePath, mode: "100644", type: "blob", sha: blobSha(content), size: Buffer.byteLength(content) }) satisfies Schemas["git-tree"]["tree"][number])
      const body = { sha: blobSha(JSON.stringify(entries)), url: "", truncated: false, tree: entries } satisfies Schemas["git-tree"]
      const etag = `W/"${body.sha}"`
      if (req.headers["if-none-match"] === etag) {
        state.answered304++
        res.writeHead(304, { etag })
        return res.end()
      }
      return json(res, 200, body, { etag })
    }
    const blob = /^\/git\/blobs\/([0-9a-f]{40})$/.exec(rest)
    if (blob) {
      const content = [...repo.files.values()].find((c) => blobSha(c) === blob[1])
      if (content === undefined) return json(res, 404, { message: "Not Found" })
      return json(res, 200, { sha: blob[1]!, size: Buffer.byteLength(content), url: "", node_id: "", content: Buffer.from(content).toString("base64"), encoding: "base64" } satisfies Schemas["blob"])
    }
    return json(res, 404, { message: "Not Found" })
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) json(res, 500, { message: String(error) })
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    state,
    baseUrl: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}
