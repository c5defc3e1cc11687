import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { http } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"
import { client, type Client, eventually, search, userClient } from "../knowledge/support"

/**
 * The framework's access additions through the PUSH indexing API (issue 30, points 1-3): an organization-wide
 * principal reached only by its member users (never through a group, so a guest in a group stays out); an ACL
 * that intersects (any of its principals AND one of each requireAlso set) in search and in explain; and group
 * writes that raise the authorization generation only when the membership changed.
 */

const SECRET = "org-push-secret-0123456789abcdefXYZ"

describe("organization-wide principals and intersections", { timeout: 240_000 }, () => {
  let server: TestServer
  let admin: Client
  const users = {} as Record<"ann" | "ben" | "gus", Client & { id: string }>
  let push: ReturnType<typeof http>
  const assets = {} as Record<string, string>

  const put = async (externalId: string, word: string, acl: unknown) => {
    const reply = await push("PUT", `/api/indexing/PUSH/org/documents/${externalId}`, { title: `Doc ${word}`, content: `# ${word}\n\nThe ${word} memo for the team.`, acl })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    assets[externalId] = reply.body.knowledgeAssetId
    return reply.body
  }
  const finds = async (who: Client, word: string) => (await search(who, word)).length > 0
  const generation = async () => (await admin.call("POST", "/api/admin/access/explain", { userId: users.ann.id, resourceType: "KNOWLEDGE_ASSET", resourceId: assets.tenant })).body.provenance.generation as number

  beforeAll(async () => {
    server = await startTestServer()
    admin = client(server.url, server.adminToken)
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Org" })).body.id
    const spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "org", name: "Org" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    for (const name of ["ann", "ben", "gus"] as const) users[name] = await userClient(admin.call, server.url, { email: `${name}@example.com`, departmentId })
    expect((await admin.call("PUT", "/api/admin/connectors/PUSH/org", { knowledgeSpaceId: spaceId, sourceConfig: {}, identityTrust: "TRUSTED" })).status).toBe(200)
    expect((await admin.call("PUT", "/api/admin/connectors/PUSH/org/credential", { credential: SECRET })).status).toBe(204)
    push = http(server.url, SECRET)
    // The tenant: ann and ben are its users; gus is a guest, only in the contractors group.
    expect((await push("PUT", "/api/indexing/PUSH/org/groups/contractors", { members: { users: [{ id: "u-gus", email: "gus@example.com" }] } })).status).toBe(200)
    const tenant = await push("PUT", "/api/indexing/PUSH/org/groups/tenant", {
      kind: "SOURCE_ORGANIZATION",
      members: { users: [{ id: "u-ann", email: "ann@example.com" }, { id: "u-ben", email: "ben@example.com" }], groups: [{ id: "contractors" }] }
    })
    expect(tenant.status, JSON.stringify(tenant.body)).toBe(200)
    // An organization holds users only: the contractors group given as a member is left out.
    expect(tenant.body.members.map((m: { nativePrincipalId: string }) => m.nativePrincipalId).sort()).toEqual(["u-ann", "u-ben"])
    expect((await push("PUT", "/api/indexing/PUSH/org/groups/everyone", { members: { users: [{ id: "u-ann" }, { id: "u-ben" }, { id: "u-gus" }] } })).status).toBe(200)
    await put("tenant", "zqtenantwide", { organizations: [{ id: "tenant" }] })
    await put("restricted", "zqrestricted", { groups: [{ id: "everyone" }], requireAlso: [{ users: [{ id: "u-ann" }] }] })
    await put("nested", "zqnestedand", { groups: [{ id: "everyone" }], requireAlso: [{ organizations: [{ id: "tenant" }] }, { users: [{ id: "u-ben" }, { id: "u-gus" }] }] })
    for (const word of ["zqtenantwide", "zqrestricted"]) await eventually(() => finds(users.ann, word), Boolean, `${word} searchable`, 90_000)
    await eventually(() => finds(users.ben, "zqnestedand"), Boolean, "zqnestedand searchable", 90_000)
  })
  afterAll(async () => {
    await server?.dispose()
  })

  it("an organization-wide principal admits its member users, never a guest in a group", async () => {
    expect(await finds(users.ann, "zqtenantwide")).toBe(true)
    expect(await finds(users.ben, "zqtenantwide")).toBe(true)
    expect(await finds(users.gus, "zqtenantwide")).toBe(false)
    const principals = (await admin.call("GET", "/api/admin/source-principals")).body as Array<{ nativePrincipalId: string; kind: string }>
    expect(principals.find((p) => p.nativePrincipalId === "tenant")?.kind).toBe("SOURCE_ORGANIZATION")
  })

  it("an intersection admits only who matches every set, in search and in explain", async () => {
    expect([await finds(users.ann, "zqrestricted"), await finds(users.ben, "zqrestricted"), await finds(users.gus, "zqrestricted")]).toEqual([true, false, false])
    // everyone AND tenant AND (ben or gus): ben only (gus is not in the tenant, ann not in the last set).
    expect([await finds(users.ann, "zqnestedand"), await finds(users.ben, "zqnestedand"), await finds(users.gus, "zqnestedand")]).toEqual([false, true, false])
    const explain = async (who: { id: string }, externalId: string) =>
      (await admin.call("POST", "/api/admin/access/explain", { userId: who.id, resourceType: "KNOWLEDGE_ASSET", resourceId: assets[externalId] })).body
    expect(await explain(users.ann, "restricted")).toMatchObject({ state: "ALLOWED" })
    const denied = await explain(users.ben, "restricted")
    expect(denied).toMatchObject({ state: "DENIED", reasonCode: "SOURCE_ACL_DENIED" })
    expect(denied.blockedBy[0].detail).toContain("every restriction")
    // The catalog obeys the same predicate.
    const listed = async (who: Client) => ((await who.call("GET", "/api/sources?pageSize=100")).body.items as Array<{ knowledgeAssetId: string }>).map((s) => s.knowledgeAssetId)
    expect(await listed(users.ben)).not.toContain(assets.restricted)
    expect(await listed(users.ann)).toContain(assets.restricted)
  })

  it("an ACL change alone is REMATERIALIZED, and an unchanged group leaves the authorization generation alone", async () => {
    const again = await put("restricted", "zqrestricted", { groups: [{ id: "everyone" }], requireAlso: [{ users: [{ id: "u-ben" }] }] })
    expect(again.outcome).toBe("REMATERIALIZED")
    expect(await finds(users.ben, "zqrestricted")).toBe(true)
    expect(await finds(users.ann, "zqrestricted")).toBe(false)
    const before = await generation()
    expect((await push("PUT", "/api/indexing/PUSH/org/groups/everyone", { members: { users: [{ id: "u-ann" }, { id: "u-ben" }, { id: "u-gus" }] } })).status).toBe(200)
    expect(await generation()).toBe(before)
    expect((await push("PUT", "/api/indexing/PUSH/org/groups/everyone", { members: { users: [{ id: "u-ann" }, { id: "u-ben" }] } })).status).toBe(200)
    expect(await generation()).toBeGreaterThan(before)
  })
})
