import { createLoreClient, LoreApiError, type LoreClient } from "@lore/sdk"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { uploadAssistantFile } from "@lore/sdk/node"
import { startTestServer, type TestServer } from "../support/server"

/** `lore.assistant.files` against a real server: upload with progress, wait, list, chunk-free reads, delete, typed errors. */

const notes = `# Retro notes

The team agreed to ship the quarzbeam feature behind a flag. ${"We discussed the rollout plan in detail. ".repeat(40)}
`

describe("SDK assistant files", () => {
  let server: TestServer
  let lore: LoreClient
  let dir: string

  beforeAll(async () => {
    server = await startTestServer()
    lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    dir = mkdtempSync(join(tmpdir(), "lore-sdk-files-"))
  }, 60_000)
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await server?.dispose()
  })

  it("uploads from disk with progress, waits until READY, lists, downloads and deletes", async () => {
    const path = join(dir, "retro.md")
    writeFileSync(path, notes)
    const progress: Array<number> = []
    const uploaded = await uploadAssistantFile(lore, path, { onProgress: (sent) => progress.push(sent) })
    expect(uploaded).toMatchObject({ fileName: "retro.md", status: "UPLOADED", contentLength: Buffer.byteLength(notes) })
    expect(progress.at(-1)).toBe(Buffer.byteLength(notes))
    const statuses: Array<string> = []
    const ready = await lore.assistant.files.waitUntilSettled(uploaded.id, { intervalMs: 50, onStatus: (f) => statuses.push(f.status) })
    expect(ready.status).toBe("READY")
    expect(statuses.at(-1)).toBe("READY")

    const page = await lore.assistant.files.list({ limit: 10 })
    expect(page.items.map((f) => f.id)).toEqual([uploaded.id])
    const all: Array<string> = []
    for await (const file of lore.assistant.files.all()) all.push(file.id)
    expect(all).toEqual([uploaded.id])

    const content = await lore.assistant.files.content(uploaded.id)
    expect(new TextDecoder().decode(content.bytes)).toBe(notes)
    expect(content).toMatchObject({ mediaType: "text/markdown", fileName: "retro.md" })

    await lore.assistant.files.remove(uploaded.id)
    const gone = await lore.assistant.files.get(uploaded.id).catch((error: unknown) => error)
    expect(gone).toBeInstanceOf(LoreApiError)
    expect(gone).toMatchObject({ status: 404, code: "ASSISTANT_FILE_NOT_FOUND" })
  })

  it("uploads a Blob in memory", async () => {
    const file = await lore.assistant.files.upload({ file: new Blob(["plain text notes"]), fileName: "plain.txt" })
    const done = await lore.assistant.files.waitUntilSettled(file.id, { intervalMs: 50 })
    expect(done).toMatchObject({ status: "READY", mediaType: "text/plain" })
  })
})
