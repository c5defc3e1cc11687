import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { type Context, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EmbeddingSettings } from "../../src/ai/EmbeddingSettings"
import { Evidence } from "../../src/assistant/evidence/Evidence"
import { appLayer } from "../../src/App"
import { type LoreSettings, Settings } from "../../src/Config"
import type { Principal } from "../../src/domain/Principal"
import { serverUrl } from "../../src/http/Http"
import { createTestDatabase, type TestDatabase } from "../jobs/support"
import { newBootstrapToken } from "../support/server"
import { client, type Client, eventually, expectProblemReply, filler, ingested, userClient } from "../knowledge/support"
import { handbookPdf } from "../knowledge/parsing/fixtures"
import { chat, conversationOf } from "./support"

/**
 * Evidence bound to conversations, end to end over HTTP on the database DATABASE_URL names (PGlite without
 * it): the document becomes a knowledge source of the space (the sources upload's rules), the binding's
 * status follows its ingestion, conversations stay private, and Evidence.passagesFor (what the chat merges
 * into its retrieval) answers the bound passages only while the caller may read them.
 */

type Services = Evidence | SqlClient.SqlClient
let database: TestDatabase
let scope: Scope.CloseableScope
let context: Context.Context<Services>
let admin: Client
let owner: Client & { id: string }
let stranger: Client & { id: string }
let reader: Client & { id: string }
let organizationId: string
let departmentId: string
let spaceId: string
/** A space the owner may read that holds nothing: chats narrowed to it find no general passage. */
let emptySpaceId: string
let ownerConversation: string
let strangerConversation: string
let readerConversation: string

const run = <A, E>(effect: Effect.Effect<A, E, Services>) => Effect.runPromise(Effect.provide(effect, context))
const runExit = <A, E>(effect: Effect.Effect<A, E, Services>) => Effect.runPromiseExit(Effect.provide(effect, context))

/** The principal a request of this user would carry (the evaluator reads department, role and clearance). */
const principalOf = (userId: string, clearance: Principal["clearance"]): Principal => ({
  userId, organizationId, departmentId, departmentName: "Evidence", email: "", name: "", role: "EMPLOYEE", clearance,
  platformRoles: [], credential: { kind: "token", id: "test" }
})

/** POST /api/assistant/evidence as multipart/form-data; `query` is sent as is (so tests can leave parameters out). */
const uploadEvidence = async (who: Client, query: Record<string, string>, name: string, bytes: Uint8Array | string, type = "application/octet-stream") => {
  const form = new FormData()
  const body = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes
  form.append("file", new Blob([body as Uint8Array<ArrayBuffer>], { type }), name)
  const response = await fetch(`${who.url}/api/assistant/evidence?${new URLSearchParams(query)}`, {
    method: "POST", headers: { authorization: `Bearer ${who.token}` }, body: form
  })
  const text = await response.text()
  let parsed: any = text
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = text
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body: parsed }
}

const settled = async (who: Client, conversationId: string, bindingId: string) =>
  (await eventually(
    () => who.call("GET", `/api/assistant/conversations/${conversationId}/evidence/${bindingId}`),
    (reply) => reply.status === 200 && (reply.body.status === "READY" || reply.body.status === "FAILED"),
    `evidence ${bindingId} READY or FAILED`
  )).body as Record<string, any>

const newConversation = async (who: Client, message: string) => {
  const reply = await chat(who, { message })
  expect(reply.status, reply.raw).toBe(200)
  return conversationOf(reply.chunks)
}

const memo = `# Incident 4471 memo

The incident codeword is QUARTZLANTERN and the root cause was an expired certificate. ${filler("incidents", 4)}

## Remediation

Certificates are now renewed thirty days before expiry. ${filler("renewals", 4)}
`

beforeAll(async () => {
  database = await createTestDatabase()
  const adminToken = newBootstrapToken()
  const settings: LoreSettings = {
    ...database.settings,
    port: 0,
    bootstrapToken: Option.some(Redacted.make(adminToken)),
    logLevel: "warning",
    rateLimits: { chat: { perMinute: 600, burst: 50 }, fileUpload: { perMinute: 600, burst: 50 } }
  }
  scope = Effect.runSync(Scope.make())
  context = await Effect.runPromise(Layer.buildWithScope(appLayer(Layer.merge(Layer.succeed(Settings, settings), EmbeddingSettings.layer(undefined))), scope)) as any
  const url = Effect.runSync(Effect.provide(serverUrl, context as unknown as Context.Context<HttpServer.HttpServer>))
  admin = client(url, adminToken)
  organizationId = (await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string }>`SELECT id FROM organizations LIMIT 1`)))[0]!.id
  departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Evidence" })).body.id
  spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "casefiles", name: "Case files" })).body.id
  owner = await userClient(admin.call, url, { email: "owner@example.com", departmentId, clearance: "CONFIDENTIAL" })
  stranger = await userClient(admin.call, url, { email: "stranger@example.com", departmentId, clearance: "CONFIDENTIAL" })
  reader = await userClient(admin.call, url, { email: "reader@example.com", departmentId, clearance: "CONFIDENTIAL" })
  const grant = (relation: string, subjectId: string) =>
    admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation, kind: "USER", subjectId })
  expect((await grant("contributor", owner.id)).status).toBe(204)
  expect((await grant("viewer", reader.id)).status).toBe(204)
  emptySpaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "empty", name: "Empty" })).body.id
  expect((await admin.call("POST", `/api/admin/knowledge-spaces/${emptySpaceId}/grants`, { relation: "viewer", kind: "USER", subjectId: owner.id })).status).toBe(204)
  ownerConversation = await newConversation(owner, "What happened in incident 4471?")
  strangerConversation = await newConversation(stranger, "Anything about incidents?")
  readerConversation = await newConversation(reader, "Anything about incidents?")
}, 120_000)

afterAll(async () => {
  if (scope) await Effect.runPromise(Scope.close(scope, Exit.void))
  await database?.dispose()
})

describe("conversation evidence", { timeout: 120_000 }, () => {
  let memoBinding: Record<string, any>

  it("answers 201 PROCESSING, then READY as the document is ingested as a CONFIDENTIAL source of the space", async () => {
    const reply = await uploadEvidence(owner, { conversationId: ownerConversation, knowledgeSpaceId: spaceId }, "incident-4471.md", memo, "text/markdown")
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body).toMatchObject({
      conversationId: ownerConversation, knowledgeSpaceId: spaceId, fileName: "incident-4471.md", title: "incident-4471",
      status: "PROCESSING", failureCode: null
    })
    expect(reply.body.sourceRevisionId).toBe(reply.body.sourceObjectId)
    memoBinding = await settled(owner, ownerConversation, reply.body.id)
    expect(memoBinding).toMatchObject({ id: reply.body.id, status: "READY", failureCode: null })

    // A real knowledge source: the sources API shows it, classified CONFIDENTIAL by default.
    const source = await owner.call("GET", `/api/sources/${memoBinding.sourceObjectId}`)
    expect(source.status).toBe(200)
    expect(source.body).toMatchObject({ classification: "CONFIDENTIAL", status: "READY", knowledgeAssetId: memoBinding.knowledgeAssetId, knowledgeSpaceId: spaceId })

    const listed = await owner.call("GET", `/api/assistant/conversations/${ownerConversation}/evidence`)
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual([memoBinding])
  })

  it("takes the classification given, within the uploader's clearance", async () => {
    const internal = await uploadEvidence(owner, { conversationId: ownerConversation, knowledgeSpaceId: spaceId, classification: "INTERNAL" }, "rota.txt", `On-call rota for the renewal team. ${filler("rotas", 3)}`)
    expect(internal.status, JSON.stringify(internal.body)).toBe(201)
    expect((await owner.call("GET", `/api/sources/${internal.body.sourceObjectId}`)).body.classification).toBe("INTERNAL")
    const above = await uploadEvidence(owner, { conversationId: ownerConversation, knowledgeSpaceId: spaceId, classification: "RESTRICTED" }, "secret.txt", "Restricted words.")
    expectProblemReply(above, 403, "CLASSIFICATION_ABOVE_CLEARANCE")
  })

  it("without a conversationId starts a conversation titled with the file name; a refused upload starts none", async () => {
    const conversationsBefore = (await owner.call("GET", "/api/assistant/conversations")).body.length
    const reply = await uploadEvidence(owner, { knowledgeSpaceId: spaceId }, "vendor-renewal-notes.md", memo, "text/markdown")
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    const conversationId = reply.body.conversationId
    expect(conversationId).not.toBe(ownerConversation)
    const conversations = (await owner.call("GET", "/api/assistant/conversations")).body
    expect(conversations.length).toBe(conversationsBefore + 1)
    expect(conversations.find((c: any) => c.id === conversationId)).toMatchObject({ title: "vendor-renewal-notes.md" })
    expect((await owner.call("GET", `/api/assistant/conversations/${conversationId}/evidence`)).body.map((b: any) => b.id)).toEqual([reply.body.id])
    // Refused (above the uploader's clearance): the transaction takes the new conversation back with it.
    expectProblemReply(await uploadEvidence(owner, { knowledgeSpaceId: spaceId, classification: "RESTRICTED" }, "secret.txt", "Restricted words."), 403, "CLASSIFICATION_ABOVE_CLEARANCE")
    expect((await owner.call("GET", "/api/assistant/conversations")).body.length).toBe(conversationsBefore + 1)
  })

  it("refuses a conversationId that is not a uuid and a missing knowledgeSpaceId: 400 problem+json", async () => {
    expectProblemReply(await uploadEvidence(owner, { conversationId: "nope", knowledgeSpaceId: spaceId }, "memo.md", memo), 400, "VALIDATION_FAILED")
    expectProblemReply(await uploadEvidence(owner, { conversationId: ownerConversation }, "memo.md", memo), 400, "VALIDATION_FAILED")
  })

  it("answers 404 for another user's conversation, on upload and on both reads", async () => {
    const upload = await uploadEvidence(stranger, { conversationId: ownerConversation, knowledgeSpaceId: spaceId }, "memo.md", memo)
    expectProblemReply(upload, 404, "CONVERSATION_NOT_FOUND")
    expectProblemReply(await stranger.call("GET", `/api/assistant/conversations/${ownerConversation}/evidence`), 404, "CONVERSATION_NOT_FOUND")
    expectProblemReply(await stranger.call("GET", `/api/assistant/conversations/${ownerConversation}/evidence/${memoBinding.id}`), 404, "CONVERSATION_NOT_FOUND")
    // Nor under a conversation of their own.
    expectProblemReply(await stranger.call("GET", `/api/assistant/conversations/${strangerConversation}/evidence/${memoBinding.id}`), 404, "EVIDENCE_BINDING_NOT_FOUND")
    expectProblemReply(await admin.call("GET", `/api/assistant/conversations/${ownerConversation}/evidence`), 404, "CONVERSATION_NOT_FOUND")
    const exit = await runExit(Effect.flatMap(Evidence, (e) => e.passagesFor(principalOf(stranger.id, "CONFIDENTIAL"), ownerConversation, "QUARTZLANTERN", 5)))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("CONVERSATION_NOT_FOUND")
  })

  it("refuses to bind into a space the caller cannot add to, as the sources upload does", async () => {
    // No grant at all: the space is not even revealed.
    expectProblemReply(await uploadEvidence(stranger, { conversationId: strangerConversation, knowledgeSpaceId: spaceId }, "memo.md", memo), 404, "KNOWLEDGE_SPACE_NOT_FOUND")
    // Viewer only: may read, not add.
    expectProblemReply(await uploadEvidence(reader, { conversationId: readerConversation, knowledgeSpaceId: spaceId }, "memo.md", memo), 403, "NOT_A_CONTRIBUTOR")
    expect((await stranger.call("GET", `/api/assistant/conversations/${strangerConversation}/evidence`)).body).toEqual([])
    expect((await reader.call("GET", `/api/assistant/conversations/${readerConversation}/evidence`)).body).toEqual([])
  })

  it("ends a corrupt document FAILED with the ingestion's failureCode", async () => {
    const pdf = await handbookPdf()
    const reply = await uploadEvidence(owner, { conversationId: ownerConversation, knowledgeSpaceId: spaceId }, "broken.pdf", pdf.slice(0, Math.floor(pdf.length / 2)))
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.status).toBe("PROCESSING")
    const done = await settled(owner, ownerConversation, reply.body.id)
    expect(done).toMatchObject({ status: "FAILED", failureCode: "CORRUPT_FILE", fileName: "broken.pdf" })
    expect(done.failureMessage).toEqual(expect.any(String))
  })

  it("passagesFor answers the conversation's evidence only, and nothing once the caller loses access", async () => {
    // The same codeword in a source of the space that is not bound to the conversation: never among its evidence.
    const unbound = await ingested(admin, { spaceId, name: "other-incident.md", bytes: `# Other\n\nQUARTZLANTERN also names a lamp. ${filler("lamps", 3)}`, type: "text/markdown", classification: "INTERNAL" })
    const passagesFor = (query: string) =>
      run(Effect.flatMap(Evidence, (e) => e.passagesFor(principalOf(owner.id, "CONFIDENTIAL"), ownerConversation, query, 5)))

    const passages = await passagesFor("What was the QUARTZLANTERN root cause?")
    expect(passages.length).toBeGreaterThan(0)
    expect(new Set(passages.map((p) => p.knowledgeAssetVersionId))).toEqual(new Set([memoBinding.sourceObjectId]))
    expect(passages[0]).toMatchObject({ title: "incident-4471", knowledgeSpaceId: spaceId, classification: "CONFIDENTIAL", mediaType: "text/markdown" })
    expect(passages[0]!.content).toContain("QUARTZLANTERN")
    expect(passages.map((p) => p.knowledgeAssetVersionId)).not.toContain(unbound.id)
    expect(await passagesFor("   ")).toEqual([])
    // A conversation without evidence has none.
    expect(await run(Effect.flatMap(Evidence, (e) => e.passagesFor(principalOf(reader.id, "CONFIDENTIAL"), readerConversation, "QUARTZLANTERN", 5)))).toEqual([])

    // The chat answers the conversation's follow-ups from its evidence, even when the spaces it searches hold nothing.
    const followUp = await chat(owner, { message: "What was the QUARTZLANTERN root cause?", conversationId: ownerConversation, knowledgeSpaceIds: [emptySpaceId] })
    expect(followUp.status, followUp.raw).toBe(200)
    const cited = followUp.chunks.find((chunk: any) => chunk.type === "data-citations") as any
    expect(cited.data.citations.map((citation: any) => citation.sourceId)).toContain(memoBinding.sourceObjectId)
    // Without the binding, the same narrowed question finds nothing.
    const elsewhere = await chat(owner, { message: "What was the QUARTZLANTERN root cause?", knowledgeSpaceIds: [emptySpaceId] })
    expect((elsewhere.chunks.find((chunk: any) => chunk.type === "data-citations") as any).data.citations).toEqual([])

    expect((await admin.call("DELETE", `/api/admin/knowledge-spaces/${spaceId}/grants?relation=contributor&kind=USER&subjectId=${owner.id}`)).status).toBe(204)
    expect(await passagesFor("What was the QUARTZLANTERN root cause?")).toEqual([])
    // The binding stays, saying no more than that its source is out of reach.
    const now = await owner.call("GET", `/api/assistant/conversations/${ownerConversation}/evidence/${memoBinding.id}`)
    expect(now.status).toBe(200)
    expect(now.body).toMatchObject({ id: memoBinding.id, status: "UNAVAILABLE", failureCode: null })
  })

  it("deleting the conversation deletes its bindings, not the sources", async () => {
    expect((await owner.call("DELETE", `/api/assistant/conversations/${ownerConversation}`)).status).toBe(204)
    expectProblemReply(await owner.call("GET", `/api/assistant/conversations/${ownerConversation}/evidence`), 404, "CONVERSATION_NOT_FOUND")
    const left = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ count: number }>`SELECT count(*)::int AS count FROM assistant_evidence_bindings WHERE conversation_id = ${ownerConversation}`))
    expect(left[0]!.count).toBe(0)
    expect((await admin.call("GET", `/api/sources/${memoBinding.sourceObjectId}`)).status).toBe(200)
  })
})
