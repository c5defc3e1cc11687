import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, eventually, search, userClient } from "../knowledge/support"
import { startTestServer, type TestServer } from "../support/server"
import { type SiteContent, type SiteModel, startConfluenceSite } from "./confluence-site"

/**
 * The connector framework through a real kind (issue 30, points 1 and 4): a crawl longer than one job run's pages
 * carries on in the next run at once and reports SUCCEEDED once, at the end; past permissionMaxAgeSeconds without
 * a successful permission sync the connection's documents admit nobody and explain says the provenance expired.
 */

const AUTH = { email: "bot@example.com", apiToken: "confluence-api-token-framework" }

describe("the connector framework with Confluence", { timeout: 300_000 }, () => {
  let server: TestServer
  let site: Awaited<ReturnType<typeof startConfluenceSite>>
  let admin: Client
  let ann: Client & { id: string }
  const model: SiteModel = {
    users: new Map([["acc-ann", { accountId: "acc-ann", email: "ann@example.com", displayName: "Ann" }]]),
    groups: new Map([["staff", new Set(["acc-ann"])]]),
    spaces: new Map([["DOC", { key: "DOC", name: "Docs", readers: { users: [], groups: ["staff"] }, permissionsReadable: true }]]),
    contents: new Map()
  }
  // Eleven pages: six listing pages of two, more than the two pages one job run applies here.
  for (let i = 0; i < 11; i++) {
    const id = String(500 + i)
    model.contents.set(id, { id, type: "page", title: `Page ${i}`, spaceKey: "DOC", ancestors: [], body: `<h1>Part ${i}</h1><p>zqlong${i} text</p>`, lastModified: new Date(Date.now() - 3600_000), restriction: null, attachments: [] } satisfies SiteContent)
  }
  const attempts = async (component: string) =>
    ((await admin.call("GET", "/api/admin/connectors/CONFLUENCE/docs/activity")).body.recentAttempts as Array<any>).filter((a) => a.component === component)

  beforeAll(async () => {
    site = await startConfluenceSite(model, AUTH)
    server = await startTestServer({ allowedPrivateHosts: [site.host], connectors: { scheduleCheckMs: 200, pagesPerRun: 2 } })
    admin = client(server.url, server.adminToken)
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Docs" })).body.id
    const spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "docs", name: "Docs" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    ann = await userClient(admin.call, server.url, { email: "ann@example.com", departmentId })
    expect((await admin.call("PUT", "/api/admin/connectors/CONFLUENCE/docs", {
      knowledgeSpaceId: spaceId,
      sourceConfig: { deployment: "CLOUD", baseUrl: site.baseUrl, spaces: ["DOC"] },
      identityTrust: "TRUSTED",
      permissionMaxAgeSeconds: 60
    })).status).toBe(200)
    expect((await admin.call("PUT", "/api/admin/connectors/CONFLUENCE/docs/credential", { credential: AUTH })).status).toBe(204)
  })
  afterAll(async () => {
    await server?.dispose()
    await site?.close()
  })

  it("a crawl longer than one run continues at once and reports SUCCEEDED only at the end", async () => {
    expect((await admin.call("POST", "/api/admin/connectors/CONFLUENCE/docs/crawl")).status).toBe(202)
    const [content] = await eventually(() => attempts("content"), (list) => list.length > 0, "the crawl's attempt", 120_000)
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsMaterialized: 11 })
    // One attempt for the whole crawl, though it took several runs of the job.
    expect(await attempts("content")).toHaveLength(1)
    await eventually(() => attempts("permissions"), (list) => list[0]?.outcome === "SUCCEEDED", "the permission sync", 60_000)
    await eventually(() => search(ann, "zqlong10"), (found) => found.length > 0, "the last page searchable", 60_000)
  })

  it("past permissionMaxAgeSeconds without a successful permission sync, the documents fail closed", async () => {
    site.state.revoked = true
    const documents = (await admin.call("GET", "/api/admin/connectors/CONFLUENCE/docs/documents")).body.items as Array<any>
    const explain = () => admin.call("POST", "/api/admin/access/explain", { userId: ann.id, resourceType: "KNOWLEDGE_ASSET", resourceId: documents[0].knowledgeAssetId })
    expect((await explain()).body).toMatchObject({ state: "ALLOWED", provenance: { expired: false } })
    const before = (await attempts("permissions")).length
    expect((await admin.call("POST", "/api/admin/connectors/CONFLUENCE/docs/crawl?component=permissions")).status).toBe(202)
    await eventually(() => attempts("permissions"), (list) => list.length > before && list[0].outcome === "FAILED", "the failed sync", 60_000)
    await eventually(() => search(ann, "zqlong3"), (found) => found.length === 0, "documents closed after the maximum age", 90_000)
    expect((await explain()).body).toMatchObject({ state: "DENIED", provenance: { expired: true } })
    const permissions = ((await admin.call("GET", "/api/admin/connectors/CONFLUENCE/docs/activity")).body.componentCheckpoints as Array<any>).find((c) => c.component === "permissions")
    expect(permissions.captureStatus).toBe("EXPIRED")
  })
})
