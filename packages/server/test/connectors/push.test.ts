import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { http, type Reply } from "../support/http"
import { backends, client, type Client, eventually, listAll, search, userClient } from "../knowledge/support"

/**
 * Connectors, first slice (issue 16): the PUSH kind end to end over real HTTP. A pusher authenticates with the
 * connection's credential and puts documents with source ACLs; only users mapped (on a TRUSTED connection) to
 * an allowed principal, directly or through nested source groups, find them; mapping, trust and ACL changes
 * take effect at once; an ACL-only change re-materializes without a new version; a delete retires.
 */

const SECRET = "push-secret-0123456789abcdefXYZ"
const OTHER_SECRET = "wiki-secret-0123456789abcdefXYZ"

const doc = (word: string, acl: { users?: Array<Record<string, string>>; groups?: Array<Record<string, string>> }, extra: Record<string, unknown> = {}) => ({
  title: `Document ${word}`,
  content: `# Document ${word}\n\nThe record ${word} is described here in enough words to be indexed and found by search.`,
  classification: "INTERNAL",
  acl,
  ...extra
})

describe.each(backends)("the PUSH connector on $name", { timeout: 240_000 }, (backend) => {
  let server: Awaited<ReturnType<(typeof backends)[number]["start"]>>
  let admin: Client
  let spaceId: string
  const users: Record<string, Client & { id: string }> = {}
  let pusher: ReturnType<typeof http>
  const push = (externalId: string, body: unknown, connection = "crm") => pusher("PUT", `/api/indexing/PUSH/${connection}/documents/${encodeURIComponent(externalId)}`, body)
  const finds = async (who: Client, word: string) => (await search(who, word)).length > 0
  const principalId = async (connection: string, nativeId: string) => {
    const list = (await admin.call("GET", "/api/admin/source-principals")).body as Array<Record<string, any>>
    return list.find((p) => p.sourceConnectionKey === connection && p.nativePrincipalId === nativeId)!
  }

  beforeAll(async () => {
    server = await backend.start()
    admin = client(server.url, server.adminToken)
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Sales" })).body.id
    spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "crm", name: "CRM" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    for (const name of ["alice", "bob", "carol", "dave"]) users[name] = await userClient(admin.call, server.url, { email: `${name}@example.com`, departmentId })
    pusher = http(server.url, SECRET)
  })
  afterAll(async () => {
    await server?.dispose()
  })

  it("lists the kinds and validates a connection's config with 422 field errors", async () => {
    const kinds = await admin.call("GET", "/api/admin/connectors/sources")
    expect(kinds.status).toBe(200)
    expect(kinds.body.map((k: any) => k.sourceSystem)).toContain("PUSH")
    expect((await admin.call("GET", "/api/admin/connectors/NOPE")).body.code).toBe("CONNECTOR_KIND_NOT_FOUND")
    expect((await users.dave!.call("GET", "/api/admin/connectors/sources")).status).toBe(403)

    const invalid = await admin.call("PUT", "/api/admin/connectors/PUSH/crm", { knowledgeSpaceId: spaceId, sourceConfig: { bogus: 1 } })
    expect(invalid.status, JSON.stringify(invalid.body)).toBe(422)
    expect(invalid.body.code).toBe("INVALID_CONNECTOR_CONFIG")
    expect(invalid.body.errors.map((e: any) => e.path)).toEqual(["sourceConfig.bogus"])
    expect((await admin.call("PUT", "/api/admin/connectors/PUSH/test", { knowledgeSpaceId: spaceId, sourceConfig: {} })).body.code).toBe("RESERVED_CONNECTION_KEY")
    expect((await admin.call("PUT", "/api/admin/connectors/PUSH/sources", { knowledgeSpaceId: spaceId, sourceConfig: {} })).status).toBeGreaterThanOrEqual(400)

    const saved = await admin.call("PUT", "/api/admin/connectors/PUSH/crm", { knowledgeSpaceId: spaceId, sourceConfig: { description: "CRM notes" }, identityTrust: "TRUSTED" })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect(saved.body).toMatchObject({ sourceSystem: "PUSH", sourceConnectionKey: "crm", identityTrust: "TRUSTED", credentialSet: false, knowledgeSpaceId: spaceId })
    const wiki = await admin.call("PUT", "/api/admin/connectors/PUSH/wiki", { knowledgeSpaceId: spaceId, sourceConfig: {} })
    expect(wiki.body.identityTrust).toBe("UNTRUSTED")
  })

  it("keeps the credential write-only: never echoed, not even in a validation error", async () => {
    const weak = await admin.call("PUT", "/api/admin/connectors/PUSH/crm/credential", { credential: "hunter2-weak" })
    expect(weak.status).toBe(422)
    expect(weak.body.code).toBe("INVALID_CONNECTOR_CREDENTIAL")
    expect(JSON.stringify(weak.body)).not.toContain("hunter2-weak")
    const wrongType = await admin.call("PUT", "/api/admin/connectors/PUSH/crm/credential", { credential: { token: "hunter3-object-secret" } })
    expect(wrongType.status).toBe(422)
    expect(JSON.stringify(wrongType.body)).not.toContain("hunter3-object-secret")

    expect((await admin.call("PUT", "/api/admin/connectors/PUSH/crm/credential", { credential: SECRET })).status).toBe(204)
    expect((await admin.call("PUT", "/api/admin/connectors/PUSH/wiki/credential", { credential: OTHER_SECRET })).status).toBe(204)
    const configs = await admin.call("GET", "/api/admin/connectors/PUSH")
    expect(JSON.stringify(configs.body)).not.toContain(SECRET)
    expect(configs.body.find((c: any) => c.sourceConnectionKey === "crm")).toMatchObject({ credentialSet: true, credentialSetAt: expect.any(String) })

    const tested = await admin.call("POST", "/api/admin/connectors/PUSH/crm/test")
    expect(tested.body).toMatchObject({ authenticated: true, canReadContent: true, errorCode: null })
    expect(JSON.stringify(tested.body)).not.toContain(SECRET)
    const unsaved = await admin.call("POST", "/api/admin/connectors/PUSH/test", { knowledgeSpaceId: spaceId, sourceConfig: {}, credential: "short-secret-x" })
    expect(unsaved.status).toBe(200)
    expect(unsaved.body).toMatchObject({ authenticated: false, errorCode: "CREDENTIAL_INVALID" })
    expect(JSON.stringify(unsaved.body)).not.toContain("short-secret-x")
    const unsavedBad = await admin.call("POST", "/api/admin/connectors/PUSH/test", { knowledgeSpaceId: spaceId, sourceConfig: { nope: true }, credential: "another-secret-value-123456789" })
    expect(unsavedBad.status).toBe(422)
    expect(JSON.stringify(unsavedBad.body)).not.toContain("another-secret-value-123456789")

    const scopes = await admin.call("GET", "/api/admin/connectors/PUSH/crm/scopes")
    expect(scopes.body).toEqual([expect.objectContaining({ key: "documents", reachable: true, admissible: true })])
  })

  it("refuses a pusher without this connection's credential", async () => {
    expect((await http(server.url)("PUT", "/api/indexing/PUSH/crm/documents/x", doc("zqnone", {}))).status).toBe(401)
    expect((await http(server.url, "wrong-secret-0123456789abcdef")("PUT", "/api/indexing/PUSH/crm/documents/x", doc("zqnone", {}))).status).toBe(401)
    // The wiki's credential does not open the crm connection.
    expect((await http(server.url, OTHER_SECRET)("PUT", "/api/indexing/PUSH/crm/documents/x", doc("zqnone", {}))).status).toBe(401)
    expect((await http(server.url, server.adminToken)("PUT", "/api/indexing/PUSH/crm/documents/x", doc("zqnone", {}))).status).toBe(401)
  })

  it("admits only users mapped to an allowed principal, directly or through nested groups", async () => {
    const outer = await pusher("PUT", "/api/indexing/PUSH/crm/groups/g-outer", { displayName: "Outer", members: { groups: [{ id: "g-inner" }] } })
    expect(outer.status, JSON.stringify(outer.body)).toBe(200)
    const inner = await pusher("PUT", "/api/indexing/PUSH/crm/groups/g-inner", { displayName: "Inner", members: { users: [{ id: "u-bob", email: "bob@example.com" }] } })
    expect(inner.status, JSON.stringify(inner.body)).toBe(200)
    expect(inner.body.members).toEqual([expect.objectContaining({ nativePrincipalId: "u-bob", appUserId: users.bob!.id })])

    const first = await push("doc-alice", doc("zqalicerecord", { users: [{ id: "u-alice", email: "alice@example.com" }] }))
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.outcome).toBe("MATERIALIZED")
    expect((await push("doc-group", doc("zqgrouprecord", { groups: [{ id: "g-outer" }] }))).body.outcome).toBe("MATERIALIZED")
    expect((await push("doc-carol", doc("zqcarolrecord", { users: [{ id: "u-carol" }] }))).body.outcome).toBe("MATERIALIZED")
    // The same document again changes nothing.
    expect((await push("doc-alice", doc("zqalicerecord", { users: [{ id: "u-alice", email: "alice@example.com" }] }))).body.outcome).toBe("UNCHANGED")

    await eventually(() => finds(users.alice!, "zqalicerecord"), Boolean, "alice finds her document")
    await eventually(() => finds(users.bob!, "zqgrouprecord"), Boolean, "bob finds the group's document through nested groups")
    expect(await finds(users.bob!, "zqalicerecord")).toBe(false)
    expect(await finds(users.alice!, "zqgrouprecord")).toBe(false)
    expect(await finds(users.dave!, "zqalicerecord")).toBe(false)
    expect(await finds(users.dave!, "zqgrouprecord")).toBe(false)
    // Fail closed for everyone without a mapping, the administrator included.
    expect(await finds(admin, "zqalicerecord")).toBe(false)

    const listed = await listAll(users.alice!)
    const source = listed.items.find((s) => s.title === "Document zqalicerecord")
    expect(source).toMatchObject({ sourceSystem: "PUSH", aclAuthority: "SOURCE", status: "READY" })
    expect(listed.total).toBe(listed.items.length)
    expect((await listAll(users.dave!)).items.find((s) => s.title === "Document zqalicerecord")).toBeUndefined()
    expect((await users.dave!.call("GET", `/api/sources/${source!.id}`)).status).toBe(404)

    // The explanation agrees, branch by branch.
    const explain = (userId: string, resourceId: string) => admin.call("POST", "/api/admin/access/explain", { userId, resourceType: "SOURCE", resourceId })
    const allowed = await explain(users.alice!.id, source!.id)
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200)
    expect(allowed.body.state).toBe("ALLOWED")
    const denied = await explain(users.dave!.id, source!.id)
    expect(denied.body.state).toBe("DENIED")
    expect(denied.body.blockedBy[0]).toMatchObject({ branch: "SOURCE_ACL" })
    expect(allowed.body.path.slice(2)).toMatchObject([
      { objectType: "SOURCE_USER", relation: "mapped_user", kind: "MAPPING_IDP_JOIN", objectLabel: expect.stringContaining("u-alice") },
      { object: `source:${source!.id}`, relation: "reader", kind: "SOURCE_ACL" }
    ])
    // Through nested groups, the whole chain: bob's principal, the inner group, the outer group the ACL allows.
    const groupSource = (await listAll(users.bob!)).items.find((s) => s.title === "Document zqgrouprecord")!
    const throughGroups = await explain(users.bob!.id, groupSource.id)
    expect(throughGroups.body.state).toBe("ALLOWED")
    expect(throughGroups.body.path.slice(2).map((step: any) => [step.objectType, step.kind, step.objectLabel])).toEqual([
      ["SOURCE_USER", "MAPPING_IDP_JOIN", "PUSH/crm: u-bob (u-bob)"],
      ["SOURCE_GROUP", "SOURCE_GROUP_MEMBERSHIP", "PUSH/crm: Inner (g-inner)"],
      ["SOURCE_GROUP", "SOURCE_GROUP_MEMBERSHIP", "PUSH/crm: Outer (g-outer)"],
      ["SOURCE", "SOURCE_ACL", undefined]
    ])
  })

  it("a manual mapping grants at once; unmapping takes it back", async () => {
    await eventually(() => listAll(users.alice!), (l) => l.statusCounts.processing === 0, "ingestion settles")
    expect(await finds(users.carol!, "zqcarolrecord")).toBe(false)
    const carol = await principalId("crm", "u-carol")
    expect(carol.mapping).toBeNull()
    const mapped = await admin.call("PUT", `/api/admin/source-principals/${carol.id}/mapping`, { appUserId: users.carol!.id })
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(200)
    expect(mapped.body.mapping).toMatchObject({ appUserId: users.carol!.id, method: "MANUAL", status: "ACTIVE" })
    await eventually(() => finds(users.carol!, "zqcarolrecord"), Boolean, "carol finds her document once mapped")
    // AdminUser.mappedPrincipalCount counts the ACTIVE mappings to the user (issue 33.9).
    const mappedCount = async (userId: string) => {
      const listed = (await admin.call("GET", "/api/admin/users")).body
      return (Array.isArray(listed) ? listed : listed.items).find((u: any) => u.id === userId).mappedPrincipalCount
    }
    expect(await mappedCount(users.carol!.id)).toBe(1)
    const unmapped = await admin.call("DELETE", `/api/admin/source-principals/${carol.id}/mapping`)
    expect(unmapped.status).toBe(200)
    expect(unmapped.body.mapping).toBeNull()
    expect(await mappedCount(users.carol!.id)).toBe(0)
    expect(await finds(users.carol!, "zqcarolrecord")).toBe(false)
    expect((await admin.call("PUT", `/api/admin/source-principals/${carol.id}/mapping`, { appUserId: "00000000-0000-4000-8000-000000000000" })).body.code).toBe("MAPPING_USER_NOT_FOUND")
    expect((await admin.call("DELETE", "/api/admin/source-principals/00000000-0000-4000-8000-000000000000/mapping")).status).toBe(404)

    const alice = await principalId("crm", "u-alice")
    expect(alice.mapping).toMatchObject({ appUserId: users.alice!.id, method: "IDP_JOIN", status: "ACTIVE" })
  })

  it("an untrusted connection grants nothing, and distrusting a connection takes effect at once", async () => {
    const wiki = http(server.url, OTHER_SECRET)
    expect((await wiki("PUT", "/api/indexing/PUSH/wiki/documents/w1", doc("zqwikirecord", { users: [{ id: "u-alice", email: "alice@example.com" }] }))).status).toBe(200)
    expect((await principalId("wiki", "u-alice")).mapping).toBeNull()
    // Ingestion of the wiki document finishes unseen: wait on the crm documents as a proxy, then check twice.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(await finds(users.alice!, "zqwikirecord")).toBe(false)

    const distrusted = await admin.call("PUT", "/api/admin/source-connections/identity-trust", { sourceSystem: "PUSH", sourceConnectionKey: "crm", identityTrust: "UNTRUSTED" })
    expect(distrusted.status, JSON.stringify(distrusted.body)).toBe(200)
    expect(distrusted.body).toMatchObject({ identityTrust: "UNTRUSTED", trustDecidedByUserId: expect.any(String) })
    expect(await finds(users.alice!, "zqalicerecord")).toBe(false)
    expect(await finds(users.bob!, "zqgrouprecord")).toBe(false)
    expect((await admin.call("PUT", "/api/admin/source-connections/identity-trust", { sourceSystem: "PUSH", sourceConnectionKey: "crm", identityTrust: "TRUSTED" })).status).toBe(200)
    expect(await finds(users.alice!, "zqalicerecord")).toBe(true)

    // Trusting the wiki joins alice by email there too.
    expect((await admin.call("PUT", "/api/admin/source-connections/identity-trust", { sourceSystem: "PUSH", sourceConnectionKey: "wiki", identityTrust: "TRUSTED" })).status).toBe(200)
    expect((await principalId("wiki", "u-alice")).mapping).toMatchObject({ method: "IDP_JOIN" })
    await eventually(() => finds(users.alice!, "zqwikirecord"), Boolean, "alice finds the wiki document once the wiki is trusted")

    const connections = (await admin.call("GET", "/api/admin/source-connections")).body as Array<Record<string, any>>
    expect(connections.find((c) => c.sourceConnectionKey === "crm")).toMatchObject({ identityTrust: "TRUSTED", userCount: 3, mappedUserCount: 2, unmappedUserCount: 1, groupCount: 2 })
    const groups = (await admin.call("GET", "/api/admin/source-groups")).body as Array<Record<string, any>>
    const outer = groups.find((g) => g.nativePrincipalId === "g-outer")!
    expect(outer).toMatchObject({ sourceConnectionKey: "crm", membershipGeneration: 1, members: [expect.objectContaining({ nativePrincipalId: "g-inner", kind: "SOURCE_GROUP" })] })
  })

  it("an ACL-only change re-materializes without a new version, and takes effect at once", async () => {
    const before = (await listAll(users.alice!)).items.find((s) => s.title === "Document zqalicerecord")!
    const changed = await push("doc-alice", doc("zqalicerecord", { users: [{ id: "u-bob", email: "bob@example.com" }] }))
    expect(changed.body.outcome).toBe("REMATERIALIZED")
    expect(changed.body.sourceId).toBe(before.id)
    expect(await finds(users.alice!, "zqalicerecord")).toBe(false)
    expect(await finds(users.bob!, "zqalicerecord")).toBe(true)
    const after = (await listAll(users.bob!)).items.find((s) => s.title === "Document zqalicerecord")!
    expect(after).toMatchObject({ id: before.id, versionNumber: before.versionNumber, status: "READY", chunkCount: before.chunkCount })

    // A membership change: bob leaves the inner group, so the group's document is gone for him at once.
    expect((await pusher("PUT", "/api/indexing/PUSH/crm/groups/g-inner", { members: { users: [{ id: "u-dave", email: "dave@example.com" }] } })).status).toBe(200)
    expect(await finds(users.bob!, "zqgrouprecord")).toBe(false)
    expect(await finds(users.dave!, "zqgrouprecord")).toBe(true)
    const inner = ((await admin.call("GET", "/api/admin/source-groups")).body as Array<Record<string, any>>).find((g) => g.nativePrincipalId === "g-inner")!
    expect(inner.membershipGeneration).toBe(2)
  })

  it("a new version of the content is ingested again; a delete retires the document", async () => {
    const rotated = await push("doc-alice", doc("zqalicerecord", { users: [{ id: "u-bob" }] }, { content: "# Document\n\nThe record zqrotatedrecord replaced the old text of this document entirely." }))
    expect(rotated.body.outcome).toBe("ROTATED")
    await eventually(() => finds(users.bob!, "zqrotatedrecord"), Boolean, "bob finds the new content")

    const deleted = await pusher("DELETE", "/api/indexing/PUSH/crm/documents/doc-alice")
    expect(deleted.status).toBe(204)
    expect(await finds(users.bob!, "zqrotatedrecord")).toBe(false)
    expect((await listAll(users.bob!)).items.find((s) => s.title === "Document zqalicerecord")).toBeUndefined()
    // Deleting again is a no-op.
    expect((await pusher("DELETE", "/api/indexing/PUSH/crm/documents/doc-alice")).status).toBe(204)
  })

  it("pushes in bulk, each document on its own", async () => {
    const reply = await pusher("POST", "/api/indexing/PUSH/crm/documents:bulk", {
      documents: [
        { externalId: "bulk-1", ...doc("zqbulkone", { users: [{ id: "u-bob" }] }) },
        { externalId: "bulk-2", ...doc("zqbulktwo", { users: [{ id: "u-bob" }] }) },
        { externalId: "bulk-empty", ...doc("zqbulkempty", {}, { content: "" }) },
        // Not BulkPushedDocuments: each is reported on its own (issue 33.12), the batch is not refused.
        { externalId: "bulk-untitled", content: "zqbulkuntitled", acl: {} },
        { externalId: "bulk-extra", ...doc("zqbulkextra", {}), bogus: "secret-value-zq" },
        "not a document",
        { externalId: "x".repeat(1000), ...doc("zqbulklong", {}) }
      ],
      deletes: ["doc-carol", "never-pushed"]
    })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.results.map((r: any) => `${r.externalId}:${r.outcome}`)).toEqual(["bulk-1:MATERIALIZED", "bulk-2:MATERIALIZED", "doc-carol:RETIRED", "never-pushed:NOT_FOUND"])
    expect(reply.body.failed.map((f: any) => [f.externalId?.slice(0, 20) ?? null, f.code])).toEqual([
      ["bulk-empty", "INVALID_PUSHED_DOCUMENT"],
      ["bulk-untitled", "INVALID_PUSHED_DOCUMENT"],
      ["bulk-extra", "INVALID_PUSHED_DOCUMENT"],
      [null, "INVALID_PUSHED_DOCUMENT"],
      ["x".repeat(20), "INVALID_PUSHED_DOCUMENT"]
    ])
    expect(reply.body.failed[1].errors).toEqual([expect.objectContaining({ path: "title" })])
    expect(reply.body.failed[2].errors).toEqual([expect.objectContaining({ path: "bogus" })])
    expect(reply.body.failed[4].errors).toEqual([expect.objectContaining({ path: "externalId" })])
    // Caller input is quoted, at most 200 bytes, and never a rejected field's value.
    expect(Buffer.byteLength(reply.body.failed[4].externalId)).toBeLessThan(260)
    expect(JSON.stringify(reply.body)).not.toContain("secret-value-zq")
    // The batch itself is still bounded: more than 500 documents is refused whole.
    const tooMany = await pusher("POST", "/api/indexing/PUSH/crm/documents:bulk", { documents: Array.from({ length: 501 }, () => "x") })
    expect(tooMany.status).toBe(400)
    await eventually(() => finds(users.bob!, "zqbulktwo"), Boolean, "bob finds a bulk document")
    expect((await http(server.url, OTHER_SECRET)("POST", "/api/indexing/PUSH/crm/documents:bulk", { documents: [] })).status).toBe(401)
  })

  it("crawls on the queue one at a time and reports activity", async () => {
    // The bulk push's documents may still be ingesting; a crawl meeting one mid-ingestion counts it failed
    // (the next crawl takes it again), which this test is not about.
    await eventually(() => listAll(users.bob!), (l) => l.statusCounts.processing === 0, "ingestion settles")
    const crawl: Reply = await admin.call("POST", "/api/admin/connectors/PUSH/crm/crawl")
    expect(crawl.status, JSON.stringify(crawl.body)).toBe(202)
    const activity = await eventually(
      () => admin.call("GET", "/api/admin/connectors/PUSH/crm/activity"),
      // Finished, not only started: the content component says IN_PROGRESS while the crawl still runs.
      (r) => r.status === 200 && r.body.lastCrawlAt !== null && r.body.componentCheckpoints?.[0]?.captureStatus !== "IN_PROGRESS",
      "the crawl ran"
    )
    expect(activity.body).toMatchObject({ sourceSystem: "PUSH", sourceConnectionKey: "crm", objectsTotal: 5, objectsActive: 3, objectsArchived: 2 })
    expect(activity.body.recentAttempts.some((a: any) => a.objectsRematerialized === 1)).toBe(true)
    expect(activity.body.recentAttempts.some((a: any) => a.objectsRetired === 1)).toBe(true)
    expect(activity.body.recentAttempts.some((a: any) => a.outcome === "PARTIAL" && a.objectsMaterialized === 2 && a.objectsFailed === 5)).toBe(true)
    const [content] = activity.body.componentCheckpoints
    expect(content).toMatchObject({ component: "content", captureStatus: "COMPLETE", incompleteReason: null, progress: null })
    expect(content.lastSuccessfulAt, JSON.stringify(activity.body.recentAttempts)).not.toBeNull()
  })

  it("lists the connection's live documents a page at a time, for pushers that mirror a folder", async () => {
    const ids: Array<string> = []
    let cursor: string | undefined
    for (let page = 0; page < 10; page++) {
      const reply = await pusher("GET", `/api/indexing/PUSH/crm/documents?limit=2${cursor ? `&cursor=${cursor}` : ""}`)
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      expect(reply.body.items.length).toBeLessThanOrEqual(2)
      ids.push(...reply.body.items.map((item: any) => item.externalId))
      cursor = reply.body.nextCursor ?? undefined
      if (!cursor) break
    }
    // Retired documents are left out; the order is the external ids' byte order.
    expect(ids).toEqual([...ids].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)))
    expect(ids).not.toContain("doc-alice")
    const activity = (await admin.call("GET", "/api/admin/connectors/PUSH/crm/activity")).body
    expect(ids.length).toBe(activity.objectsActive)
    expect((await pusher("GET", "/api/indexing/PUSH/crm/documents?cursor=!!bogus")).body.code).toBe("INVALID_CURSOR")
    expect((await pusher("GET", "/api/indexing/PUSH/crm/documents?limit=0")).status).toBe(400)
    expect((await http(server.url, OTHER_SECRET)("GET", "/api/indexing/PUSH/crm/documents")).status).toBe(401)
  })

  it("deleting a connection retires its documents", async () => {
    expect(await finds(users.alice!, "zqwikirecord")).toBe(true)
    expect((await admin.call("DELETE", "/api/admin/connectors/PUSH/wiki")).status).toBe(204)
    expect(await finds(users.alice!, "zqwikirecord")).toBe(false)
    expect((await admin.call("GET", "/api/admin/connectors/PUSH")).body.map((c: any) => c.sourceConnectionKey)).toEqual(["crm"])
    expect((await admin.call("DELETE", "/api/admin/connectors/PUSH/wiki")).body.code).toBe("CONNECTION_NOT_FOUND")
    // Its credential no longer opens anything.
    expect((await http(server.url, OTHER_SECRET)("PUT", "/api/indexing/PUSH/wiki/documents/w2", doc("zqx", {}))).status).toBe(401)
  })
})
