import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { type Context, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EmbeddingSettings } from "../../src/ai/EmbeddingSettings"
import { AssistantFiles } from "../../src/assistant/files/Files"
import { RateLimits } from "../../src/assistant/RateLimits"
import { appLayer } from "../../src/App"
import { defaultAssistantFiles, type LoreSettings, Settings } from "../../src/Config"
import { type Principal, systemActor } from "../../src/domain/Principal"
import { serverUrl } from "../../src/http/Http"
import { DOCX_MEDIA_TYPE } from "../../src/knowledge/parsing"
import { createTestDatabase, type TestDatabase } from "../jobs/support"
import { newBootstrapToken } from "../support/server"
import { client, type Client, eventually, expectProblemReply, filler, ingested, search, userClient } from "../knowledge/support"
import { handbookPdf, policyDocx } from "../knowledge/parsing/fixtures"
import { chat, citationsOf, messageIdOf, textOf } from "./support"

/**
 * Assistant files end to end over HTTP, with the app's services at hand for what the chat will call
 * (AssistantFiles.passagesFor, RateLimits.consume): lifecycle per format, failures, size limits, privacy,
 * absence from knowledge search, expiry purge and per-user rate limits.
 */

const MAX_UPLOAD = 256 * 1024
const MAX_FILE = 128 * 1024

type Services = AssistantFiles | RateLimits | SqlClient.SqlClient
let database: TestDatabase
let scope: Scope.CloseableScope
let context: Context.Context<Services>
let admin: Client
let other: Client & { id: string }
let limited: Client & { id: string }
let organizationId: string
let department: string
let adminId: string
const run = <A, E>(effect: Effect.Effect<A, E, Services>) => Effect.runPromise(Effect.provide(effect, context))
const runExit = <A, E>(effect: Effect.Effect<A, E, Services>) => Effect.runPromiseExit(Effect.provide(effect, context))
const query = <T>(text: string, ...params: Array<unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T & object>(text, params)))
const principalOf = (userId: string): Principal => ({ ...systemActor(organizationId, "test"), userId, credential: { kind: "token", id: "test" } })

/** POST /api/assistant/files as multipart/form-data. */
const uploadFile = async (who: Client, name: string, bytes: Uint8Array | string, type = "application/octet-stream") => {
  const form = new FormData()
  const body = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes
  form.append("file", new Blob([body as Uint8Array<ArrayBuffer>], { type }), name)
  const response = await fetch(`${who.url}/api/assistant/files`, { method: "POST", headers: { authorization: `Bearer ${who.token}` }, body: form })
  const text = await response.text()
  let parsed: any = text
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = text
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body: parsed, headers: response.headers }
}

const settled = async (who: Client, fileId: string) =>
  (await eventually(
    () => who.call("GET", `/api/assistant/files/${fileId}`),
    (reply) => reply.status === 200 && (reply.body.status === "READY" || reply.body.status === "FAILED"),
    `file ${fileId} READY or FAILED`
  )).body as Record<string, any>

const ready = async (who: Client, name: string, bytes: Uint8Array | string, type?: string) => {
  const reply = await uploadFile(who, name, bytes, type)
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  const done = await settled(who, reply.body.id)
  expect(done.status, `${name}: ${done.failureCode} ${done.failureMessage}`).toBe("READY")
  return done
}

const notes = `# Project Falcon notes

The launch codeword for Project Falcon is ZEPHYRQUILL and it must stay private. ${filler("launches", 4)}

## Budget

The falcon budget is capped at nine hundred thousand euros. ${filler("budgets", 6)}
`

beforeAll(async () => {
  database = await createTestDatabase()
  const adminToken = newBootstrapToken()
  const settings: LoreSettings = {
    ...database.settings,
    port: 0,
    bootstrapToken: Option.some(Redacted.make(adminToken)),
    logLevel: "warning",
    maxUploadBytes: MAX_UPLOAD,
    rateLimits: { chat: { perMinute: 1, burst: 2 }, fileUpload: { perMinute: 1, burst: 50 } },
    assistantFiles: { ...defaultAssistantFiles, maxBytes: MAX_FILE, purgeIntervalMs: 250 }
  }
  scope = Effect.runSync(Scope.make())
  context = await Effect.runPromise(Layer.buildWithScope(appLayer(Layer.merge(Layer.succeed(Settings, settings), EmbeddingSettings.layer(undefined))), scope)) as any
  const url = Effect.runSync(Effect.provide(serverUrl, context as unknown as Context.Context<HttpServer.HttpServer>))
  admin = client(url, adminToken)
  const me = await admin.call("GET", "/api/me")
  adminId = me.body.userId
  organizationId = (await query<{ id: string }>("SELECT id FROM organizations LIMIT 1"))[0]!.id
  department = (await admin.call("POST", "/api/admin/departments", { name: "Files" })).body.id
  other = await userClient(admin.call, url, { email: "other@example.com", departmentId: department })
  limited = await userClient(admin.call, url, { email: "limited@example.com", departmentId: department })
}, 120_000)

afterAll(async () => {
  if (scope) await Effect.runPromise(Scope.close(scope, Exit.void))
  await database?.dispose()
})

describe("assistant files", { timeout: 120_000 }, () => {
  const files: Record<string, Record<string, any>> = {}
  const sent: Record<string, Uint8Array | string> = {}

  it("answers 201 UPLOADED with an expiry, then processes PDF, DOCX and text to READY", async () => {
    const inputs = [
      ["pdf", "handbook.pdf", await handbookPdf(), "application/pdf"],
      ["docx", "policy.docx", await policyDocx(), DOCX_MEDIA_TYPE],
      ["text", "falcon-notes.md", notes, "text/markdown"]
    ] as const
    for (const [key, name, bytes, type] of inputs) {
      sent[key] = bytes
      const before = Date.now()
      const reply = await uploadFile(admin, name, bytes, type)
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
      expect(reply.body).toMatchObject({ fileName: name, status: "UPLOADED", failureCode: null, generation: 0 })
      const expiresIn = Date.parse(reply.body.expiresAt) - before
      expect(expiresIn).toBeGreaterThan(defaultAssistantFiles.retentionMs - 60_000)
      expect(expiresIn).toBeLessThan(defaultAssistantFiles.retentionMs + 60_000)
      files[key] = await settled(admin, reply.body.id)
      expect(files[key]).toMatchObject({ status: "READY", failureCode: null, generation: 1 })
      expect(files[key]!.chunkCount).toBeGreaterThan(0)
    }
    expect(files.pdf).toMatchObject({ mediaType: "application/pdf", pageCount: 4 })
    expect(files.docx).toMatchObject({ mediaType: DOCX_MEDIA_TYPE })
    expect(files.text).toMatchObject({ mediaType: "text/markdown" })
  })

  it("sniffs the content, not the declared type", async () => {
    const pdf = await ready(admin, "no-extension", await handbookPdf(), "application/octet-stream")
    expect(pdf.mediaType).toBe("application/pdf")
  })

  it("ends unsupported, empty and corrupt files FAILED with a failureCode", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 4])
    const pdf = await handbookPdf()
    const cases = [
      ["picture.png", png, "UNSUPPORTED_MEDIA_TYPE"],
      ["empty.txt", new Uint8Array(), "EMPTY_FILE"],
      ["broken.pdf", pdf.slice(0, Math.floor(pdf.length / 2)), "CORRUPT_FILE"]
    ] as const
    for (const [name, bytes, code] of cases) {
      const reply = await uploadFile(admin, name, bytes)
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
      expect(reply.body.status).toBe("UPLOADED")
      const done = await settled(admin, reply.body.id)
      expect(done, name).toMatchObject({ status: "FAILED", failureCode: code, chunkCount: null })
      expect(done.failureMessage).toEqual(expect.any(String))
      files[name] = done
    }
    expect(files["picture.png"]!.mediaType).toBe("image/png")
  })

  it("refuses files over the limit with 413 problem+json", async () => {
    // Over LORE_ASSISTANT_FILE_MAX_BYTES (below the server's upload limit): refused by the files service.
    const overFileLimit = await uploadFile(admin, "big.txt", "a ".repeat(MAX_FILE / 2 + 10))
    expectProblemReply(overFileLimit, 413, "PAYLOAD_TOO_LARGE")
    // Over LORE_MAX_UPLOAD_BYTES: refused by the HTTP layer before the body is read.
    const overUploadLimit = await uploadFile(admin, "huge.txt", "a ".repeat(MAX_UPLOAD))
    expectProblemReply(overUploadLimit, 413, "PAYLOAD_TOO_LARGE")
    const listed = await admin.call("GET", "/api/assistant/files?limit=100")
    expect(listed.body.items.map((f: any) => f.fileName)).not.toContain("big.txt")
  })

  it("lists the caller's files newest first, by page and limit", async () => {
    const all = await admin.call("GET", "/api/assistant/files?limit=100")
    expect(all.status).toBe(200)
    expect(all.body).toMatchObject({ page: 0, hasMore: false })
    const names = all.body.items.map((f: any) => f.fileName)
    expect(names.slice(0, 3)).toEqual(["broken.pdf", "empty.txt", "picture.png"])
    expect(names).toHaveLength(7)
    const first = await admin.call("GET", "/api/assistant/files?limit=3")
    expect(first.body).toMatchObject({ page: 0, hasMore: true })
    expect(first.body.items.map((f: any) => f.fileName)).toEqual(names.slice(0, 3))
    const last = await admin.call("GET", "/api/assistant/files?page=2&limit=3")
    expect(last.body).toMatchObject({ page: 2, hasMore: false })
    expect(last.body.items.map((f: any) => f.fileName)).toEqual(names.slice(6))
    const defaults = await admin.call("GET", "/api/assistant/files")
    expect(defaults.body.page).toBe(0)
    expectProblemReply(await admin.call("GET", "/api/assistant/files?limit=0"), 400, "VALIDATION_FAILED")
  })

  it("serves the original bytes as an attachment with their media type", async () => {
    const response = await fetch(`${admin.url}/api/assistant/files/${files.pdf!.id}/content`, { headers: { authorization: `Bearer ${admin.token}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/pdf")
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="handbook.pdf"/)
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(sent.pdf)
  })

  it("gives the chat the passages of the caller's files that match the question, with a fallback to their openings", async () => {
    const passages = await run(Effect.flatMap(AssistantFiles, (s) =>
      s.passagesFor(principalOf(adminId), { fileIds: [files.pdf!.id, files.docx!.id], query: "Who do I call when a laptop is lost?", limit: 3 })))
    expect(passages[0]).toMatchObject({ fileId: files.pdf!.id, fileName: "handbook.pdf", matched: true, startPage: 4 })
    expect(passages[0]!.content).toContain("lost laptop")
    expect(passages[0]!.score).toBeGreaterThan(0)

    const fallback = await run(Effect.flatMap(AssistantFiles, (s) =>
      s.passagesFor(principalOf(adminId), { fileIds: [files.docx!.id, files.text!.id], query: "summarize", limit: 4 })))
    expect(fallback.length).toBeGreaterThanOrEqual(2)
    expect(fallback.every((p) => !p.matched && p.score === 0)).toBe(true)
    expect(new Set(fallback.map((p) => p.fileId))).toEqual(new Set([files.docx!.id, files.text!.id]))
    expect(fallback.find((p) => p.fileId === files.docx!.id)!.ordinal).toBe(0)

    // A chunk the passage names is served by id and generation.
    const chunk = await admin.call("GET", `/api/assistant/files/${files.pdf!.id}/chunks/${passages[0]!.chunkId}?generation=${passages[0]!.generation}`)
    expect(chunk.status, JSON.stringify(chunk.body)).toBe(200)
    expect(chunk.body).toMatchObject({ id: passages[0]!.chunkId, title: "handbook.pdf", startPage: 4, endPage: 4, generation: 1 })
    expect(chunk.body.content).toContain("lost laptop")
    expectProblemReply(await admin.call("GET", `/api/assistant/files/${files.pdf!.id}/chunks/${passages[0]!.chunkId}?generation=7`), 404, "FILE_CHUNK_NOT_FOUND")
    expectProblemReply(await admin.call("GET", `/api/assistant/files/${files.docx!.id}/chunks/${passages[0]!.chunkId}`), 404, "FILE_CHUNK_NOT_FOUND")
  })

  it("refuses, with a code, files that are not the caller's or not READY", async () => {
    const notMine = await runExit(Effect.flatMap(AssistantFiles, (s) => s.passagesFor(principalOf(other.id), { fileIds: [files.pdf!.id], query: "laptop" })))
    expect(Exit.isFailure(notMine) && notMine.cause._tag === "Fail" && notMine.cause.error).toMatchObject({ status: 404, code: "ASSISTANT_FILE_NOT_FOUND" })
    const failed = await runExit(Effect.flatMap(AssistantFiles, (s) => s.passagesFor(principalOf(adminId), { fileIds: [files.pdf!.id, files["broken.pdf"]!.id], query: "laptop" })))
    expect(Exit.isFailure(failed) && failed.cause._tag === "Fail" && failed.cause.error).toMatchObject({ status: 409, code: "ASSISTANT_FILE_NOT_READY" })
    const garbage = await runExit(Effect.flatMap(AssistantFiles, (s) => s.passagesFor(principalOf(adminId), { fileIds: ["not-a-uuid"], query: "laptop" })))
    expect(Exit.isFailure(garbage) && garbage.cause._tag === "Fail" && garbage.cause.error).toMatchObject({ status: 404, code: "ASSISTANT_FILE_NOT_FOUND" })
  })

  it("answers a chat from the caller's attached files, cited as FILE citations that open the file's chunk", async () => {
    const file = await ready(admin, "codeword.md", notes, "text/markdown")
    const reply = await chat(admin, { message: "What is the launch codeword for Project Falcon?", fileIds: [file.id] })
    expect(reply.status, reply.raw).toBe(200)
    expect(textOf(reply.chunks)).toContain("ZEPHYRQUILL")
    const [cited] = citationsOf(reply.chunks)
    expect(cited).toMatchObject({ citationNumber: 1, kind: "FILE", sourceId: file.id, title: "codeword.md", available: true })
    expect(cited!.excerptUrl).toBe(`/api/assistant/files/${file.id}/chunks/${cited!.citationId}?generation=1`)
    expect(reply.chunks.find((chunk) => chunk.type === "source-document")).toMatchObject({ sourceId: file.id, title: "codeword.md", mediaType: "text/markdown" })
    const excerpt = await admin.call("GET", cited!.excerptUrl)
    expect(excerpt.status).toBe(200)
    expect(excerpt.body.content).toContain("ZEPHYRQUILL")
    expect((await admin.call("GET", cited!.contentUrl)).status).toBe(200)

    // Another user cannot chat with it: 404 before any stream, and nothing of it leaks.
    const stranger = await chat(other, { message: "What is the launch codeword?", fileIds: [file.id] })
    expect(stranger.status).toBe(404)
    expect(stranger.problem).toMatchObject({ code: "ASSISTANT_FILE_NOT_FOUND" })
    expect(stranger.raw).not.toContain("ZEPHYRQUILL")
    expect((await other.call("GET", "/api/assistant/conversations")).body).toEqual([])

    // Deleted, the file's citation stays listed but unavailable: no title, and its excerpt is gone.
    const messageId = messageIdOf(reply.chunks)
    expect((await admin.call("GET", `/api/assistant/messages/${messageId}/citations`)).body[0]).toMatchObject({ kind: "FILE", available: true, title: "codeword.md" })
    expect((await admin.call("DELETE", `/api/assistant/files/${file.id}`)).status).toBe(204)
    const after = (await admin.call("GET", `/api/assistant/messages/${messageId}/citations`)).body[0]
    expect(after).toMatchObject({ kind: "FILE", available: false, title: null, heading: null, sourceId: file.id })
    expectProblemReply(await admin.call("GET", after.excerptUrl), 404, "ASSISTANT_FILE_NOT_FOUND")
  })

  it("refuses a chat naming a file that is not READY with 409 before the stream", async () => {
    const reply = await chat(admin, { message: "What is in the broken file?", fileIds: [files["broken.pdf"]!.id] })
    expect(reply.status).toBe(409)
    expect(reply.problem).toMatchObject({ code: "ASSISTANT_FILE_NOT_READY" })
  })

  it("keeps files private: another user gets 404 on every endpoint and never sees them listed", async () => {
    const id = files.text!.id
    const [passage] = await run(Effect.flatMap(AssistantFiles, (s) => s.passagesFor(principalOf(adminId), { fileIds: [id], query: "budget" })))
    for (const [method, path] of [
      ["GET", `/api/assistant/files/${id}`],
      ["GET", `/api/assistant/files/${id}/content`],
      ["GET", `/api/assistant/files/${id}/chunks/${passage!.chunkId}?generation=1`],
      ["DELETE", `/api/assistant/files/${id}`]
    ] as const) {
      expectProblemReply(await other.call(method, path), 404, "ASSISTANT_FILE_NOT_FOUND")
    }
    const listed = await other.call("GET", "/api/assistant/files")
    expect(listed.body).toEqual({ items: [], page: 0, hasMore: false })
    // Still there for its owner.
    expect((await admin.call("GET", `/api/assistant/files/${id}`)).status).toBe(200)
  })

  it("never puts file content into the shared knowledge index", async () => {
    const space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "control", name: "Control" })).body.id
    await ingested(admin, { spaceId: space, name: "control.md", bytes: `# Control\n\nThe control word is MARIGOLDRUN. ${filler("controls", 3)}`, type: "text/markdown" })
    // Search works (the control document is found), yet the file's codeword is nowhere in knowledge.
    expect((await search(admin, "MARIGOLDRUN")).length).toBeGreaterThan(0)
    expect(await search(admin, "ZEPHYRQUILL")).toEqual([])
    expect(await search(admin, "falcon budget capped")).toEqual([])
    const indexed = await query<{ count: string }>("SELECT count(*)::text AS count FROM chunks WHERE content LIKE '%ZEPHYRQUILL%'")
    expect(indexed[0]!.count).toBe("0")
    const catalog = await admin.call("GET", "/api/knowledge/catalog")
    expect(catalog.body.map((entry: any) => entry.title)).not.toContain("falcon-notes")
  })

  it("deletes a file with its bytes and chunks", async () => {
    const file = await ready(admin, "delete-me.txt", "Delete me please. " + filler("deletion", 5))
    const deleted = await admin.call("DELETE", `/api/assistant/files/${file.id}`)
    expect(deleted.status).toBe(204)
    expectProblemReply(await admin.call("GET", `/api/assistant/files/${file.id}`), 404, "ASSISTANT_FILE_NOT_FOUND")
    expectProblemReply(await admin.call("DELETE", `/api/assistant/files/${file.id}`), 404, "ASSISTANT_FILE_NOT_FOUND")
    const left = await query<{ count: string }>(
      "SELECT ((SELECT count(*) FROM assistant_file_chunks WHERE file_id = $1) + (SELECT count(*) FROM assistant_file_contents WHERE file_id = $1))::text AS count",
      file.id
    )
    expect(left[0]!.count).toBe("0")
  })

  it("hides an expired file at once and the periodic job purges it with its bytes and chunks", async () => {
    const file = await ready(admin, "short-lived.txt", "Short lived notes. " + filler("expiry", 5))
    await query("UPDATE assistant_files SET expires_at = now() - interval '1 second' WHERE id = $1", file.id)
    expectProblemReply(await admin.call("GET", `/api/assistant/files/${file.id}`), 404, "ASSISTANT_FILE_NOT_FOUND")
    expect((await admin.call("GET", "/api/assistant/files?limit=100")).body.items.map((f: any) => f.id)).not.toContain(file.id)
    const exit = await runExit(Effect.flatMap(AssistantFiles, (s) => s.passagesFor(principalOf(adminId), { fileIds: [file.id], query: "notes" })))
    expect(Exit.isFailure(exit)).toBe(true)
    await eventually(
      () => query<{ count: string }>(
        `SELECT ((SELECT count(*) FROM assistant_files WHERE id = $1) + (SELECT count(*) FROM assistant_file_chunks WHERE file_id = $1)
          + (SELECT count(*) FROM assistant_file_contents WHERE file_id = $1))::text AS count`,
        file.id
      ),
      (rows) => rows[0]!.count === "0",
      "expired file purged"
    )
    // Live files are untouched.
    expect((await admin.call("GET", `/api/assistant/files/${files.pdf!.id}`)).status).toBe(200)
  })
})

describe("per-user rate limits", { timeout: 60_000 }, () => {
  it("answers 429 problem+json with Retry-After when a user's upload bucket is empty, and only for that user", async () => {
    expect((await uploadFile(limited, "one.txt", "First upload.")).status).toBe(201)
    // Empty the bucket as a burst of uploads would (refill is 1 a minute).
    await query("UPDATE rate_limit_buckets SET tokens = 0, refilled_at = clock_timestamp() WHERE user_id = $1 AND name = 'fileUpload'", limited.id)
    const refused = await uploadFile(limited, "two.txt", "Second upload.")
    expectProblemReply(refused, 429, "RATE_LIMITED")
    const retryAfter = Number(refused.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThanOrEqual(55)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(refused.body.detail).toMatch(/LORE_RATE_LIMIT_FILE_UPLOAD_/)
    // Nothing was stored for the refused upload; other users are not affected.
    expect((await limited.call("GET", "/api/assistant/files")).body.items.map((f: any) => f.fileName)).toEqual(["one.txt"])
    expect((await uploadFile(other, "fine.txt", "Another user's upload.")).status).toBe(201)
  })

  it("limits chats per user: the burst, then 429 problem+json with Retry-After before any stream", async () => {
    const chatty = await userClient(admin.call, admin.url, { email: "chatty@example.com", departmentId: department })
    for (const question of ["What is the falcon budget?", "And the codeword?"]) {
      const reply = await chat(chatty, { message: question })
      expect(reply.status, reply.raw).toBe(200)
    }
    const refused = await chat(chatty, { message: "One more?" })
    expect(refused.status).toBe(429)
    expect(refused.problem).toMatchObject({ code: "RATE_LIMITED" })
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
    // The refused question was not recorded.
    const conversations = (await chatty.call("GET", "/api/assistant/conversations")).body
    expect(conversations.map((c: any) => c.title).sort()).toEqual(["And the codeword?", "What is the falcon budget?"])
    // Concurrent takers never get more than the bucket holds (one statement per take).
    const results = await Promise.all(Array.from({ length: 5 }, () => runExit(Effect.flatMap(RateLimits, (l) => l.consume(principalOf(limited.id), "chat")))))
    expect(results.filter(Exit.isSuccess)).toHaveLength(2)
  })
})
