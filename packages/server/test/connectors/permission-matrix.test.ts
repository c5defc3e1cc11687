import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chat, citationsOf } from "../assistant/support"
import { explore, names } from "../graph/support"
import { type EmbeddingProvider, startEmbeddingProvider } from "../support/embeddingProvider"
import { http, type Reply } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"
import { client, type Client, eventually, listAll, search, userClient } from "../knowledge/support"

/**
 * The permission matrix of connector documents (issue 16): users × documents with a user ACL, a nested group
 * ACL, an unmapped principal, an untrusted connection (even with a manual mapping) and a revoked IDP_JOIN mapping.
 * Every read path is asked for every pair: search, catalog, the sources list and a source's metadata and bytes,
 * citations (excerpt and content), the assistant's chat, and the knowledge graph. A document reaches exactly the
 * users the matrix allows, the administrator included in "not allowed". An ACL-only change is applied without a
 * single embedding call, and no credential appears in any response or log line.
 */

const HR_SECRET = "hr-push-secret-0123456789abcdefXYZ"
const EXT_SECRET = "ext-push-secret-0123456789abcdefXYZ"
const USERS = ["ann", "ben", "eve", "fay", "dan"] as const
type UserName = (typeof USERS)[number]

interface MatrixDocument {
  readonly externalId: string
  readonly connection: "hr" | "ext"
  /** A word only this document has, to search and chat for. */
  readonly word: string
  /** A person only this document names, for the graph. */
  readonly person: string
  readonly acl: { users?: Array<{ id: string; email?: string }>; groups?: Array<{ id: string }> }
  /** Who may read it once the setup below is done. */
  readonly readers: ReadonlyArray<UserName>
}

const documents: ReadonlyArray<MatrixDocument> = [
  { externalId: "user-acl", connection: "hr", word: "zqamberlight", person: "Ingrid Berg", acl: { users: [{ id: "u-ann", email: "ann@example.com" }] }, readers: ["ann"] },
  { externalId: "group-acl", connection: "hr", word: "zqbluefinch", person: "Tomas Varga", acl: { groups: [{ id: "g-division" }] }, readers: ["ben"] },
  { externalId: "unmapped", connection: "hr", word: "zqcopperleaf", person: "Helga Lund", acl: { users: [{ id: "u-ghost", email: "ghost@elsewhere.example" }] }, readers: [] },
  { externalId: "revoked", connection: "hr", word: "zqdunesong", person: "Pavel Novak", acl: { users: [{ id: "u-eve", email: "eve@example.com" }] }, readers: [] },
  { externalId: "untrusted", connection: "ext", word: "zqemberfall", person: "Marta Costa", acl: { users: [{ id: "u-fay", email: "fay@example.com" }] }, readers: [] }
]

const content = (d: MatrixDocument) =>
  `# Record ${d.word}\n\n${d.person} travelled to Reykjavik for the ${d.word} review. The ${d.word} review covers the budget, the ` +
  `schedule and the people involved, and ${d.person} signed the ${d.word} report at the end of the week.`

describe("the permission matrix of connector documents", { timeout: 300_000 }, () => {
  let server: TestServer
  let provider: EmbeddingProvider
  let admin: Client
  let spaceId: string
  const users = {} as Record<UserName, Client & { id: string }>
  const ids = {} as Record<string, { assetId: string; sourceId: string; citationId?: string }>
  const responses: Array<string> = []
  const logged: Array<string> = []
  const restore: Array<() => void> = []

  /** Every response body a test sees is kept, to check that no credential is ever echoed. */
  const recorded = (call: (method: string, path: string, body?: unknown) => Promise<Reply>) =>
    async (method: string, path: string, body?: unknown) => {
      const reply = await call(method, path, body)
      responses.push(typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body) ?? "")
      return reply
    }
  const pusher = (connection: "hr" | "ext") => recorded(http(server.url, connection === "hr" ? HR_SECRET : EXT_SECRET))
  /** Whether a search for the document's word returns that document (hybrid search also returns near neighbours). */
  const finds = async (who: Client, d: MatrixDocument) => (await search(who, d.word)).some((e) => e.knowledgeAssetId === ids[d.externalId]!.assetId)
  const push = (d: MatrixDocument, acl = d.acl) =>
    pusher(d.connection)("PUT", `/api/indexing/PUSH/${d.connection}/documents/${d.externalId}`, { title: `Record ${d.word}`, content: content(d), classification: "INTERNAL", acl })

  beforeAll(async () => {
    // Log lines of the in-process server, at debug level, kept (not echoed) to search for credentials.
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream)
      stream.write = ((chunk: unknown, ...rest: Array<unknown>) => {
        logged.push(String(chunk))
        const callback = rest.find((arg) => typeof arg === "function") as (() => void) | undefined
        callback?.()
        return true
      }) as typeof stream.write
      restore.push(() => (stream.write = write))
    }
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      const original = console[method]
      console[method] = (...args: Array<unknown>) => void logged.push(args.map(String).join(" "))
      restore.push(() => (console[method] = original))
    }
    provider = await startEmbeddingProvider({ dimensions: 64 })
    server = await startTestServer({
      logLevel: "debug",
      embedding: { url: provider.url, model: "loopback-embed", dimensions: 64, maxRetries: 1, retryBaseDelayMs: 10, requestTimeoutMs: 5_000 }
    })
    admin = { ...client(server.url, server.adminToken), call: recorded(client(server.url, server.adminToken).call) }
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Matrix" })).body.id
    spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "matrix", name: "Matrix" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    expect((await admin.call("PUT", `/api/knowledge-spaces/${spaceId}/graph/settings`, { indexingEnabled: true })).status).toBe(200)
    for (const name of USERS) {
      const user = await userClient(admin.call, server.url, { email: `${name}@example.com`, departmentId })
      users[name] = { ...user, call: recorded(user.call) }
    }

    for (const [key, trust, secret] of [["hr", "TRUSTED", HR_SECRET], ["ext", "UNTRUSTED", EXT_SECRET]] as const) {
      expect((await admin.call("PUT", `/api/admin/connectors/PUSH/${key}`, { knowledgeSpaceId: spaceId, sourceConfig: {}, identityTrust: trust })).status).toBe(200)
      expect((await admin.call("PUT", `/api/admin/connectors/PUSH/${key}/credential`, { credential: secret })).status).toBe(204)
    }
    // Nested groups: ben is in the team, the team is in the division the document allows.
    expect((await pusher("hr")("PUT", "/api/indexing/PUSH/hr/groups/g-division", { displayName: "Division", members: { groups: [{ id: "g-team" }] } })).status).toBe(200)
    expect((await pusher("hr")("PUT", "/api/indexing/PUSH/hr/groups/g-team", { displayName: "Team", members: { users: [{ id: "u-ben", email: "ben@example.com" }] } })).status).toBe(200)
    for (const d of documents) {
      const reply = await push(d)
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      ids[d.externalId] = { assetId: reply.body.knowledgeAssetId, sourceId: reply.body.sourceId }
    }
    // fay is mapped by hand on the untrusted connection: an untrusted connection grants nothing all the same.
    const fay = ((await admin.call("GET", "/api/admin/source-principals")).body as Array<any>).find((p) => p.nativePrincipalId === "u-fay")
    expect((await admin.call("PUT", `/api/admin/source-principals/${fay.id}/mapping`, { appUserId: users.fay.id })).body.mapping.status).toBe("ACTIVE")
    // eve joined by email, then the source reports another email for her principal: the join is revoked.
    const revoked = documents.find((d) => d.externalId === "revoked")!
    await eventually(() => finds(users.eve, revoked), Boolean, "eve reads her document while the join holds")
    // The ACL names the same principal (UNCHANGED), but what the source says of it no longer supports the join.
    expect((await push(revoked, { users: [{ id: "u-eve", email: "eve.moved@elsewhere.example" }] })).body.outcome).toBe("UNCHANGED")
    const eve = ((await admin.call("GET", "/api/admin/source-principals")).body as Array<any>).find((p) => p.nativePrincipalId === "u-eve")
    expect(eve.mapping).toMatchObject({ method: "IDP_JOIN", status: "REVOKED", appUserId: users.eve.id })

    // Everything readable is READY, cited and graph-indexed before the matrix is asked.
    for (const d of documents.filter((d) => d.readers.length > 0)) {
      const reader = users[d.readers[0]!]
      const hits = await eventually(() => search(reader, d.word), (found) => found.some((e) => e.knowledgeAssetId === ids[d.externalId]!.assetId), `${d.externalId} searchable`, 60_000)
      ids[d.externalId]!.citationId = hits.find((e) => e.knowledgeAssetId === ids[d.externalId]!.assetId)!.citationId
      await eventually(async () => names(await explore(reader, spaceId, { q: "", maxDepth: 0, entityLimit: 200 })), (all) => all.includes(d.person), `${d.person} in the graph`, 60_000)
    }
    // The unreadable ones are READY too (their absence below is access, not timing): the pusher's view says so.
    for (const d of documents) {
      await eventually(async () => (await pusher(d.connection)("GET", `/api/indexing/PUSH/${d.connection}/documents`)).body.items.map((i: any) => i.externalId),
        (listed: Array<string>) => listed.includes(d.externalId), `${d.externalId} listed`)
    }
    await eventually(async () => (await admin.call("GET", "/api/admin/connectors/PUSH/hr/activity")).body.objectsActive, (n) => n === 4, "hr documents")
  })

  afterAll(async () => {
    for (const undo of restore) undo()
    await server?.dispose()
    await provider?.close()
  })

  const everyone = () => [...USERS.map((name) => [name, users[name]] as const), ["admin", admin] as const]

  it("search, catalog and the sources list show each document to exactly its readers", async () => {
    for (const [name, who] of everyone()) {
      const catalog = ((await who.call("GET", `/api/knowledge/catalog?knowledgeSpaceId=${spaceId}`)).body as Array<any>).map((e) => e.knowledgeAssetId)
      const listed = (await listAll(who)).items.map((s) => s.id)
      for (const d of documents) {
        const allowed = d.readers.includes(name as UserName)
        const what = `${name} × ${d.externalId}`
        expect(await finds(who, d), `${what}: search`).toBe(allowed)
        expect(catalog.includes(ids[d.externalId]!.assetId), `${what}: catalog`).toBe(allowed)
        expect(listed.includes(ids[d.externalId]!.sourceId), `${what}: sources list`).toBe(allowed)
      }
    }
  })

  it("a source's metadata, its bytes and its citations open only for its readers", async () => {
    for (const [name, who] of everyone()) {
      for (const d of documents) {
        const allowed = d.readers.includes(name as UserName)
        const what = `${name} × ${d.externalId}`
        const { sourceId, citationId } = ids[d.externalId]!
        expect((await who.call("GET", `/api/sources/${sourceId}`)).status, `${what}: source`).toBe(allowed ? 200 : 404)
        expect((await fetch(`${server.url}/api/sources/${sourceId}/content`, { headers: { authorization: `Bearer ${who.token}` } })).status, `${what}: content`).toBe(allowed ? 200 : 404)
        if (citationId) {
          expect((await who.call("GET", `/api/citations/${citationId}/excerpt`)).status, `${what}: excerpt`).toBe(allowed ? 200 : 404)
          const bytes = await fetch(`${server.url}/api/citations/${citationId}/content`, { headers: { authorization: `Bearer ${who.token}` } })
          expect(bytes.status, `${what}: citation content`).toBe(allowed ? 200 : 404)
        }
      }
    }
  })

  it("the assistant cites a document only to its readers, and never quotes it to anyone else", async () => {
    for (const [name, who] of everyone()) {
      for (const d of documents) {
        const allowed = d.readers.includes(name as UserName)
        const reply = await chat(who, { message: `What does the ${d.word} review say about ${d.person}?` })
        expect(reply.status, reply.raw).toBe(200)
        const cited = citationsOf(reply.chunks).some((c) => c.sourceId === ids[d.externalId]!.sourceId)
        expect(cited, `${name} × ${d.externalId}: chat citation`).toBe(allowed)
        if (!allowed) expect(reply.raw, `${name} × ${d.externalId}: chat text`).not.toContain(`${d.person} signed the ${d.word}`)
      }
    }
  })

  it("the knowledge graph shows a document's entities only to its readers", async () => {
    for (const [name, who] of everyone()) {
      const seen = names(await explore(who, spaceId, { q: "", maxDepth: 0, entityLimit: 200 }))
      for (const d of documents) expect(seen.includes(d.person), `${name} × ${d.externalId}: graph`).toBe(d.readers.includes(name as UserName))
    }
  })

  it("an ACL-only change is applied at once without parsing or embedding again", async () => {
    const d = documents.find((d) => d.externalId === "unmapped")!
    // Queries are embedded too (hybrid search): count the requests that embed this document's passages.
    const documentEmbeddings = () => provider.requests.filter((r) => JSON.stringify(r.body?.input ?? "").includes(`${d.person} signed the`)).length
    const embeddingsBefore = documentEmbeddings()
    expect(embeddingsBefore).toBeGreaterThan(0)
    const reply = await push(d, { users: [{ id: "u-dan", email: "dan@example.com" }] })
    expect(reply.body).toMatchObject({ outcome: "REMATERIALIZED", sourceId: ids.unmapped!.sourceId })
    expect(await finds(users.dan, d)).toBe(true)
    expect(await finds(users.ann, d)).toBe(false)
    // Give a (wrong) re-ingestion time to show itself: no embedding request may follow.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(documentEmbeddings()).toBe(embeddingsBefore)
    const source = (await users.dan.call("GET", `/api/sources/${ids.unmapped!.sourceId}`)).body
    expect(source).toMatchObject({ status: "READY", aclAuthority: "SOURCE" })
  })

  it("never shows a connection's credential in a response or a log line", async () => {
    expect(responses.length).toBeGreaterThan(50)
    expect(logged.length).toBeGreaterThan(0)
    for (const secret of [HR_SECRET, EXT_SECRET]) {
      expect(responses.filter((body) => body.includes(secret))).toEqual([])
      expect(logged.filter((line) => line.includes(secret))).toEqual([])
    }
  })
})
