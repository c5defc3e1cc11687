import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Reply } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"
import { client, type Client, expectProblemReply, listAll, settled, upload, uploaded } from "./support"

/**
 * Cursor paging over sources: every source that existed when paging began is visited exactly once,
 * even while more are uploaded (and ingested) concurrently; the last page says nextCursor null.
 */
describe("paging through sources", { timeout: 180_000 }, () => {
  let server: TestServer
  let admin: Client
  let space: string
  const initial: Array<string> = []

  const note = (i: number) => ({ spaceId: space, name: `note-${String(i).padStart(3, "0")}.txt`, bytes: `Note ${i}: the wren count was ${i * 7}.`, type: "text/plain" })

  beforeAll(async () => {
    server = await startTestServer()
    admin = client(server.url, server.adminToken)
    space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "notes", name: "Notes" })).body.id
    // Uploaded in concurrent bursts, as a CLI adding a folder does: many share a creation millisecond.
    for (let burst = 0; burst < 3; burst++) {
      const sources = await Promise.all(Array.from({ length: 20 }, (_, i) => uploaded(admin, note(burst * 20 + i))))
      initial.push(...sources.map((s) => s.id))
    }
  }, 180_000)
  afterAll(() => server?.dispose())

  it("visits every source that existed before paging began exactly once, while more are uploaded", async () => {
    expect(new Set(initial).size).toBe(60)
    const visits = new Map<string, number>()
    let pages = 0
    let more = 0
    let uploading = true
    const uploader = (async () => {
      for (let i = 0; uploading && i < 40; i++) {
        await Promise.all([uploaded(admin, note(1000 + 2 * i)), uploaded(admin, note(1001 + 2 * i))])
        more += 2
      }
    })()
    try {
      let cursor: string | null = null
      do {
        const query: URLSearchParams = new URLSearchParams({ knowledgeSpaceId: space, pageSize: "7", ...(cursor ? { cursor } : {}) })
        const reply: Reply = await admin.call("GET", `/api/sources?${query}`)
        expect(reply.status, JSON.stringify(reply.body)).toBe(200)
        expect(reply.body.pageSize).toBe(7)
        expect(reply.body.items.length).toBeLessThanOrEqual(7)
        if (reply.body.nextCursor !== null) expect(reply.body.items).toHaveLength(7)
        for (const item of reply.body.items) visits.set(item.id, (visits.get(item.id) ?? 0) + 1)
        cursor = reply.body.nextCursor
        pages++
        // Give the uploader room to interleave with the pages.
        await new Promise((resolve) => setTimeout(resolve, 5))
      } while (cursor !== null && pages < 100)
      expect(cursor).toBeNull()
    } finally {
      uploading = false
      await uploader
    }
    expect(more).toBeGreaterThan(0)
    const missing = initial.filter((id) => !visits.has(id))
    expect(missing, `${missing.length} of 60 never visited`).toEqual([])
    for (const id of initial) expect(visits.get(id), id).toBe(1)
    for (const [id, count] of visits) expect(count, id).toBe(1)
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(60 / 7))
  })

  it("pages newest first, and a walk with no concurrent uploads sees exactly the total", async () => {
    const all = await listAll(admin, { knowledgeSpaceId: space })
    await Promise.all(all.items.map((s) => settled(admin, s.id)))
    const seen: Array<Record<string, any>> = []
    let cursor: string | null = null
    let total = -1
    do {
      const reply: Reply = await admin.call("GET", `/api/sources?${new URLSearchParams({ knowledgeSpaceId: space, pageSize: "7", ...(cursor ? { cursor } : {}) })}`)
      total = reply.body.total
      seen.push(...reply.body.items)
      cursor = reply.body.nextCursor
    } while (cursor !== null)
    expect(seen).toHaveLength(total)
    expect(new Set(seen.map((s) => s.id)).size).toBe(total)
    for (let i = 1; i < seen.length; i++) {
      expect(new Date(seen[i - 1]!.createdAt).getTime()).toBeGreaterThanOrEqual(new Date(seen[i]!.createdAt).getTime())
    }
    // A filter pages the same way: every READY source once.
    const ready = await listAll(admin, { knowledgeSpaceId: space, status: "READY" })
    expect(ready.items).toHaveLength(total)
    expect(ready.statusCounts).toEqual({ processing: 0, ready: total, attention: 0 })
  })

  it("defaults to pages of 25", async () => {
    const reply = await admin.call("GET", `/api/sources?knowledgeSpaceId=${space}`)
    expect(reply.body.pageSize).toBe(25)
    expect(reply.body.items).toHaveLength(25)
    expect(typeof reply.body.nextCursor).toBe("string")
  })

  it("refuses cursors it did not issue with 400 INVALID_CURSOR", async () => {
    const crafted = (text: string) => Buffer.from(text).toString("base64url")
    for (const cursor of ["not a cursor", "%%%", crafted("yesterday|00000000-0000-4000-8000-000000000000"), crafted("2026-01-01T00:00:00.000Z|not-a-uuid"), crafted("2026-01-01T00:00:00.000Z")]) {
      const reply = await admin.call("GET", `/api/sources?cursor=${encodeURIComponent(cursor)}`)
      expectProblemReply(reply, 400, "INVALID_CURSOR")
    }
  })

  it("refuses page sizes outside 1..200 with 400", async () => {
    for (const pageSize of ["201", "0", "-1", "seven", "2.5"]) {
      const reply = await admin.call("GET", `/api/sources?pageSize=${pageSize}`)
      expectProblemReply(reply, 400)
    }
    expect((await admin.call("GET", `/api/sources?pageSize=200`)).status).toBe(200)
    // Refused uploads do not disturb paging (nothing is created).
    expect((await upload(admin, { spaceId: space, name: "empty.txt", bytes: "" })).status).toBe(422)
  })
})
