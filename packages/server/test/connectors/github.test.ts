import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, eventually, search, userClient } from "../knowledge/support"
import { startTestServer, type TestServer } from "../support/server"
import { type FakeRepository, type GitHubModel, makeAppKey, startGitHub, tick } from "./github-site"
import { wordsOnceIngested } from "./scenario"

/**
 * GITHUB end to end (issue 31, points 2 and 4), as two users searching through /api/knowledge/search, against a
 * loopback GitHub reached only through LORE_CONNECTOR_BASE_URLS (github, github-graphql): the initial crawl (an
 * App JWT exchanged for an installation token, one 401 answered with a new token, one secondary rate limit waited
 * out by Retry-After) of a private repository (collaborators, a team, base permission none), an internal one (the
 * organization's members, outside collaborators left out) and a public one (no source ACL); an issue edited (only
 * what changed read, a 304 for what did not); a user removed from a team (gone after a permission sync that fetches
 * no content); an issue and a Markdown file deleted; the key revoked (reported; nothing becomes more visible).
 */

describe("the GitHub connector", { timeout: 300_000 }, () => {
  let server: TestServer
  let github: Awaited<ReturnType<typeof startGitHub>>
  let admin: Client
  let ann: Client & { id: string }
  let ben: Client & { id: string }
  const key = makeAppKey()
  const model: GitHubModel = {
    org: "acme",
    appId: 4242,
    installationId: 77,
    basePermission: "none",
    users: new Map([
      ["ann-gh", { id: 11, login: "ann-gh" }],
      ["ben-gh", { id: 12, login: "ben-gh", publicEmail: "ben@example.com" }],
      ["oscar", { id: 13, login: "oscar" }]
    ]),
    members: new Set(["ann-gh", "ben-gh"]),
    // Ann keeps her GitHub email private: the SAML identity maps her.
    samlEmails: new Map([["ann-gh", "ann@example.com"]]),
    verifiedEmails: new Map(),
    teams: new Map([["platform", new Set(["ben-gh"])]]),
    repositories: new Map(),
    clock: 0
  }
  const repository = (name: string, visibility: FakeRepository["visibility"], id: number): FakeRepository => {
    const repo: FakeRepository = { id, name, visibility, defaultBranch: "main", collaborators: new Set(), teams: new Set(), issues: new Map(), discussions: new Map(), files: new Map() }
    model.repositories.set(name, repo)
    return repo
  }
  const issue = (repo: FakeRepository, number: number, title: string, body: string, extra: { pull?: boolean; comments?: Array<{ author: string; body: string; path?: string }>; state?: "open" | "closed" } = {}) => {
    const at = tick(model)
    repo.issues.set(number, { number, title, body, state: extra.state ?? "open", pull: extra.pull ?? false, author: "ann-gh", comments: extra.comments ?? [], updatedAt: at, createdAt: at })
  }
  const core = repository("core", "private", 1)
  core.collaborators.add("ann-gh")
  // An outside collaborator with no email GitHub shows: listed as a source principal, unmapped.
  core.collaborators.add("oscar")
  core.teams.add("platform")
  issue(core, 1, "Crash on start", "The zqcrash happens at boot.", { comments: [{ author: "ben-gh", body: "A zqcomment with the stack trace." }] })
  issue(core, 2, "Faster startup", "The zqfaster change.", { pull: true, state: "closed", comments: [{ author: "ann-gh", body: "zqreview: cache this", path: "src/boot.ts" }] })
  issue(core, 3, "Old idea", "The zqoldidea nobody wants.", { state: "closed" })
  core.files.set("README.md", "# Core\n\nThe zqreadme of core.")
  core.files.set("docs/design.md", "# Design\n\nThe zqdesign notes.")
  core.files.set("src/boot.ts", "export const zqcode = 1")
  core.discussions.set(4, { number: 4, title: "Roadmap", body: "The zqroadmap discussion.", author: "ben-gh", comments: [{ author: "ann-gh", body: "zqreply agreed" }], updatedAt: tick(model) })
  const handbook = repository("handbook", "internal", 2)
  handbook.collaborators.add("oscar")
  issue(handbook, 1, "Holidays", "The zqholidays list.")
  const site = repository("site", "public", 3)
  issue(site, 1, "Typo", "The zqtypo on the homepage.")
  const ALL = ["zqcrash", "zqcomment", "zqfaster", "zqreview", "zqoldidea", "zqreadme", "zqdesign", "zqcode", "zqroadmap", "zqreply", "zqholidays", "zqtypo"]

  const path = "/api/admin/connectors/GITHUB/acme"
  const activity = async () => (await admin.call("GET", `${path}/activity`)).body
  const attemptsOf = async (component: "content" | "permissions") => ((await activity()).recentAttempts as Array<any>).filter((a) => a.component === component)
  const nextAttempt = async (component: "content" | "permissions", before: number) =>
    (await eventually(() => attemptsOf(component), (list) => list.length > before, `a ${component} attempt`, 120_000))[0]
  const run = async (component?: "content" | "permissions") => {
    const [content, permissions] = [(await attemptsOf("content")).length, (await attemptsOf("permissions")).length]
    const reply = await admin.call("POST", `${path}/crawl${component ? `?component=${component}` : ""}`)
    expect(reply.status, JSON.stringify(reply.body)).toBe(202)
    return {
      content: component === "permissions" ? undefined : await nextAttempt("content", content),
      permissions: component === "content" ? undefined : await nextAttempt("permissions", permissions)
    }
  }
  const words = async (who: Client, candidates: ReadonlyArray<string>) => {
    const found: Array<string> = []
    for (const word of candidates) if ((await search(who, word)).length > 0) found.push(word)
    return found
  }
  const credential = { appId: model.appId, installationId: model.installationId, privateKeyPem: key.privateKeyPem }
  let spaceId = ""
  let connection: { knowledgeSpaceId: string; sourceConfig: Record<string, unknown>; identityTrust: string; crawlEnabled: boolean; permissionSyncIntervalSeconds: number }

  beforeAll(async () => {
    github = await startGitHub(model, key.publicKeyPem)
    server = await startTestServer({ allowedPrivateHosts: [github.host], connectorBaseUrls: { github: github.baseUrl, "github-graphql": `${github.baseUrl}/graphql` } })
    admin = client(server.url, server.adminToken)
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Eng" })).body.id
    spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "code", name: "Code" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    ann = await userClient(admin.call, server.url, { email: "ann@example.com", departmentId })
    ben = await userClient(admin.call, server.url, { email: "ben@example.com", departmentId })
    connection = {
      knowledgeSpaceId: spaceId,
      sourceConfig: { owner: "acme", repositories: ["core", "handbook", "site"], include: ["ISSUES", "PULL_REQUESTS", "DISCUSSIONS", "MARKDOWN"] },
      identityTrust: "TRUSTED",
      crawlEnabled: true,
      permissionSyncIntervalSeconds: 3600
    }
    const saved = await admin.call("PUT", path, connection)
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect((await admin.call("PUT", `${path}/credential`, { credential })).status).toBe(204)
  })
  afterAll(async () => {
    await server?.dispose()
    await github?.close()
  })

  it("refuses a bad configuration naming each field, a private base URL, and a bad credential without echoing it", async () => {
    const bad = await admin.call("PUT", "/api/admin/connectors/GITHUB/bad", {
      knowledgeSpaceId: spaceId,
      sourceConfig: { owner: "-nope-", repositories: ["acme/core"], include: ["ISSUES", "WIKI"], baseUrl: "http://169.254.169.254/api/v3", extra: 1 }
    })
    expect(bad.status).toBe(422)
    const paths = (bad.body.errors as Array<{ path: string }>).map((e) => e.path)
    expect(paths).toEqual(expect.arrayContaining(["sourceConfig.owner", "sourceConfig.repositories.0", "sourceConfig.include.1", "sourceConfig.baseUrl", "sourceConfig.extra"]))
    const badKey = await admin.call("PUT", `${path}/credential`, { credential: { appId: 1, installationId: 2, privateKeyPem: "-----BEGIN PRIVATE KEY-----\nnot-a-key-do-not-echo\n-----END PRIVATE KEY-----" } })
    expect(badKey.status).toBe(422)
    expect(JSON.stringify(badKey.body)).not.toContain("do-not-echo")
    const notNumber = await admin.call("PUT", `${path}/credential`, { credential: { ...credential, appId: "4242" } })
    expect(notNumber.status).toBe(422)
  })

  it("tests the credential and lists one scope per repository", async () => {
    const tested = await admin.call("POST", `${path}/test`)
    expect(tested.body).toMatchObject({ authenticated: true, accountName: "acme", canReadContent: true, errorCode: null })
    const scopes = (await admin.call("GET", `${path}/scopes`)).body as Array<any>
    expect(scopes.map((s) => s.key)).toEqual(["acme/core", "acme/handbook", "acme/site"])
    expect(scopes.every((s) => s.admissible)).toBe(true)
  })

  it("crawls issues, pull requests, discussions and Markdown with their permissions, through a 401 (new token) and a secondary rate limit", async () => {
    github.state.unauthorizedOnce = true
    github.state.throttleOnce = true
    const tokensBefore = github.state.tokensIssued
    const { content, permissions } = await run()
    expect(content, JSON.stringify(content)).toMatchObject({ outcome: "SUCCEEDED", objectsFailed: 0 })
    expect(content.objectsMaterialized).toBe(8)
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED" })
    expect(github.state.answered403Throttled).toBe(1)
    expect(github.state.answered401).toBeGreaterThanOrEqual(1)
    expect(github.state.tokensIssued - tokensBefore).toBeGreaterThanOrEqual(1)
    // core is private: ann (collaborator) and ben (team platform) read it; handbook is internal: the organization's
    // members (oscar is an outside collaborator, not a member); site is public: everyone the space admits.
    const everything = ["zqcrash", "zqcomment", "zqfaster", "zqreview", "zqoldidea", "zqreadme", "zqdesign", "zqroadmap", "zqreply", "zqholidays", "zqtypo"]
    // Ingestion runs behind the crawl: wait until every document is searchable, then compare the whole list.
    expect(await wordsOnceIngested(ann, ALL, everything)).toEqual(everything)
    await eventually(() => words(ben, ALL), (found) => found.length === everything.length, "ben's documents", 60_000)
    const principals = (await admin.call("GET", "/api/admin/source-principals")).body
    const list = (Array.isArray(principals) ? principals : principals.items) as Array<any>
    // Ann's email is private on GitHub: her SAML identity mapped her. Oscar has none: listed, unmapped, not dropped.
    expect(list.find((p) => p.nativePrincipalId === "user:11")).toMatchObject({ observedEmail: "ann@example.com" })
    const oscar = list.find((p) => p.nativePrincipalId === "user:13")
    expect(oscar).toMatchObject({ observedEmail: null, mapping: null })
  })

  it("reads an edited issue again, and nothing else", async () => {
    const crash = core.issues.get(1)!
    crash.body = "The zqcrash happens at boot. Fixed by the zqpatch."
    crash.updatedAt = tick(model)
    const before = { ...github.state.served, answered304: github.state.answered304 }
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRotated: 1 })
    // handbook's and site's issue listings and every tree answered 304.
    expect(github.state.answered304 - before.answered304).toBeGreaterThanOrEqual(4)
    await eventually(() => words(ben, ["zqpatch"]), (found) => found.length === 1, "the edit searchable", 60_000)
  })

  it("a user removed from a team loses the private repository after the next permission sync, which fetches no content", async () => {
    model.teams.get("platform")!.delete("ben-gh")
    const served = github.state.served.content
    const { permissions } = await run("permissions")
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED" })
    expect(github.state.served.content).toBe(served)
    expect(await words(ben, ["zqcrash", "zqreadme", "zqholidays", "zqtypo"])).toEqual(["zqholidays", "zqtypo"])
    expect(await words(ann, ["zqcrash", "zqreadme"])).toEqual(["zqcrash", "zqreadme"])
  })

  it("an issue and a Markdown file deleted at the source are retired", async () => {
    core.issues.delete(3)
    core.files.delete("docs/design.md")
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 2 })
    expect(await words(ann, ["zqoldidea", "zqdesign", "zqcrash"])).toEqual(["zqcrash"])
  })

  it("a repository taken out of sourceConfig has its documents retired at the next crawl", async () => {
    const narrowed = await admin.call("PUT", path, { ...connection, sourceConfig: { ...connection.sourceConfig, repositories: ["core", "handbook"] } })
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200)
    const { content } = await run("content")
    expect(content, JSON.stringify(content)).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 1 })
    expect(await words(ann, ["zqtypo", "zqholidays"])).toEqual(["zqholidays"])
    expect((await admin.call("PUT", path, connection)).status).toBe(200)
  })

  it("a revoked key is reported, and nothing becomes more visible", async () => {
    const before = { ann: await words(ann, ALL), ben: await words(ben, ALL) }
    github.state.revoked = true
    core.visibility = "public"
    const { content, permissions } = await run()
    expect(content, JSON.stringify(content)).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect(permissions).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect((await admin.call("POST", `${path}/test`)).body).toMatchObject({ authenticated: false, errorCode: "AUTHENTICATION_FAILED" })
    expect(await words(ann, ALL)).toEqual(before.ann)
    expect(await words(ben, ALL)).toEqual(before.ben)
  })
})
