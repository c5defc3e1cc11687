import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createLoreClient, fileNameFrom, LoreApiError, multipartBody, type UploadSource } from "../src/index"
import { uploadFile } from "../src/node"
import { parseMultipart } from "./support/multipart"
import { json, problem, startStub } from "./support/stubServer"

const SPACE = "6f9619ff-8b86-4011-b42d-00c04fc964ff"
const sourceReply = { id: "00000000-0000-4000-8000-000000000001", status: "PROCESSING" }

// Random bytes of an odd size (not a multiple of the 64 KiB chunk), with CRLF and dashes sprinkled in
// so that anything resembling a boundary inside the file would break a sloppy encoder.
const payload = () => {
  const bytes = randomBytes(300_007)
  for (let i = 0; i < bytes.length; i += 9_973) bytes.write("\r\n--", i, "latin1")
  return new Uint8Array(bytes)
}

const progressRecorder = () => {
  const calls: Array<[number, number | undefined]> = []
  return { calls, onProgress: (sent: number, total: number | undefined) => void calls.push([sent, total]) }
}

const expectProgress = (calls: Array<[number, number | undefined]>, total: number) => {
  expect(calls.length).toBeGreaterThan(3)
  expect(calls[0]).toEqual([0, total])
  expect(calls.at(-1)).toEqual([total, total])
  for (let i = 1; i < calls.length; i++) expect(calls[i]![0]).toBeGreaterThanOrEqual(calls[i - 1]![0])
}

describe("multipart uploads", () => {
  let stub: Awaited<ReturnType<typeof startStub>> | undefined
  afterEach(async () => {
    await stub?.close()
    stub = undefined
  })

  const sources: Array<[string, (bytes: Uint8Array) => UploadSource, boolean]> = [
    ["Uint8Array", (bytes) => bytes, false],
    ["Blob", (bytes) => new Blob([new Uint8Array(bytes)], { type: "application/pdf" }), false],
    ["ReadableStream", (bytes) => new Blob([new Uint8Array(bytes)]).stream(), true]
  ]

  it.each(sources)("sends a %s intact through lore.sources.upload, with progress up to the total", async (_kind, make, isStream) => {
    stub = await startStub(json(201, sourceReply))
    const lore = createLoreClient({ baseUrl: stub.url, token: "lore_pat_test" })
    const bytes = payload()
    const progress = progressRecorder()
    const answer = await lore.sources.upload({
      knowledgeSpaceId: SPACE,
      classification: "INTERNAL",
      title: "Quarterly report",
      file: make(bytes),
      fileName: "report \"Q3\".pdf",
      ...(isStream ? { size: bytes.byteLength } : {}),
      onProgress: progress.onProgress
    })
    expect(answer).toEqual(sourceReply)

    const [request] = stub.seen
    expect(request!.method).toBe("POST")
    const url = new URL(request!.url, stub.url)
    expect(url.pathname).toBe("/api/sources")
    expect(Object.fromEntries(url.searchParams)).toEqual({ knowledgeSpaceId: SPACE, classification: "INTERNAL", title: "Quarterly report" })
    expect(request!.headers.authorization).toBe("Bearer lore_pat_test")
    expect(request!.headers["transfer-encoding"]).toBe("chunked") // streamed, not buffered into one body
    const parts = parseMultipart(request!.headers, request!.raw)
    expect(parts).toHaveLength(1)
    expect(parts[0]).toMatchObject({ name: "file", fileName: "report %22Q3%22.pdf" })
    expect(parts[0]!.headers["content-type"]).toBe("application/pdf")
    expect(Buffer.compare(parts[0]!.data, Buffer.from(bytes))).toBe(0)
    expectProgress(progress.calls, bytes.byteLength)
  })

  it("streams a file from disk with uploadFile (@lore/sdk/node), the file's size as total", async () => {
    stub = await startStub(json(201, sourceReply))
    const lore = createLoreClient({ baseUrl: stub.url, token: "lore_pat_test" })
    const dir = mkdtempSync(join(tmpdir(), "lore-sdk-"))
    try {
      const bytes = payload()
      const path = join(dir, "Bereitschaft – Überblick's (v2).md")
      writeFileSync(path, bytes)
      const progress = progressRecorder()
      await uploadFile(lore, path, { knowledgeSpaceId: SPACE, onProgress: progress.onProgress })
      const parts = parseMultipart(stub.seen[0]!.headers, stub.seen[0]!.raw)
      expect(parts[0]).toMatchObject({ name: "file", fileName: "Bereitschaft – Überblick's (v2).md", asciiFileName: "Bereitschaft _ _berblick's (v2).md" })
      expect(parts[0]!.headers["content-disposition"]).toContain("filename*=UTF-8''Bereitschaft%20%E2%80%93%20%C3%9Cberblick%27s%20%28v2%29.md")
      expect(parts[0]!.headers["content-type"]).toBe("text/markdown")
      expect(Buffer.compare(parts[0]!.data, Buffer.from(bytes))).toBe(0)
      expectProgress(progress.calls, bytes.byteLength)
      expect(Object.fromEntries(new URL(stub.seen[0]!.url, stub.url).searchParams)).toEqual({ knowledgeSpaceId: SPACE })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("never retries an upload, even on 503", async () => {
    stub = await startStub(problem(503, "UNAVAILABLE"), json(201, sourceReply))
    const lore = createLoreClient({ baseUrl: stub.url, token: "lore_pat_test", retry: { baseDelayMs: 1 } })
    const error = await lore.sources.upload({ knowledgeSpaceId: SPACE, file: new Uint8Array([104, 105]), fileName: "hi.txt" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LoreApiError)
    expect(error).toMatchObject({ status: 503, code: "UNAVAILABLE" })
    expect(stub.seen).toHaveLength(1)
  })

  it("in cookie mode sends the CSRF token, and does not keep a copy of the stream to replay", async () => {
    stub = await startStub(json(200, { headerName: "X-CSRF-Token", parameterName: "_csrf", token: "csrf-1" }), problem(403, "CSRF_TOKEN_INVALID"))
    const lore = createLoreClient({ baseUrl: stub.url, auth: "cookie" })
    const error = await lore.sources.upload({ knowledgeSpaceId: SPACE, file: payload(), fileName: "big.bin" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 403, code: "CSRF_TOKEN_INVALID" })
    expect(stub.seen.map((r) => `${r.method} ${new URL(r.url, stub!.url).pathname}`)).toEqual(["GET /api/session/csrf", "POST /api/sources"])
    expect(stub.seen[1]!.headers["x-csrf-token"]).toBe("csrf-1")
  })

  it("takes the name from a File and refuses a nameless source", async () => {
    stub = await startStub(json(201, sourceReply))
    const lore = createLoreClient({ baseUrl: stub.url, token: "lore_pat_test" })
    await lore.sources.upload({ knowledgeSpaceId: SPACE, file: new File(["# Notes\n"], "notes.md", { type: "text/markdown" }) })
    expect(parseMultipart(stub.seen[0]!.headers, stub.seen[0]!.raw)[0]).toMatchObject({ fileName: "notes.md", data: Buffer.from("# Notes\n") })
    await expect(lore.sources.upload({ knowledgeSpaceId: SPACE, file: new Uint8Array([1]) })).rejects.toThrow(/fileName/)
  })

  it("stops reading the source when the upload is aborted", async () => {
    // A server that never answers: the request stays open until the client aborts.
    stub = await startStub(() => undefined)
    const lore = createLoreClient({ baseUrl: stub.url, token: "lore_pat_test" })
    let cancelled = false
    let pulls = 0
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        pulls++
        controller.enqueue(new Uint8Array(1024))
      },
      cancel: () => {
        cancelled = true
      }
    })
    const controller = new AbortController()
    const upload = lore.sources.upload({ knowledgeSpaceId: SPACE, file: endless, fileName: "endless.txt", signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(pulls).toBeGreaterThan(0)
    controller.abort()
    await expect(upload).rejects.toMatchObject({ name: "AbortError" })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(cancelled).toBe(true)
  })

  it("builds a Blob body when streaming is off (browsers), reporting the total at once", async () => {
    const { body, contentType, total } = await multipartBody({ field: "file", source: new Uint8Array([1, 2, 3]), fileName: "a.txt", streaming: false })
    expect(body).toBeInstanceOf(Blob)
    expect(total).toBe(3)
    const boundary = contentType.split("boundary=")[1]!
    const text = await (body as Blob).text()
    expect(text).toBe(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n\x01\x02\x03\r\n--${boundary}--\r\n`)
  })
})

describe("fileNameFrom", () => {
  it("prefers filename* (RFC 5987) and falls back to filename", () => {
    expect(fileNameFrom(`inline; filename="_berblick.md"; filename*=UTF-8''%C3%9Cberblick.md`)).toBe("Überblick.md")
    expect(fileNameFrom(`attachment; filename="a \\"b\\".txt"`)).toBe(`a "b".txt`)
    expect(fileNameFrom("attachment; filename=plain.txt")).toBe("plain.txt")
    expect(fileNameFrom(null)).toBeUndefined()
  })
})
