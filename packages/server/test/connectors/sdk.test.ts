import { createLoreClient, LoreApiError, type LoreClient } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"

/** The connectors and source-identity surface of @lore/sdk against a real server. */
describe("connectors through the SDK", { timeout: 120_000 }, () => {
  let server: TestServer
  let admin: LoreClient
  let spaceId: string
  const secret = "sdk-push-secret-0123456789abcdef"

  beforeAll(async () => {
    server = await startTestServer()
    admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    spaceId = (await admin.admin.spaces.create({ key: "sdk-conn", name: "SDK connectors" })).id
  })
  afterAll(async () => {
    await server?.dispose()
  })

  it("configures a PUSH connection, keeps its credential write-only, and decides trust", async () => {
    expect((await admin.admin.connectors.kinds()).map((k) => k.sourceSystem)).toContain("PUSH")
    const saved = await admin.admin.connectors.put("PUSH", "docs", { knowledgeSpaceId: spaceId, sourceConfig: {} })
    expect(saved).toMatchObject({ sourceConnectionKey: "docs", identityTrust: "UNTRUSTED", credentialSet: false })
    const invalid = await admin.admin.connectors.put("PUSH", "docs", { knowledgeSpaceId: spaceId, sourceConfig: { nope: 1 } }).catch((e) => e)
    expect(LoreApiError.is(invalid) && invalid.status).toBe(422)
    await admin.admin.connectors.setCredential("PUSH", "docs", secret)
    const listed = await admin.admin.connectors.list("PUSH")
    expect(listed[0]!.credentialSet).toBe(true)
    expect(JSON.stringify(listed)).not.toContain(secret)
    expect((await admin.admin.connectors.test("PUSH", "docs")).authenticated).toBe(true)
    await admin.admin.connectors.crawl("PUSH", "docs")
    expect((await admin.admin.connectors.scopes("PUSH", "docs"))[0]!.reachable).toBe(true)
    expect((await admin.admin.connectors.activity("PUSH", "docs")).objectsTotal).toBe(0)

    const trusted = await admin.admin.sourceIdentity.setTrust("PUSH", "docs", "TRUSTED")
    expect(trusted).toMatchObject({ identityTrust: "TRUSTED", userCount: 0 })
    expect(await admin.admin.sourceIdentity.principals()).toEqual([])
    expect(await admin.admin.sourceIdentity.groups()).toEqual([])
    await admin.admin.connectors.clearCredential("PUSH", "docs")
    expect((await admin.admin.connectors.test("PUSH", "docs")).errorCode).toBe("CREDENTIAL_MISSING")
    await admin.admin.connectors.remove("PUSH", "docs")
    expect(await admin.admin.connectors.list("PUSH")).toEqual([])
  })
})
