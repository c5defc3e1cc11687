import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, eventually, userClient } from "../knowledge/support"
import { startTestServer, type TestServer } from "../support/server"
import { connectionRuns, wordsFound, wordsOnceIngested } from "./scenario"
import { type DrivePermission, makeServiceAccountKey, startWorkspace, type WorkspaceFile, type WorkspaceModel } from "./google-drive-site"

/**
 * GOOGLE_DRIVE end to end (issue 30, points 8, 10-11), as two users searching through /api/knowledge/search, against a
 * loopback Google Workspace reached only through LORE_CONNECTOR_BASE_URLS (google-drive, google-admin, google-token):
 * the initial crawl (a service account's RS256 assertion with domain-wide delegation, as the admin subject and as a
 * user for their My Drive; paging by nextPageToken; one 401 answered with a new token; one 403 rateLimitExceeded
 * waited out by Retry-After; a Doc exported as Word, a Sheet as CSV, a Slides deck as text; a video and a Form skipped
 * and counted; nested groups from the Directory; a domain permission as the domain's organization-wide principal; an
 * `anyone` permission admitting nobody more), a document edited (only the change feed read), a user removed from a
 * group (gone for them after a permission sync that fetches no content), a document removed (a change), a start page
 * token Drive refuses (a full listing that retires what it did not see again), and the key deleted (reported; nothing
 * becomes more visible).
 */

const DOMAIN = "example.com"
const ADMIN = "admin@example.com"
const ENG = "0AEngineeringDriveXYZ"
const HR = "0AHumanResourcesXYZ"

describe("the Google Drive connector", { timeout: 300_000 }, () => {
  let server: TestServer
  let workspace: Awaited<ReturnType<typeof startWorkspace>>
  let admin: Client
  let ann: Client & { id: string }
  let ben: Client & { id: string }
  const account = makeServiceAccountKey()
  const model: WorkspaceModel = {
    domain: DOMAIN,
    adminSubject: ADMIN,
    users: new Map([[ADMIN, { name: "Admin" }], ["ann@example.com", { name: "Ann" }], ["ben@example.com", { name: "Ben" }]]),
    groups: new Map([
      // readers holds ann and, nested, leads (ben).
      ["readers@example.com", [{ type: "USER" as const, email: "ann@example.com" }, { type: "GROUP" as const, email: "leads@example.com" }]],
      ["leads@example.com", [{ type: "USER" as const, email: "ben@example.com" }]]
    ]),
    sharedDrives: new Map([[ENG, { name: "Engineering", permissionsReadable: true }], [HR, { name: "HR", permissionsReadable: false }]]),
    files: new Map(),
    seq: 0
  }
  const put = (id: string, where: { driveId?: string; owner?: string }, name: string, mimeType: string, content: string, permissions: Array<DrivePermission>) =>
    model.files.set(id, { id, ...where, name, mimeType, content, changed: ++model.seq, removed: false, permissions } satisfies WorkspaceFile)
  const readers: DrivePermission = { type: "group", email: "readers@example.com" }
  const eng = { driveId: ENG }
  put("f-handbook", eng, "Handbook", "application/vnd.google-apps.document", "The zqhandbook explains the release process.", [readers])
  put("f-roadmap", eng, "Roadmap.md", "text/markdown", "# Roadmap\n\nThe zqroadmap for next year.", [{ type: "group", email: "leads@example.com" }])
  put("f-salary", eng, "Salary.txt", "text/plain", "The zqsalary bands for engineers.", [{ type: "user", email: "ann@example.com" }])
  put("f-news", eng, "News.txt", "text/plain", "The zqnews of the week.", [{ type: "domain", domain: DOMAIN }])
  put("f-secret", eng, "Secret.txt", "text/plain", "The zqsecret anyone with the link may read.", [{ type: "anyone" }])
  put("f-budget", eng, "Budget", "application/vnd.google-apps.spreadsheet", "item,amount\nzqbudget,100\n", [{ type: "user", email: "ben@example.com" }])
  put("f-deck", eng, "Deck", "application/vnd.google-apps.presentation", "The zqdeck slides for the all hands.", [readers])
  put("f-movie", eng, "Movie.mp4", "video/mp4", "not a document", [readers])
  put("f-form", eng, "Survey", "application/vnd.google-apps.form", "not exportable", [readers])
  put("f-policy", { driveId: HR }, "Policy.txt", "text/plain", "The zqpolicy for leave.", [{ type: "domain", domain: DOMAIN }])
  put("f-notes", { owner: "ann@example.com" }, "Notes.txt", "text/plain", "The zqnotes Ann keeps.", [{ type: "user", email: "ann@example.com" }])
  const ALL = ["zqhandbook", "zqroadmap", "zqsalary", "zqnews", "zqsecret", "zqbudget", "zqdeck", "zqpolicy", "zqnotes"]

  const path = "/api/admin/connectors/GOOGLE_DRIVE/workspace"
  const { activity, run } = connectionRuns(() => admin, path)
  const words = wordsFound
  let spaceId = ""

  beforeAll(async () => {
    workspace = await startWorkspace(model, account)
    server = await startTestServer({ allowedPrivateHosts: [workspace.host], connectorBaseUrls: workspace.connectorBaseUrls })
    admin = client(server.url, server.adminToken)
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Docs" })).body.id
    spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "docs", name: "Docs" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    ann = await userClient(admin.call, server.url, { email: "ann@example.com", departmentId })
    ben = await userClient(admin.call, server.url, { email: "ben@example.com", departmentId })
    const saved = await admin.call("PUT", path, { knowledgeSpaceId: spaceId, sourceConfig: { adminSubject: ADMIN, users: ["ann@example.com"] }, identityTrust: "TRUSTED", crawlEnabled: true, permissionSyncIntervalSeconds: 3600 })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect((await admin.call("PUT", `${path}/credential`, { credential: account.key })).status).toBe(204)
  })
  afterAll(async () => {
    await server?.dispose()
    await workspace?.close()
  })

  it("refuses a bad configuration naming each field, and a key that is not a service account's without echoing it", async () => {
    const bad = await admin.call("PUT", "/api/admin/connectors/GOOGLE_DRIVE/bad", {
      knowledgeSpaceId: spaceId,
      sourceConfig: { adminSubject: "not an email", sharedDrives: ["../../etc/passwd"], users: ["nobody"], extra: 1 }
    })
    expect(bad.status).toBe(422)
    const paths = (bad.body.errors as Array<{ path: string }>).map((e) => e.path)
    expect(paths).toEqual(expect.arrayContaining(["sourceConfig.adminSubject", "sourceConfig.sharedDrives.0", "sourceConfig.users.0", "sourceConfig.extra"]))
    for (const credential of [
      { ...account.key, type: "authorized_user" },
      { ...account.key, private_key: "-----BEGIN PRIVATE KEY-----\nnot-a-key-do-not-echo\n-----END PRIVATE KEY-----\n" },
      { ...account.key, token_uri: "http://oauth2.googleapis.com/token" }
    ]) {
      const refused = await admin.call("PUT", `${path}/credential`, { credential })
      expect(refused.status).toBe(422)
      expect(JSON.stringify(refused.body)).not.toContain("PRIVATE KEY")
      expect(JSON.stringify(refused.body)).not.toContain("do-not-echo")
    }
  })

  it("tests the key (a delegated token, Drive and the Directory) and lists one scope per drive, inadmissible where permissions cannot be read", async () => {
    const tested = await admin.call("POST", `${path}/test`)
    expect(tested.body).toMatchObject({ authenticated: true, accountName: account.key.client_email, identityName: ADMIN, canReadContent: true, errorCode: null })
    const scopes = (await admin.call("GET", `${path}/scopes`)).body as Array<any>
    expect(scopes.map((s) => s.key).sort()).toEqual([ENG, HR, "user:ann@example.com"].sort())
    expect(scopes.find((s) => s.key === ENG)).toMatchObject({ reachable: true, admissible: true, instruction: null, displayName: "Shared drive: Engineering" })
    const hr = scopes.find((s) => s.key === HR)
    expect(hr).toMatchObject({ reachable: true, admissible: false })
    expect(hr.instruction).toContain("member")
  })

  it("crawls shared drives and a My Drive with their permissions, through a 401 (new token) and a 403 rateLimitExceeded", async () => {
    workspace.state.unauthorizedOnce = true
    workspace.state.throttleOnce = true
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsFailed: 0 })
    // The video and the Form are neither parseable nor exportable: skipped and counted, the crawl is not PARTIAL.
    expect(content.objectsSkipped).toBe(2)
    expect(content.objectsMaterialized).toBe(9)
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED", component: "permissions" })
    expect(workspace.state.answered403RateLimit).toBe(1)
    expect(workspace.state.answered401).toBeGreaterThanOrEqual(1)
    expect(workspace.state.served.exports).toBeGreaterThanOrEqual(3)

    // readers (ann, and ben through the nested leads) read the handbook and the deck; leads (ben) the roadmap; ann her
    // salary and My Drive; ben the budget; the domain admits both; `anyone` and HR's unreadable permissions admit nobody.
    const annReads = ["zqhandbook", "zqsalary", "zqnews", "zqdeck", "zqnotes"]
    const benReads = ["zqhandbook", "zqroadmap", "zqnews", "zqbudget", "zqdeck"]
    expect(await wordsOnceIngested(ann, ALL, annReads)).toEqual(annReads)
    expect(await wordsOnceIngested(ben, ALL, benReads)).toEqual(benReads)
    const listed = (await admin.call("GET", `${path}/documents`)).body.items as Array<any>
    const policy = listed.find((d) => d.externalId === `d:${HR}/f-policy`)
    const explained = await admin.call("POST", "/api/admin/access/explain", { userId: ann.id, resourceType: "KNOWLEDGE_ASSET", resourceId: policy.knowledgeAssetId })
    expect(explained.body).toMatchObject({ state: "DENIED", reasonCode: "SOURCE_ACL_UNRESOLVED" })
  })

  it("reads an edited document again from the change feed alone", async () => {
    const handbook = model.files.get("f-handbook")!
    handbook.content = "The zqhandbook explains the release process. Revised with the zqrevision appendix."
    handbook.changed = ++model.seq
    const before = { exports: workspace.state.served.exports, content: workspace.state.served.content, listings: workspace.state.served.listings }
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRotated: 1 })
    expect(workspace.state.served.exports - before.exports).toBe(1)
    expect(workspace.state.served.content).toBe(before.content)
    expect(workspace.state.served.listings).toBe(before.listings)
    await eventually(() => words(ben, ["zqrevision"]), (found) => found.length === 1, "the edit searchable", 60_000)
  })

  it("a user removed from a nested group loses its documents after the next permission sync, which fetches no content", async () => {
    model.groups.set("leads@example.com", [])
    const served = { ...workspace.state.served }
    const { permissions } = await run("permissions")
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED" })
    expect(workspace.state.served.content).toBe(served.content)
    expect(workspace.state.served.exports).toBe(served.exports)
    expect(workspace.state.served.changes).toBe(served.changes)
    expect(await words(ben, ["zqroadmap", "zqhandbook", "zqdeck", "zqbudget"])).toEqual(["zqbudget"])
    expect(await words(ann, ["zqhandbook", "zqdeck"])).toEqual(["zqhandbook", "zqdeck"])
  })

  it("a document removed at the source is retired from the change feed", async () => {
    const salary = model.files.get("f-salary")!
    salary.removed = true
    salary.changed = ++model.seq
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 1 })
    expect(await words(ann, ["zqsalary"])).toEqual([])
  })

  it("a start page token Drive refuses lists the unit in full again and retires what it no longer has", async () => {
    // The deck disappears without a change Lore could read: only a full listing can notice.
    model.files.delete("f-deck")
    workspace.state.expiredBelow = ++model.seq
    const { content } = await run("content")
    expect(workspace.state.answeredExpired).toBeGreaterThanOrEqual(1)
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 1 })
    expect(await words(ann, ["zqdeck", "zqhandbook"])).toEqual(["zqhandbook"])
  })

  it("a shared drive and a user taken out of sourceConfig have their documents retired at the next crawl, and their start tokens dropped", async () => {
    const checkpoint = async () => JSON.parse(((await activity()).componentCheckpoints as Array<any>).find((c) => c.component === "content").observedCursor)
    expect((await checkpoint()).unitsWithStartToken).toBe(3)
    const narrowed = await admin.call("PUT", path, { knowledgeSpaceId: spaceId, sourceConfig: { adminSubject: ADMIN, sharedDrives: [ENG] }, identityTrust: "TRUSTED", crawlEnabled: true, permissionSyncIntervalSeconds: 3600 })
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200)
    const { content } = await run("content")
    // HR's policy and Ann's notes; Engineering's documents stay.
    expect(content, JSON.stringify(content)).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 2 })
    expect((await checkpoint()).unitsWithStartToken).toBe(1)
    const listed = ((await admin.call("GET", `${path}/documents`)).body.items as Array<any>).map((d) => d.externalId as string)
    expect(listed.filter((id) => !id.startsWith(`d:${ENG}/`))).toEqual([])
    expect(await words(ann, ["zqnotes", "zqhandbook"])).toEqual(["zqhandbook"])
  })

  it("a deleted key is reported, and nothing becomes more visible", async () => {
    const before = { ann: await words(ann, ALL), ben: await words(ben, ALL) }
    workspace.state.revoked = true
    model.files.get("f-roadmap")!.permissions = [{ type: "domain", domain: DOMAIN }]
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect(permissions).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect((await admin.call("POST", `${path}/test`)).body).toMatchObject({ authenticated: false, errorCode: "AUTHENTICATION_FAILED" })
    expect(await words(ann, ALL)).toEqual(before.ann)
    expect(await words(ben, ALL)).toEqual(before.ben)
  })
})
