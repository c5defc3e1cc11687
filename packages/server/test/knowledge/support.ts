import type { StartOptions } from "@lore/server"
import { createHash } from "node:crypto"
import { expect } from "vitest"
import { createUser, http, type Call, type Reply } from "../support/http"
import { startTestServer } from "../support/server"

/** Helpers for the knowledge tests: black-box over HTTP, multipart uploads with FormData and Blob. */

export interface Client {
  readonly url: string
  readonly token: string
  readonly call: Call
}

export const client = (url: string, token: string): Client => ({ url, token, call: http(url, token) })

export const userClient = async (admin: Call, url: string, input: { email: string; departmentId: string; role?: string; clearance?: string }) => {
  const user = await createUser(admin, url, input)
  return { id: user.id, ...client(url, user.token) }
}

export const bytesOf = (text: string) => new TextEncoder().encode(text)
export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

export interface UploadInput {
  readonly spaceId: string
  readonly name: string
  readonly bytes: Uint8Array | string
  /** The part's declared Content-Type (default application/octet-stream: the server must sniff). */
  readonly type?: string
  readonly classification?: string
  readonly title?: string
}

export interface UploadReply extends Reply {
  readonly headers: Headers
}

/** POST /api/sources as multipart/form-data, the way a browser or the SDK sends it. */
export const upload = async (who: Client, input: UploadInput): Promise<UploadReply> => {
  const bytes = typeof input.bytes === "string" ? bytesOf(input.bytes) : input.bytes
  const form = new FormData()
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: input.type ?? "application/octet-stream" }), input.name)
  const query = new URLSearchParams({ knowledgeSpaceId: input.spaceId })
  if (input.classification) query.set("classification", input.classification)
  if (input.title) query.set("title", input.title)
  const response = await fetch(`${who.url}/api/sources?${query}`, {
    method: "POST",
    headers: { authorization: `Bearer ${who.token}` },
    body: form
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = text
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body, headers: response.headers }
}

/** Uploads and expects 201; answers the Source. */
export const uploaded = async (who: Client, input: UploadInput) => {
  const reply = await upload(who, input)
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body as { id: string; status: string; knowledgeAssetId: string; versionNumber: number; contentDigest: string } & Record<string, any>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until `check` answers something `done` accepts. The deadline is a safety net, not a speed assertion. */
export const eventually = async <A>(check: () => Promise<A>, done: (a: A) => boolean, what = "condition", timeoutMs = 45_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`${what} not reached; last value: ${JSON.stringify(value).slice(0, 2_000)}`)
    await sleep(40)
  }
}

/** Polls GET /api/sources/{id} until the source is READY or ATTENTION; answers it. */
export const settled = async (who: Client, sourceId: string) => {
  const reply = await eventually(
    () => who.call("GET", `/api/sources/${sourceId}`),
    (r) => r.status === 200 && (r.body.status === "READY" || r.body.status === "ATTENTION"),
    `source ${sourceId} READY or ATTENTION`
  )
  return reply.body as Record<string, any>
}

/** Uploads and waits for READY. */
export const ingested = async (who: Client, input: UploadInput) => {
  const source = await uploaded(who, input)
  const done = await settled(who, source.id)
  expect(done.status, `${input.name}: ${done.failureCode} ${done.failureMessage}`).toBe("READY")
  return done
}

export interface Evidence {
  readonly citationId: string
  readonly knowledgeAssetId: string
  readonly knowledgeAssetVersionId: string
  readonly knowledgeSpaceId: string
  readonly title: string
  readonly content: string
  readonly highlights: ReadonlyArray<string>
  readonly sourceUri: string
  readonly startPage: number | null
  readonly endPage: number | null
  readonly heading: string | null
  readonly headingPath: ReadonlyArray<string>
  readonly classification: string
  readonly relevanceScore: number
  readonly lexicalRank: number | null
  readonly vectorRank: number | null
}

export interface SearchReply {
  readonly requestId: string
  readonly mode: "lexical" | "hybrid"
  readonly evidence: ReadonlyArray<Evidence>
}

export const searchReply = async (who: Client, q: string, params: Record<string, string | number> = {}): Promise<SearchReply> => {
  const query = new URLSearchParams({ q, ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) })
  const reply = await who.call("GET", `/api/knowledge/search?${query}`)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as SearchReply
}

export const search = async (who: Client, q: string, params: Record<string, string | number> = {}) => (await searchReply(who, q, params)).evidence

/** Every source the caller can list (following nextCursor), with the first page's counts. */
export const listAll = async (who: Client, params: Record<string, string> = {}) => {
  const items: Array<Record<string, any>> = []
  let cursor: string | null = null
  let first: Record<string, any> | undefined
  do {
    const query: URLSearchParams = new URLSearchParams({ ...params, pageSize: "200", ...(cursor ? { cursor } : {}) })
    const reply: Reply = await who.call("GET", `/api/sources?${query}`)
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    first ??= reply.body
    items.push(...reply.body.items)
    cursor = reply.body.nextCursor
  } while (cursor)
  return { items, total: first!.total as number, statusCounts: first!.statusCounts as { processing: number; ready: number; attention: number } }
}

export const catalog = async (who: Client, params: Record<string, string> = {}) => {
  const reply = await who.call("GET", `/api/knowledge/catalog?${new URLSearchParams(params)}`)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as Array<Record<string, any>>
}

/** Raw GET, for bodies that are bytes. */
export const getRaw = (who: Client, path: string) => fetch(who.url + path, { headers: { authorization: `Bearer ${who.token}` } })

/** Asserts a problem+json reply (status, code) from the helpers above. */
export const expectProblemReply = (reply: Reply, status: number, code?: string) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.contentType).toMatch(/^application\/problem\+json/)
  expect(reply.body).toMatchObject({ status, title: expect.any(String), type: expect.any(String), requestId: expect.any(String) })
  if (code) expect(reply.body.code).toBe(code)
}

/** Sentences on a topic, long enough to fill a section (13 words each). */
export const filler = (topic: string, sentences: number) =>
  Array.from({ length: sentences }, (_, i) => `This is sentence ${i + 1} about ${topic} and the rules that apply to it.`).join(" ")

export interface Backend {
  readonly name: "PGlite" | "PostgreSQL"
  readonly start: (options?: Partial<StartOptions>) => Promise<{ url: string; adminToken: string; dispose: () => Promise<void> }>
}

/**
 * The database this run tests: PostgreSQL when DATABASE_URL is set (a database of its own, dropped
 * afterwards), else embedded PGlite. CI runs the suite once on each, so a file covers both without
 * starting both in one run.
 */
export const backends: ReadonlyArray<Backend> = [
  { name: process.env.DATABASE_URL ? "PostgreSQL" : "PGlite", start: (options?: Partial<StartOptions>) => startTestServer(options) }
]
