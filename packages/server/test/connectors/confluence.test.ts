import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, eventually, userClient } from "../knowledge/support"
import { startTestServer, type TestServer } from "../support/server"
import { connectionRuns, wordsFound, wordsOnceIngested } from "./scenario"
import { type SiteContent, type SiteModel, startConfluenceSite } from "./confluence-site"

/**
 * CONFLUENCE end to end (issue 30, points 1-3, 6, 9-11), as two users searching through /api/knowledge/search: the
 * initial crawl (paging by _links.next, one 401 and one 429 recovered from, space permission AND page restrictions
 * AND restricted ancestors, an unsupported attachment skipped and counted), a page edited (read again by CQL
 * lastmodified), a user removed from a group (gone for them after a permission sync that fetches no content), a
 * restriction added under a readable space, a page deleted (retired by the full walk), a space whose permissions
 * cannot be read (SOURCE_ACL_UNRESOLVED), and the credential revoked (reported; nothing becomes more visible).
 */

const AUTH = { email: "bot@example.com", apiToken: "confluence-api-token-0123456789" }
const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000)
const storage = (word: string, extra = "") => `<h1>Overview</h1><p>The ${word} notes explain the ${word} process.</p><h2>Details</h2><ul><li>${word} step one</li><li>step two</li></ul>${extra}`

const content = (id: string, type: "page" | "blogpost", title: string, word: string, ancestors: Array<string> = [], restriction: SiteContent["restriction"] = null, spaceKey = "ENG"): SiteContent =>
  ({ id, type, title, spaceKey, ancestors, body: storage(word), lastModified: at(60), restriction, attachments: [] })

describe("the Confluence connector", { timeout: 300_000 }, () => {
  let server: TestServer
  let site: Awaited<ReturnType<typeof startConfluenceSite>>
  let admin: Client
  let ann: Client & { id: string }
  let ben: Client & { id: string }
  const model: SiteModel = {
    users: new Map([
      ["acc-ann", { accountId: "acc-ann", email: "ann@example.com", displayName: "Ann" }],
      ["acc-ben", { accountId: "acc-ben", email: "ben@example.com", displayName: "Ben" }]
    ]),
    groups: new Map([["engineers", new Set(["acc-ann", "acc-ben"])], ["leads", new Set(["acc-ben"])]]),
    spaces: new Map([
      ["ENG", { key: "ENG", name: "Engineering", readers: { users: [], groups: ["engineers"] }, permissionsReadable: true }],
      ["OPS", { key: "OPS", name: "Operations", readers: { users: ["acc-ann"], groups: [] }, permissionsReadable: false }]
    ]),
    contents: new Map()
  }
  const put = (c: SiteContent) => model.contents.set(c.id, c)
  put({ ...content("101", "page", "Handbook", "zqhandbook"), attachments: [
    { id: "att9001", title: "notes.txt", mediaType: "text/plain", bytes: new TextEncoder().encode("The zqattachnote checklist for new engineers.") },
    { id: "att9002", title: "diagram.bin", mediaType: "application/octet-stream", bytes: new Uint8Array([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x10, 0x80]) }
  ] })
  put(content("102", "page", "Salaries", "zqsalary", [], { users: ["acc-ann"], groups: [] }))
  put(content("103", "page", "Bonuses", "zqbonus", ["102"]))
  put(content("104", "page", "Roadmap", "zqroadmap", [], { users: [], groups: ["leads"] }))
  put(content("201", "blogpost", "Launch", "zqlaunch"))
  put(content("301", "page", "Runbook", "zqrunbook", [], null, "OPS"))

  const { run, activity } = connectionRuns(() => admin, "/api/admin/connectors/CONFLUENCE/wiki")
  const ALL = ["zqhandbook", "zqsalary", "zqbonus", "zqroadmap", "zqlaunch", "zqattachnote", "zqrunbook"]

  beforeAll(async () => {
    site = await startConfluenceSite(model, AUTH)
    server = await startTestServer({ allowedPrivateHosts: [site.host] })
    admin = client(server.url, server.adminToken)
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Wiki" })).body.id
    const spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "wiki", name: "Wiki" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    ann = await userClient(admin.call, server.url, { email: "ann@example.com", departmentId })
    ben = await userClient(admin.call, server.url, { email: "ben@example.com", departmentId })
    const saved = await admin.call("PUT", "/api/admin/connectors/CONFLUENCE/wiki", {
      knowledgeSpaceId: spaceId,
      sourceConfig: { deployment: "CLOUD", baseUrl: site.baseUrl, spaces: ["ENG", "OPS"] },
      identityTrust: "TRUSTED",
      crawlEnabled: true,
      permissionSyncIntervalSeconds: 3600
    })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect(saved.body).toMatchObject({ permissionSyncIntervalSeconds: 3600, permissionMaxAgeSeconds: null })
    expect((await admin.call("PUT", "/api/admin/connectors/CONFLUENCE/wiki/credential", { credential: AUTH })).status).toBe(204)
  })
  afterAll(async () => {
    await server?.dispose()
    await site?.close()
  })

  it("refuses a bad configuration naming the field, and a malformed credential without echoing it", async () => {
    const knowledgeSpaceId = (await admin.call("GET", "/api/admin/connectors/CONFLUENCE")).body[0].knowledgeSpaceId
    const bad = await admin.call("PUT", "/api/admin/connectors/CONFLUENCE/bad", {
      knowledgeSpaceId,
      sourceConfig: { deployment: "SERVER", baseUrl: "http://169.254.169.254/wiki", spaces: ["ok", "bad key!"], extra: 1 }
    })
    expect(bad.status).toBe(422)
    const paths = (bad.body.errors as Array<{ path: string }>).map((e) => e.path)
    expect(paths).toEqual(expect.arrayContaining(["sourceConfig.deployment", "sourceConfig.baseUrl", "sourceConfig.spaces.1", "sourceConfig.extra"]))
    const many = await admin.call("PUT", "/api/admin/connectors/CONFLUENCE/bad", {
      knowledgeSpaceId, sourceConfig: { deployment: "CLOUD", baseUrl: site.baseUrl, spaces: Array.from({ length: 5000 }, (_, i) => `S${i}`) }
    })
    expect(many.status).toBe(422)
    expect(many.body.errors[0].path).toBe("sourceConfig.spaces")
    const secret = "do-not-echo-this-token-value"
    const credential = await admin.call("PUT", "/api/admin/connectors/CONFLUENCE/wiki/credential", { credential: { token: secret, email: "x@example.com" } })
    expect(credential.status).toBe(422)
    expect(JSON.stringify(credential.body)).not.toContain(secret)
    const interval = await admin.call("PUT", "/api/admin/connectors/CONFLUENCE/wiki", {
      knowledgeSpaceId,
      sourceConfig: { deployment: "CLOUD", baseUrl: site.baseUrl, spaces: ["ENG"] },
      permissionSyncIntervalSeconds: 30
    })
    expect(interval.status).toBe(422)
    expect(interval.body.errors[0].path).toBe("permissionSyncIntervalSeconds")
  })

  it("tests the credential and lists one scope per space, inadmissible where permissions cannot be read", async () => {
    const tested = await admin.call("POST", "/api/admin/connectors/CONFLUENCE/wiki/test")
    expect(tested.body).toMatchObject({ authenticated: true, identityName: "Lore bot", canReadContent: true, errorCode: null })
    const scopes = (await admin.call("GET", "/api/admin/connectors/CONFLUENCE/wiki/scopes")).body as Array<any>
    expect(scopes.find((s) => s.key === "ENG")).toMatchObject({ reachable: true, admissible: true, instruction: null })
    expect(scopes.find((s) => s.key === "OPS")).toMatchObject({ reachable: true, admissible: false })
    expect(scopes.find((s) => s.key === "OPS").instruction).toContain("Admin")
  })

  it("crawls pages, blog posts and attachments with space permission AND restrictions, through a 401 and a 429", async () => {
    site.state.unauthorizedOnce = true
    site.state.throttleOnce = true
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsFailed: 0 })
    // notes.txt is read; diagram.bin is a binary Lore cannot parse: skipped and counted, the crawl is not PARTIAL.
    expect(content.objectsSkipped).toBe(1)
    expect(content.objectsMaterialized).toBe(7)
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED", component: "permissions" })
    expect(site.state.answered401).toBeGreaterThanOrEqual(1)
    expect(site.state.answered429).toBe(1)
    const components = ((await activity()).componentCheckpoints as Array<any>).map((c) => c.component)
    expect(components).toEqual(["content", "permissions"])

    // Salaries is restricted to ann, Bonuses inherits it from its ancestor; Roadmap is restricted to the leads (ben).
    const annReads = ["zqhandbook", "zqsalary", "zqbonus", "zqlaunch", "zqattachnote"]
    const benReads = ["zqhandbook", "zqroadmap", "zqlaunch", "zqattachnote"]
    expect(await wordsOnceIngested(ann, ALL, annReads)).toEqual(annReads)
    expect(await wordsOnceIngested(ben, ALL, benReads)).toEqual(benReads)
    // OPS's permissions cannot be read: its page admits nobody, and explain says why.
    const listed = (await admin.call("GET", "/api/admin/connectors/CONFLUENCE/wiki/documents")).body.items as Array<any>
    expect(listed.map((d) => d.externalId).sort()).toEqual(["attachment:101:att9001", "blogpost:201", "page:101", "page:102", "page:103", "page:104", "page:301"])
    const runbook = listed.find((d) => d.externalId === "page:301")
    const explained = await admin.call("POST", "/api/admin/access/explain", { userId: ann.id, resourceType: "KNOWLEDGE_ASSET", resourceId: runbook.knowledgeAssetId })
    expect(explained.body).toMatchObject({ state: "DENIED", reasonCode: "SOURCE_ACL_UNRESOLVED" })
    expect(explained.body.provenance.expired).toBe(false)
    const salaries = listed.find((d) => d.externalId === "page:102")
    const forBen = await admin.call("POST", "/api/admin/access/explain", { userId: ben.id, resourceType: "KNOWLEDGE_ASSET", resourceId: salaries.knowledgeAssetId })
    expect(forBen.body).toMatchObject({ state: "DENIED", reasonCode: "SOURCE_ACL_DENIED" })
    expect(forBen.body.blockedBy[0].detail).toContain("every restriction")
  })

  it("reads an edited page again by CQL lastmodified", async () => {
    const handbook = model.contents.get("101")!
    handbook.body = storage("zqhandbook", "<p>Revised with the zqrevision appendix.</p>")
    handbook.lastModified = new Date()
    const before = site.state.served.content
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRotated: 1 })
    // Only what changed since the last crawl is listed, not the whole space.
    expect(site.state.served.content - before).toBe(1)
    await eventually(() => wordsFound(ben, ["zqrevision"]), (found) => found.length === 1, "the edit searchable", 60_000)
  })

  it("a user removed from a group loses the page after the next permission sync, which fetches no content", async () => {
    model.groups.get("leads")!.delete("acc-ben")
    const served = { ...site.state.served }
    const { permissions } = await run("permissions")
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED" })
    expect(site.state.served.search).toBe(served.search)
    expect(site.state.served.attachments).toBe(served.attachments)
    expect(site.state.served.downloads).toBe(served.downloads)
    expect(await wordsFound(ben, ["zqroadmap"])).toEqual([])
    expect(await wordsFound(ann, ["zqhandbook", "zqsalary"])).toEqual(["zqhandbook", "zqsalary"])
    // Nothing changed since: a second sync rewrites nothing.
    const again = await run("permissions")
    expect(again.permissions).toMatchObject({ outcome: "SUCCEEDED", objectsRematerialized: 0 })
  })

  it("a restriction added under a readable space hides the page and its attachment from the others", async () => {
    model.contents.get("101")!.restriction = { users: ["acc-ann"], groups: [] }
    const { permissions } = await run("permissions")
    // The page and its attachment take the new ACL without their bytes.
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED", objectsRematerialized: 2 })
    expect(await wordsFound(ben, ["zqhandbook", "zqattachnote", "zqlaunch"])).toEqual(["zqlaunch"])
    expect(await wordsFound(ann, ["zqhandbook", "zqattachnote"])).toEqual(["zqhandbook", "zqattachnote"])
  })

  it("a deleted page is retired by the full walk", async () => {
    model.contents.delete("201")
    const knowledgeSpaceId = (await admin.call("GET", "/api/admin/connectors/CONFLUENCE")).body[0].knowledgeSpaceId
    // reconcileEveryHours 0: every crawl walks everything, which is how deletions are found.
    expect((await admin.call("PUT", "/api/admin/connectors/CONFLUENCE/wiki", {
      knowledgeSpaceId, sourceConfig: { deployment: "CLOUD", baseUrl: site.baseUrl, spaces: ["ENG", "OPS"], reconcileEveryHours: 0 }, crawlEnabled: true
    })).status).toBe(200)
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 1 })
    expect(await wordsFound(ann, ["zqlaunch"])).toEqual([])
    expect(await wordsFound(ben, ["zqlaunch"])).toEqual([])
  })

  it("a revoked credential is reported, and nothing becomes more visible", async () => {
    const before = { ann: await wordsFound(ann, ALL), ben: await wordsFound(ben, ALL) }
    site.state.revoked = true
    model.contents.get("102")!.restriction = null
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect(permissions).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect((await admin.call("POST", "/api/admin/connectors/CONFLUENCE/wiki/test")).body).toMatchObject({ authenticated: false, errorCode: "AUTHENTICATION_FAILED" })
    expect(await wordsFound(ann, ALL)).toEqual(before.ann)
    expect(await wordsFound(ben, ALL)).toEqual(before.ben)
  })
})
