import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openApiDocument } from "../../scripts/generate-openapi"
import { startTestServer, type TestServer } from "../support/server"

let server: TestServer
let spaceId: string
let conversationId: string
beforeAll(async () => {
  server = await startTestServer({ bodyStallMs: 1_000 })
  const spaces = await fetch(`${server.url}/api/knowledge-spaces/upload-targets`, { headers: { authorization: `Bearer ${server.adminToken}` } })
  spaceId = ((await spaces.json()) as Array<{ id: string }>)[0]!.id
  // Evidence needs a conversation of the caller's: a chat message starts one (its id is in the stream).
  const chat = await fetch(`${server.url}/api/assistant/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ message: "hello" })
  })
  conversationId = /"conversationId":"([0-9a-f-]{36})"/.exec(await chat.text())![1]!
})
afterAll(() => server?.dispose())

/** Every multipart endpoint of the API, with a query string that is otherwise valid. */
const multipartEndpoints: Record<string, () => string> = {
  "POST /api/sources": () => `/api/sources?knowledgeSpaceId=${spaceId}&classification=INTERNAL`,
  "POST /api/assistant/files": () => "/api/assistant/files",
  "POST /api/assistant/evidence": () => `/api/assistant/evidence?conversationId=${conversationId}&knowledgeSpaceId=${spaceId}`
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
const raw = (path: string, headers: Record<string, string>, body: Buffer): Promise<RawAnswer> =>
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
    const head = [`POST ${path} HTTP/1.1`, `host: ${url.host}`, `authorization: Bearer ${server.adminToken}`, "connection: close", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
    socket.write(head.join("\r\n") + "\r\n\r\n")
    socket.write(body)
  })

const part = (boundary: string, content: string) =>
  Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`)

describe.each(Object.entries(multipartEndpoints))("malformed multipart bodies to %s", (_name, endpoint) => {
  const path = () => endpoint()
  it("with no boundary in the content type: 400 MALFORMED_BODY", async () => {
    const body = part("xyz", "hello")
    const answer = await raw(path(), { "content-type": "multipart/form-data", "content-length": String(body.length) }, body)
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ code: "MALFORMED_BODY" })
  })

  it("cut before its end (Content-Length promises more): 400 MALFORMED_BODY promptly, not a hang", async () => {
    const body = part("xyz", "hello world")
    const answer = await raw(path(), { "content-type": "multipart/form-data; boundary=xyz", "content-length": String(body.length + 500) }, body.subarray(0, 60))
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ code: "MALFORMED_BODY" })
  })

  it("whose closing boundary never comes: 400 MALFORMED_BODY", async () => {
    const body = Buffer.from(`--xyz\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello`)
    const answer = await raw(path(), { "content-type": "multipart/form-data; boundary=xyz", "content-length": String(body.length) }, body)
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ code: "MALFORMED_BODY" })
  })

  it("a well-formed body still uploads (201)", async () => {
    const body = part("xyz", "hello from a raw socket")
    const answer = await raw(path(), { "content-type": "multipart/form-data; boundary=xyz", "content-length": String(body.length) }, body)
    expect(answer.status).toBe(201)

  })
})
