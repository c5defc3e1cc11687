import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, eventually, search, userClient } from "../knowledge/support"
import { startTestServer, type TestServer } from "../support/server"
import { connectionRuns, wordsFound } from "./scenario"
import { makeCertificate, type SitePermission, startTenant, type TenantItem, type TenantModel } from "./sharepoint-site"

/**
 * SHAREPOINT end to end (issue 30, points 7, 10-11), as two users searching through /api/knowledge/search, against a
 * loopback Entra + Graph + SharePoint REST tenant reached only through LORE_CONNECTOR_BASE_URLS (graph, login) and a
 * loopback sharepointHost: the initial crawl (a certificate client assertion through msal-node, paging by
 * @odata.nextLink, one 401 answered with a new token, one 429 waited out by Retry-After, a pptx converted to PDF by
 * Graph, a video skipped and counted, site groups holding Entra groups, "people in the organization" and "anyone"
 * links, a site page read as its canvas, a OneDrive's site group read on the -my host), a document edited (only the
 * delta read), a user removed from a group (gone for them after a permission sync that fetches no content), a sharing
 * link removed, a document deleted (delta tombstone), an expired delta token (410: a full walk that retires what it
 * did not see again), a page edited, a personal site's group emptied, a site taken out of sourceConfig (its documents
 * retired), and the certificate revoked (reported; nothing becomes more visible).
 */

const TENANT = "0b1c2d3e-0000-4000-8000-00000000aaaa"
const CLIENT = "c11e0000-0000-4000-8000-00000000cccc"
const LEADS = "aaaaaaaa-0000-4000-8000-000000000001"
const READERS = "aaaaaaaa-0000-4000-8000-000000000002"
const ENG_SITE = "127.0.0.1,11111111-1111-4111-8111-111111111111,22222222-2222-4222-8222-222222222222"
const HR_SITE = "127.0.0.1,33333333-3333-4333-8333-333333333333,44444444-4444-4444-8444-444444444444"
const ANN_SITE = "127.0.0.1,55555555-5555-4555-8555-555555555555,66666666-6666-4666-8666-666666666666"

describe("the SharePoint connector", { timeout: 300_000 }, () => {
  let server: TestServer
  let tenant: Awaited<ReturnType<typeof startTenant>>
  let admin: Client
  let ann: Client & { id: string }
  let ben: Client & { id: string }
  const credential = makeCertificate()
  const model: TenantModel = {
    tenantId: TENANT,
    clientId: CLIENT,
    users: new Map([
      ["u-ann", { id: "u-ann", mail: "ann@example.com", displayName: "Ann", userType: "Member" }],
      ["u-ben", { id: "u-ben", mail: "ben@example.com", displayName: "Ben", userType: "Member" }],
      ["u-gus", { id: "u-gus", mail: "gus@partner.example", displayName: "Gus (guest)", userType: "Guest" }]
    ]),
    groups: new Map([[LEADS, new Set(["u-ben"])], [READERS, new Set(["u-ann", "u-ben"])]]),
    sites: new Map([
      [ENG_SITE, { id: ENG_SITE, name: "Engineering", path: "/sites/eng", drives: ["b!eng-docs"], pagesDrive: "b!eng-pages", siteGroups: new Map([[5, { title: "Engineering Visitors", members: [{ type: "entraGroup" as const, groupId: READERS }] }]]) }],
      [HR_SITE, { id: HR_SITE, name: "HR", path: "/sites/hr", drives: ["b!hr-docs"], siteGroups: new Map() }],
      // Ann's OneDrive's personal site, on the -my host: its members group (ben) is read there.
      [ANN_SITE, { id: ANN_SITE, name: "Ann", path: "/personal/ann_example_com", drives: ["b!ann-onedrive"], personal: true, siteGroups: new Map([[3, { title: "Ann's OneDrive Members", members: [{ type: "user" as const, email: "ben@example.com" }] }]]) }]
    ]),
    drives: new Map([
      ["b!eng-docs", { id: "b!eng-docs", name: "Documents", siteId: ENG_SITE, ownerEmail: null, permissionsReadable: true }],
      ["b!eng-pages", { id: "b!eng-pages", name: "Site Pages", siteId: ENG_SITE, ownerEmail: null, permissionsReadable: true }],
      ["b!hr-docs", { id: "b!hr-docs", name: "Policies", siteId: HR_SITE, ownerEmail: null, permissionsReadable: false }],
      ["b!ann-onedrive", { id: "b!ann-onedrive", name: "OneDrive", siteId: ANN_SITE, ownerEmail: "ann@example.com", permissionsReadable: true }]
    ]),
    items: new Map(),
    seq: 0
  }
  const put = (id: string, driveId: string, name: string, content: string, permissions: Array<SitePermission>) =>
    model.items.set(id, { id, driveId, name, content, changed: ++model.seq, deleted: false, permissions } satisfies TenantItem)
  const visitors: SitePermission = { id: "p-visitors", kind: "siteGroup", siteGroupId: 5, inherited: true }
  put("i-handbook", "b!eng-docs", "Handbook.txt", "The zqhandbook explains the release process.", [visitors])
  put("i-roadmap", "b!eng-docs", "Roadmap.md", "# Roadmap\n\nThe zqroadmap for next year.", [{ id: "p-leads", kind: "group", groupId: LEADS }])
  put("i-salary", "b!eng-docs", "Salary.txt", "The zqsalary bands for engineers.", [{ id: "p-ann", kind: "user", userId: "u-ann" }])
  put("i-news", "b!eng-docs", "News.txt", "The zqnews of the week.", [{ id: "p-org", kind: "link", scope: "organization", userIds: [] }])
  put("i-secret", "b!eng-docs", "Secret.txt", "The zqsecret shared with anyone who has the link.", [{ id: "p-anon", kind: "link", scope: "anonymous", userIds: [] }])
  put("i-deck", "b!eng-docs", "Deck.pptx", "The zqdeck slides for the all hands.", [visitors])
  put("i-movie", "b!eng-docs", "Movie.mp4", "not a document", [visitors])
  put("i-policy", "b!hr-docs", "Policy.txt", "The zqpolicy for leave.", [])
  put("i-notes", "b!ann-onedrive", "Notes.txt", "The zqnotes Ann keeps.", [{ id: "p-owner", kind: "user", userId: "u-ann" }])
  // A modern page of the Engineering site (its Site Pages library), inheriting the site's Visitors: read as its canvas.
  put("i-welcome", "b!eng-pages", "Welcome.aspx", "", [visitors])
  model.items.get("i-welcome")!.page = { id: "7f3c0000-0000-4000-8000-00000000a001", title: "Welcome to Engineering", html: "<h2>Start here</h2><p>The zqwelcome page for new engineers.</p>", banner: "The zqbanner of the week" }
  put("i-shared", "b!ann-onedrive", "Shared.txt", "The zqshared plan Ann gives her OneDrive's members.", [{ id: "p-members", kind: "siteGroup", siteGroupId: 3 }])
  const ALL = ["zqhandbook", "zqroadmap", "zqsalary", "zqnews", "zqsecret", "zqdeck", "zqpolicy", "zqnotes", "zqwelcome", "zqbanner", "zqshared"]

  const path = "/api/admin/connectors/SHAREPOINT/tenant"
  const { activity, run } = connectionRuns(() => admin, path)
  const sourceConfig = () => ({ tenantId: TENANT, clientId: CLIENT, sharepointHost: tenant.baseUrl, sites: [`${tenant.baseUrl}/sites/eng`, HR_SITE], users: ["ann@example.com"] })
  let spaceId = ""

  beforeAll(async () => {
    tenant = await startTenant(model, credential.certificatePem)
    server = await startTestServer({ allowedPrivateHosts: [tenant.host, tenant.personalHost], connectorBaseUrls: { graph: tenant.baseUrl, login: tenant.baseUrl, "sharepoint-my": tenant.personalBaseUrl } })
    admin = client(server.url, server.adminToken)
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Docs" })).body.id
    spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "docs", name: "Docs" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    ann = await userClient(admin.call, server.url, { email: "ann@example.com", departmentId })
    ben = await userClient(admin.call, server.url, { email: "ben@example.com", departmentId })
    const saved = await admin.call("PUT", path, { knowledgeSpaceId: spaceId, sourceConfig: sourceConfig(), identityTrust: "TRUSTED", crawlEnabled: true, permissionSyncIntervalSeconds: 3600 })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect((await admin.call("PUT", `${path}/credential`, { credential })).status).toBe(204)
  })
  afterAll(async () => {
    await server?.dispose()
    await tenant?.close()
  })

  it("refuses a bad configuration naming each field, and a credential whose key is not the certificate's without echoing it", async () => {
    const bad = await admin.call("PUT", "/api/admin/connectors/SHAREPOINT/bad", {
      knowledgeSpaceId: spaceId,
      sourceConfig: { tenantId: "not a tenant", clientId: "x", sharepointHost: "http://169.254.169.254/sites/a", sites: ["https://evil.example.com/sites/a"], users: ["nobody"], extra: 1 }
    })
    expect(bad.status).toBe(422)
    const paths = (bad.body.errors as Array<{ path: string }>).map((e) => e.path)
    expect(paths).toEqual(expect.arrayContaining(["sourceConfig.tenantId", "sourceConfig.clientId", "sourceConfig.sharepointHost", "sourceConfig.sites.0", "sourceConfig.users.0", "sourceConfig.extra"]))
    const other = makeCertificate()
    const mismatched = await admin.call("PUT", `${path}/credential`, { credential: { certificatePem: credential.certificatePem, privateKeyPem: other.privateKeyPem } })
    expect(mismatched.status).toBe(422)
    expect(JSON.stringify(mismatched.body)).not.toContain("PRIVATE KEY")
    const extra = await admin.call("PUT", `${path}/credential`, { credential: { ...credential, clientSecret: "do-not-echo-this-secret" } })
    expect(extra.status).toBe(422)
    expect(JSON.stringify(extra.body)).not.toContain("do-not-echo-this-secret")
  })

  it("tests the credential (a token, then a Graph call) and lists one scope per library, inadmissible where permissions cannot be read", async () => {
    const tested = await admin.call("POST", `${path}/test`)
    expect(tested.body).toMatchObject({ authenticated: true, accountName: TENANT, canReadContent: true, errorCode: null })
    const scopes = (await admin.call("GET", `${path}/scopes`)).body as Array<any>
    expect(scopes.map((s) => s.key).sort()).toEqual(["b!ann-onedrive", "b!eng-docs", "b!eng-pages", "b!hr-docs"])
    expect(scopes.find((s) => s.key === "b!eng-docs")).toMatchObject({ reachable: true, admissible: true, instruction: null, displayName: "Engineering: Documents" })
    const hr = scopes.find((s) => s.key === "b!hr-docs")
    expect(hr).toMatchObject({ reachable: true, admissible: false })
    expect(hr.instruction).toContain("/sites/{site-id}/permissions")
  })

  it("crawls libraries and a OneDrive with their permissions, through a 401 (new token) and a 429", async () => {
    tenant.state.unauthorizedOnce = true
    tenant.state.throttleOnce = true
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsFailed: 0 })
    // Movie.mp4 is neither parseable nor convertible: skipped and counted, the crawl is not PARTIAL.
    expect(content.objectsSkipped).toBe(1)
    expect(content.objectsMaterialized).toBe(10)
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED", component: "permissions" })
    expect(tenant.state.answered429).toBe(1)
    expect(tenant.state.answered401).toBeGreaterThanOrEqual(1)
    // After the 401 the client asked Entra again (a certificate assertion each time) instead of reusing the token.
    expect(tenant.state.tokensIssued).toBeGreaterThanOrEqual(3)
    expect(tenant.state.served.siteGroups).toBeGreaterThanOrEqual(1)
    // The OneDrive's site group was read on the -my host with a token for it (the fake refuses any other): not PARTIAL.
    expect(tenant.state.served.mySiteGroups).toBeGreaterThanOrEqual(1)
    expect(tenant.state.served.pages).toBeGreaterThanOrEqual(1)

    // Every document is waited for (ingestion runs on the job queue after the crawl's attempt is recorded).
    const annReads = ["zqhandbook", "zqsalary", "zqnews", "zqdeck", "zqnotes", "zqwelcome", "zqbanner"]
    const benReads = ["zqhandbook", "zqroadmap", "zqnews", "zqdeck", "zqwelcome", "zqbanner", "zqshared"]
    await eventually(() => wordsFound(ann, ALL), (found) => annReads.every((w) => found.includes(w)), "ann's documents ingested", 120_000)
    await eventually(() => wordsFound(ben, ALL), (found) => benReads.every((w) => found.includes(w)), "ben's documents ingested", 120_000)
    // Visitors (a site group holding the READERS Entra group) read the handbook and the deck (converted to PDF);
    // LEADS (ben) the roadmap; ann her salary and OneDrive; the organization link admits both; the anyone link and
    // HR's unreadable permissions admit nobody.
    // The Welcome page reads as its canvas (a text web part and a banner's searchable text), under the site's Visitors.
    // Ben reads what Ann shared with her OneDrive's members group.
    expect(await wordsFound(ann, ALL)).toEqual(annReads)
    expect(await wordsFound(ben, ALL)).toEqual(benReads)
    const welcome = (await search(ann, "zqwelcome"))[0] as any
    expect(JSON.stringify(welcome)).toContain("Welcome to Engineering")
    const listed = (await admin.call("GET", `${path}/documents`)).body.items as Array<any>
    const policy = listed.find((d) => d.externalId === "b!hr-docs/i-policy")
    const explained = await admin.call("POST", "/api/admin/access/explain", { userId: ann.id, resourceType: "KNOWLEDGE_ASSET", resourceId: policy.knowledgeAssetId })
    expect(explained.body).toMatchObject({ state: "DENIED", reasonCode: "SOURCE_ACL_UNRESOLVED" })
  })

  it("reads an edited document again from the delta token alone", async () => {
    const handbook = model.items.get("i-handbook")!
    handbook.content = "The zqhandbook explains the release process. Revised with the zqrevision appendix."
    handbook.changed = ++model.seq
    const before = tenant.state.served.content
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRotated: 1 })
    expect(tenant.state.served.content - before).toBe(1)
    await eventually(() => wordsFound(ben, ["zqrevision"]), (found) => found.length === 1, "the edit searchable", 60_000)
  })

  it("a user removed from a group loses the document after the next permission sync, which fetches no content", async () => {
    model.groups.get(LEADS)!.delete("u-ben")
    const served = { ...tenant.state.served }
    const { permissions } = await run("permissions")
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED" })
    expect(tenant.state.served.content).toBe(served.content)
    expect(tenant.state.served.delta).toBe(served.delta)
    expect(await wordsFound(ben, ["zqroadmap"])).toEqual([])
    expect(await wordsFound(ann, ["zqhandbook", "zqsalary"])).toEqual(["zqhandbook", "zqsalary"])
  })

  it("a sharing link removed hides the document after the next permission sync", async () => {
    model.items.get("i-news")!.permissions = []
    const { permissions } = await run("permissions")
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED", objectsRematerialized: 1 })
    expect(await wordsFound(ann, ["zqnews"])).toEqual([])
    expect(await wordsFound(ben, ["zqnews"])).toEqual([])
  })

  it("a document deleted at the source is retired from the delta's tombstone", async () => {
    const salary = model.items.get("i-salary")!
    salary.deleted = true
    salary.changed = ++model.seq
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 1 })
    expect(await wordsFound(ann, ["zqsalary"])).toEqual([])
  })

  it("an expired delta token (410) walks the drive in full and retires what it no longer has", async () => {
    // The deck disappears without a tombstone Lore could read: only a full walk can notice.
    model.items.delete("i-deck")
    tenant.state.expiredBelow = ++model.seq
    const { content } = await run("content")
    expect(tenant.state.answered410).toBeGreaterThanOrEqual(1)
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 1 })
    expect(await wordsFound(ann, ["zqdeck", "zqhandbook"])).toEqual(["zqhandbook"])
  })

  it("a page edited is read again; Ann's members group emptied on the -my host hides her shared file after a permission sync", async () => {
    const welcome = model.items.get("i-welcome")!
    welcome.page!.html = "<p>The zqwelcome page, now with the zqonboarding checklist.</p>"
    welcome.changed = ++model.seq
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRotated: 1 })
    await eventually(() => wordsFound(ann, ["zqonboarding"]), (found) => found.length === 1, "the page edit searchable", 60_000)
    model.sites.get(ANN_SITE)!.siteGroups.get(3)!.members.length = 0
    const served = tenant.state.served.mySiteGroups
    const { permissions } = await run("permissions")
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED" })
    expect(tenant.state.served.mySiteGroups).toBeGreaterThan(served)
    expect(await wordsFound(ben, ["zqshared"])).toEqual([])
  })

  it("a site taken out of sourceConfig has its documents retired at the next crawl, and its delta tokens dropped", async () => {
    const checkpoint = async () => JSON.parse(((await activity()).componentCheckpoints as Array<any>).find((c) => c.component === "content").observedCursor)
    expect((await checkpoint()).drivesWithDeltaToken).toBe(4)
    const saved = await admin.call("PUT", path, { knowledgeSpaceId: spaceId, sourceConfig: { ...sourceConfig(), sites: [HR_SITE] }, identityTrust: "TRUSTED", crawlEnabled: true, permissionSyncIntervalSeconds: 3600 })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    const { content } = await run("content")
    // Engineering's library (handbook, roadmap, news, secret) and its Welcome page; HR and Ann's OneDrive stay.
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 5 })
    expect((await checkpoint()).drivesWithDeltaToken).toBe(2)
    expect(await wordsFound(ann, ["zqhandbook", "zqwelcome", "zqnotes"])).toEqual(["zqnotes"])
    expect(await wordsFound(ben, ["zqroadmap", "zqnews"])).toEqual([])
  })

  it("a revoked certificate is reported, and nothing becomes more visible", async () => {
    const before = { ann: await wordsFound(ann, ALL), ben: await wordsFound(ben, ALL) }
    tenant.state.revoked = true
    model.items.get("i-roadmap")!.permissions = [{ id: "p-org2", kind: "link", scope: "organization", userIds: [] }]
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect(permissions).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect((await admin.call("POST", `${path}/test`)).body).toMatchObject({ authenticated: false, errorCode: "AUTHENTICATION_FAILED" })
    expect(await wordsFound(ann, ALL)).toEqual(before.ann)
    expect(await wordsFound(ben, ALL)).toEqual(before.ben)
  })
})
