import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, eventually, search, userClient } from "../knowledge/support"
import { startTestServer, type TestServer } from "../support/server"
import { connectionRuns, wordsFound, wordsOnceIngested } from "./scenario"
import { type JiraSiteIssue, type JiraSiteModel, startJiraSite } from "./jira-site"

/**
 * JIRA end to end (issue 31, points 3-4), Cloud, as two users searching through /api/knowledge/search: the initial
 * crawl (JQL search paged by nextPageToken, comments paged past the search's first two, one 401 and one 429
 * recovered from; browse grants from the permission scheme: a group, a project role's group, the reporter, an
 * application role as the organization; security levels as an intersection; a scheme the token may not read →
 * SOURCE_ACL_UNRESOLVED), an issue edited (read again by JQL `updated >=` in the account's time zone), a user removed
 * from a group (gone for them after a permission sync that fetches no content), an issue deleted (retired by the full
 * walk), the credential revoked (reported; nothing becomes more visible).
 */

const AUTH = { email: "admin@example.com", apiToken: "jira-api-token-0123456789" }
const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000)

const issue = (id: string, key: string, summary: string, word: string, extra: Partial<JiraSiteIssue> = {}): JiraSiteIssue => ({
  id, key, projectKey: key.split("-")[0]!, summary, description: `The ${word} ticket.\n\n## Steps\n\nReproduce the ${word} case.`, status: "In Progress",
  assignee: null, reporter: "acc-ann", labels: ["backend"], updated: at(90), securityLevel: null, comments: [], userFields: {}, ...extra
})

describe("the Jira connector", { timeout: 300_000 }, () => {
  let server: TestServer
  let site: Awaited<ReturnType<typeof startJiraSite>>
  let admin: Client
  let ann: Client & { id: string }
  let ben: Client & { id: string }
  const model: JiraSiteModel = {
    users: new Map([
      ["acc-ann", { id: "acc-ann", email: "ann@example.com", displayName: "Ann" }],
      ["acc-ben", { id: "acc-ben", email: "ben@example.com", displayName: "Ben" }],
      ["acc-app", { id: "acc-app", email: "app@example.com", displayName: "Automation", accountType: "app" }]
    ]),
    groups: new Map([["developers", new Set(["acc-ann", "acc-ben"])], ["managers", new Set(["acc-ben"])]]),
    projects: new Map([
      ["ENG", {
        key: "ENG", id: "10000", name: "Engineering", lead: "acc-ann", schemeReadable: true,
        browse: [{ type: "group", parameter: "developers" }, { type: "projectRole", parameter: "10002" }, { type: "reporter" }],
        roles: new Map([["10002", { name: "Reviewers", users: [], groups: ["managers"] }]])
      }],
      ["OPS", { key: "OPS", id: "10001", name: "Operations", lead: "acc-ann", schemeReadable: false, browse: [{ type: "applicationRole" }], roles: new Map() }],
      ["HR", { key: "HR", id: "10002", name: "People", lead: "acc-ann", schemeReadable: true, browse: [{ type: "applicationRole" }], roles: new Map() }]
    ]),
    levels: new Map([
      ["10100", { name: "Ann only", holders: [{ type: "user", parameter: "acc-ann" }] }],
      ["10101", { name: "Managers", holders: [{ type: "group", parameter: "managers" }] }]
    ]),
    issues: new Map()
  }
  const put = (i: JiraSiteIssue) => model.issues.set(i.id, i)
  put(issue("10001", "ENG-1", "Login fails", "zqlogin", {
    comments: [1, 2, 3].map((n) => ({ id: String(900 + n), author: n === 3 ? "acc-ben" : "acc-ann", body: n === 3 ? "Fixed by the zqcommentthree patch." : `Comment ${n}`, created: at(80 - n) }))
  }))
  put(issue("10002", "ENG-2", "Salary export", "zqsecret", { securityLevel: "10100" }))
  put(issue("10003", "ENG-3", "Roadmap", "zqroadmap", { securityLevel: "10101", reporter: "acc-ben" }))
  put(issue("20001", "OPS-1", "Runbook", "zqrunbook"))
  put(issue("30001", "HR-1", "Holidays", "zqholiday"))

  const { run } = connectionRuns(() => admin, "/api/admin/connectors/JIRA/tickets")
  const ALL = ["zqlogin", "zqcommentthree", "zqsecret", "zqroadmap", "zqrunbook", "zqholiday"]
  const config = (extra: Record<string, unknown> = {}) => ({ deployment: "CLOUD", baseUrl: site.baseUrl, projects: ["ENG", "OPS", "HR"], ...extra })

  beforeAll(async () => {
    site = await startJiraSite(model, AUTH)
    server = await startTestServer({ allowedPrivateHosts: [site.host] })
    admin = client(server.url, server.adminToken)
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Tickets" })).body.id
    const spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "tickets", name: "Tickets" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    ann = await userClient(admin.call, server.url, { email: "ann@example.com", departmentId })
    ben = await userClient(admin.call, server.url, { email: "ben@example.com", departmentId })
    const saved = await admin.call("PUT", "/api/admin/connectors/JIRA/tickets", {
      knowledgeSpaceId: spaceId, sourceConfig: config(), identityTrust: "TRUSTED", crawlEnabled: true, permissionSyncIntervalSeconds: 3600
    })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect((await admin.call("PUT", "/api/admin/connectors/JIRA/tickets/credential", { credential: AUTH })).status).toBe(204)
  })
  afterAll(async () => {
    await server?.dispose()
    await site?.close()
  })

  it("refuses a bad configuration naming the field, a private address, and a malformed credential without echoing it", async () => {
    const knowledgeSpaceId = (await admin.call("GET", "/api/admin/connectors/JIRA")).body[0].knowledgeSpaceId
    const bad = await admin.call("PUT", "/api/admin/connectors/JIRA/bad", {
      knowledgeSpaceId, sourceConfig: { deployment: "SERVER", baseUrl: "http://169.254.169.254", projects: ["ENG", "1BAD\""], spaces: ["X"] }
    })
    expect(bad.status).toBe(422)
    expect((bad.body.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(expect.arrayContaining(["sourceConfig.deployment", "sourceConfig.baseUrl", "sourceConfig.projects.1", "sourceConfig.spaces"]))
    const none = await admin.call("PUT", "/api/admin/connectors/JIRA/bad", { knowledgeSpaceId, sourceConfig: { deployment: "CLOUD", baseUrl: site.baseUrl, projects: [] } })
    expect(none.status).toBe(422)
    expect(none.body.errors[0].path).toBe("sourceConfig.projects")
    const secret = "do-not-echo-this-jira-token"
    const credential = await admin.call("PUT", "/api/admin/connectors/JIRA/tickets/credential", { credential: { apiToken: secret } })
    expect(credential.status).toBe(422)
    expect(JSON.stringify(credential.body)).not.toContain(secret)
  })

  it("tests the credential and lists one scope per project, inadmissible where the permission scheme cannot be read", async () => {
    const tested = await admin.call("POST", "/api/admin/connectors/JIRA/tickets/test")
    expect(tested.body).toMatchObject({ authenticated: true, identityName: "bot", canReadContent: true, errorCode: null })
    const scopes = (await admin.call("GET", "/api/admin/connectors/JIRA/tickets/scopes")).body as Array<any>
    expect(scopes.find((s) => s.key === "ENG")).toMatchObject({ displayName: "Engineering", reachable: true, admissible: true, instruction: null })
    expect(scopes.find((s) => s.key === "OPS")).toMatchObject({ reachable: true, admissible: false })
    expect(scopes.find((s) => s.key === "OPS").instruction).toContain("administrator")
  })

  it("crawls issues with comments, browse grants AND security levels, through a 401 and a 429", async () => {
    site.state.unauthorizedOnce = true
    site.state.throttleOnce = true
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsFailed: 0, objectsMaterialized: 5 })
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED", component: "permissions" })
    expect(site.state.answered401).toBeGreaterThanOrEqual(1)
    expect(site.state.answered429).toBe(1)
    // Five issues, two a page: three search pages; ENG-1's third comment read from the comment API.
    expect(site.state.served.searches).toBe(3)
    expect(site.state.served.comments).toBe(2)

    // ENG-2's level admits ann alone; ENG-3's the managers (ben); HR-1 any user of the site; OPS-1 nobody.
    const annReads = ["zqlogin", "zqcommentthree", "zqsecret", "zqholiday"]
    const benReads = ["zqlogin", "zqcommentthree", "zqroadmap", "zqholiday"]
    expect(await wordsOnceIngested(ann, ALL, annReads)).toEqual(annReads)
    expect(await wordsOnceIngested(ben, ALL, benReads)).toEqual(benReads)
    const listed = (await admin.call("GET", "/api/admin/connectors/JIRA/tickets/documents")).body.items as Array<any>
    expect(listed.map((d) => d.externalId).sort()).toEqual(["issue:10001", "issue:10002", "issue:10003", "issue:20001", "issue:30001"])
    const runbook = listed.find((d) => d.externalId === "issue:20001")
    const explained = await admin.call("POST", "/api/admin/access/explain", { userId: ann.id, resourceType: "KNOWLEDGE_ASSET", resourceId: runbook.knowledgeAssetId })
    expect(explained.body).toMatchObject({ state: "DENIED", reasonCode: "SOURCE_ACL_UNRESOLVED" })
    const secret = listed.find((d) => d.externalId === "issue:10002")
    const forBen = await admin.call("POST", "/api/admin/access/explain", { userId: ben.id, resourceType: "KNOWLEDGE_ASSET", resourceId: secret.knowledgeAssetId })
    expect(forBen.body).toMatchObject({ state: "DENIED", reasonCode: "SOURCE_ACL_DENIED" })
    const hits = await search(ann, "zqlogin")
    expect(JSON.stringify(hits)).toContain("ENG-1: Login fails")
  })

  it("reads an edited issue again by JQL updated >= in the account's time zone", async () => {
    const login = model.issues.get("10001")!
    login.description += "\n\nRevised with the zqrevision workaround."
    login.updated = new Date()
    const before = site.state.served.contents
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRotated: 1 })
    expect(site.state.lastJql).toMatch(/^project in \("ENG", "OPS", "HR"\) AND updated >= "\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}" ORDER BY updated ASC$/)
    // Only what changed since the last crawl is listed, not every issue.
    expect(site.state.served.contents - before).toBe(1)
    await eventually(() => wordsFound(ben, ["zqrevision"]), (found) => found.length === 1, "the edit searchable", 60_000)
  })

  it("a user removed from a group loses the issue after the next permission sync, which fetches no content", async () => {
    model.groups.get("managers")!.delete("acc-ben")
    const served = { ...site.state.served }
    const { permissions } = await run("permissions")
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED" })
    expect(site.state.served.searches).toBe(served.searches)
    expect(site.state.served.contents).toBe(served.contents)
    expect(site.state.served.comments).toBe(served.comments)
    expect(await wordsFound(ben, ["zqroadmap", "zqlogin"])).toEqual(["zqlogin"])
    expect(await wordsFound(ann, ["zqsecret", "zqlogin"])).toEqual(["zqsecret", "zqlogin"])
  })

  it("a deleted issue is retired by the full walk", async () => {
    model.issues.delete("30001")
    const knowledgeSpaceId = (await admin.call("GET", "/api/admin/connectors/JIRA")).body[0].knowledgeSpaceId
    expect((await admin.call("PUT", "/api/admin/connectors/JIRA/tickets", { knowledgeSpaceId, sourceConfig: config({ reconcileEveryHours: 0 }), crawlEnabled: true })).status).toBe(200)
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 1 })
    expect(await wordsFound(ann, ["zqholiday"])).toEqual([])
    expect(await wordsFound(ben, ["zqholiday"])).toEqual([])
  })

  it("a revoked credential is reported, and nothing becomes more visible", async () => {
    const before = { ann: await wordsFound(ann, ALL), ben: await wordsFound(ben, ALL) }
    site.state.revoked = true
    model.issues.get("10002")!.securityLevel = null
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect(permissions).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect((await admin.call("POST", "/api/admin/connectors/JIRA/tickets/test")).body).toMatchObject({ authenticated: false, errorCode: "AUTHENTICATION_FAILED" })
    expect(await wordsFound(ann, ALL)).toEqual(before.ann)
    expect(await wordsFound(ben, ALL)).toEqual(before.ben)
  })
})
