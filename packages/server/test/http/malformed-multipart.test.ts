import { zipSync } from "fflate"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openApiDocument } from "../../scripts/generate-openapi"
import { startTestServer, type TestServer } from "../support/server"

let server: TestServer
let spaceId: string
let conversationId: string
let skill: { id: string; lockVersion: number }

/** A valid skill package (a zip with demo/SKILL.md): what the skill endpoints take in their `file` part. */
const skillZip = (description: string) =>
  Buffer.from(zipSync({ "demo/SKILL.md": new TextEncoder().encode(`---\nname: demo\ndescription: ${description}\n---\n# Demo\n`) }))

beforeAll(async () => {
  server = await startTestServer({ bodyStallMs: 1_000 })
  const authorization = `Bearer ${server.adminToken}`
  const spaces = await fetch(`${server.url}/api/knowledge-spaces/upload-targets`, { headers: { authorization } })
  spaceId = ((await spaces.json()) as Array<{ id: string }>)[0]!.id
  // Evidence needs a conversation of the caller's: a chat message starts one (its id is in the stream).
  const chat = await fetch(`${server.url}/api/assistant/chat`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ message: "hello" })
  })
  conversationId = /"conversationId":"([0-9a-f-]{36})"/.exec(await chat.text())![1]!
  // A skill whose draft the PUT endpoint replaces.
  const form = new FormData()
  form.append("file", new Blob([skillZip("The first draft.")], { type: "application/zip" }), "demo.zip")
  const created = await fetch(`${server.url}/api/assets/skills?namespace=multipart&knowledgeSpaceId=${spaceId}`, { method: "POST", headers: { authorization }, body: form })
  expect(created.status).toBe(201)
  const asset = (await created.json()) as { id: string; draft: { lockVersion: number } }
  skill = { id: asset.id, lockVersion: asset.draft.lockVersion }
})
afterAll(() => server?.dispose())

interface MultipartEndpoint {
  /** The path with a query string that is otherwise valid. */
  readonly path: () => string
  /** A file part the endpoint accepts, and the status it answers then. */
  readonly file: { readonly name: string; readonly type: string; readonly bytes: () => Buffer }
  readonly success: number
}

const textFile = { name: "a.txt", type: "text/plain", bytes: () => Buffer.from("hello from a raw socket") }
const skillFile = { name: "demo.zip", type: "application/zip", bytes: () => skillZip("Uploaded over a raw socket.") }

/** Every multipart endpoint of the API. */
const multipartEndpoints: Record<string, MultipartEndpoint> = {
  "POST /api/sources": { path: () => `/api/sources?knowledgeSpaceId=${spaceId}&classification=INTERNAL`, file: textFile, success: 201 },
  "POST /api/assistant/files": { path: () => "/api/assistant/files", file: textFile, success: 201 },
  "POST /api/assistant/evidence": { path: () => `/api/assistant/evidence?conversationId=${conversationId}&knowledgeSpaceId=${spaceId}`, file: textFile, success: 201 },
  "POST /api/assets/skills/inspections": { path: () => "/api/assets/skills/inspections", file: skillFile, success: 200 },
  "POST /api/assets/skills": { path: () => `/api/assets/skills?namespace=raw&knowledgeSpaceId=${spaceId}`, file: skillFile, success: 201 },
  "PUT /api/assets/{assetId}/skill-draft": { path: () => `/api/assets/${skill.id}/skill-draft?expectedLockVersion=${skill.lockVersion}`, file: skillFile, success: 200 }
}

it("covers every multipart endpoint of the OpenAPI document", () => {
  const document = JSON.parse(openApiDocument())
  const multipart = Object.entries<Record<string, any>>(document.paths).flatMap(([path, operations]) =>
    Object.entries<any>(operations)
      .filter(([, operation]) => operation.requestBody?.content?.["multipart/form-data"])
      .map(([method]) => `${method.toUpperCase()} ${path}`)
  )
  expect(Object.keys(multipartEndpoints).sort()).toEqual(multipart.sort())
})

interface RawAnswer {
  readonly status: number
  readonly body: string
  readonly elapsedMs: number
}

/**
 * Sends exactly these bytes on a fresh socket (the request may lie about its length) and reads the answer;
 * The socket stays open after writing, as a client that stopped sending would.
 */
const raw = (method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const url = new URL(server.url)
    const started = Date.now()
    const socket = connect(Number(url.port), url.hostname)
    const chunks: Array<Buffer> = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer after ${Date.now() - started} ms`))
    }, 20_000)
    socket.on("data", (chunk) => {
      chunks.push(chunk)
      const text = Buffer.concat(chunks).toString("utf8")
      const head = /^HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n/.exec(text)
      const length = /content-length: (\d+)/i.exec(text)
      if (head && length && Buffer.byteLength(text.slice(head[0].length)) >= Number(length[1])) {
        clearTimeout(timer)
        socket.destroy()
        resolve({ status: Number(head[1]), body: text.slice(head[0].length), elapsedMs: Date.now() - started })
      }
    })
    socket.on("close", () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString("utf8")
      const head = /^HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n/.exec(text)
      if (head) resolve({ status: Number(head[1]), body: text.slice(head[0].length), elapsedMs: Date.now() - started })
      else reject(new Error(`connection closed without an answer: ${JSON.stringify(text.slice(0, 200))}`))
    })
    socket.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    const head = [`${method} ${path} HTTP/1.1`, `host: ${url.host}`, `authorization: Bearer ${server.adminToken}`, "connection: close", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
    socket.write(head.join("\r\n") + "\r\n\r\n")
    socket.write(body)
  })

const part = (boundary: string, file: { readonly name: string; readonly type: string }, content: Buffer) =>
  Buffer.concat([
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${file.name}"\r\ncontent-type: ${file.type}\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`)
  ])

describe.each(Object.entries(multipartEndpoints))("malformed multipart bodies to %s", (name, endpoint) => {
  const method = name.split(" ")[0]!
  const send = (headers: Record<string, string>, body: Buffer) => raw(method, endpoint.path(), headers, body)
  const body = () => part("xyz", endpoint.file, endpoint.file.bytes())

  it("with no boundary in the content type: 400 MALFORMED_BODY", async () => {
    const whole = body()
    const answer = await send({ "content-type": "multipart/form-data", "content-length": String(whole.length) }, whole)
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ code: "MALFORMED_BODY" })
  })

  it("cut before its end (Content-Length promises more): 400 MALFORMED_BODY promptly, not a hang", async () => {
    const whole = body()
    const answer = await send({ "content-type": "multipart/form-data; boundary=xyz", "content-length": String(whole.length + 500) }, whole.subarray(0, 60))
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ code: "MALFORMED_BODY" })
  })

  it("whose closing boundary never comes: 400 MALFORMED_BODY", async () => {
    const open = Buffer.from(`--xyz\r\ncontent-disposition: form-data; name="file"; filename="${endpoint.file.name}"\r\n\r\nhello`)
    const answer = await send({ "content-type": "multipart/form-data; boundary=xyz", "content-length": String(open.length) }, open)
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ code: "MALFORMED_BODY" })
  })

  it(`a well-formed body still succeeds`, async () => {
    const whole = body()
    const answer = await send({ "content-type": "multipart/form-data; boundary=xyz", "content-length": String(whole.length) }, whole)
    expect(answer.status, answer.body).toBe(endpoint.success)
  })
})
