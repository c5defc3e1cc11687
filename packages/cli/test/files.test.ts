import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedLore, serveLore } from "./support/serve"
import { ANSI, ensureBuilt, lore, newConfigHome } from "./support/cli"

// `lore files upload|list|rm` (private assistant files) against a real server, through the built binary.

let server: ServedLore
let dir: string
let env: () => Record<string, string>
const slow = { timeoutMs: 120_000 }
const FILE_LIMIT = 100_000

const path = (...parts: Array<string>) => join(dir, ...parts)
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore({ LORE_ASSISTANT_FILE_MAX_BYTES: String(FILE_LIMIT) })
  const home = newConfigHome()
  env = () => ({ XDG_CONFIG_HOME: home, LORE_SERVER: server.url, LORE_TOKEN: server.adminToken })
  dir = mkdtempSync(join(tmpdir(), "lore-cli-files-"))
  writeFileSync(path("notes.md"), "# Notes\n\nThe pelican schedule moves to Tuesdays.\n")
  writeFileSync(path("todo.txt"), "Todo\n\nWater the ferns on Fridays.\n")
  writeFileSync(path("image.png"), png)
  writeFileSync(path("huge.txt"), "word ".repeat(FILE_LIMIT / 4))
})
afterAll(async () => {
  await server?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe("lore files", () => {
  let uploaded: Array<Record<string, any>>

  it("upload waits until READY, reports a FAILED file and a refused one, and the others go on", async () => {
    const result = await lore(["files", "upload", path("notes.md"), path("todo.txt"), path("image.png"), path("huge.txt"), "--json"], { env: env(), ...slow })
    expect(result.code, result.stderr).toBe(6)
    expect(result.stderr).toBe("")
    uploaded = result.json()
    expect(uploaded.map((entry) => entry.file)).toEqual([path("notes.md"), path("todo.txt"), path("image.png"), path("huge.txt")])
    expect(uploaded[0]).toMatchObject({ status: "READY", fileId: expect.stringMatching(/^[0-9a-f-]{36}$/), mediaType: "text/markdown", expiresAt: expect.any(String) })
    expect(uploaded[1]).toMatchObject({ status: "READY", mediaType: "text/plain" })
    expect(uploaded[2]).toMatchObject({ status: "FAILED", failureCode: "UNSUPPORTED_MEDIA_TYPE", fileId: expect.any(String) })
    expect(uploaded[3]).toMatchObject({ status: "REFUSED", fileId: null, failureCode: "PAYLOAD_TOO_LARGE", httpStatus: 413 })
  })

  it("upload --no-wait returns at once; plain output is one line per file", async () => {
    const noWait = await lore(["files", "upload", path("todo.txt"), "--no-wait", "--json"], { env: env(), ...slow })
    expect(noWait.code, noWait.stderr).toBe(0)
    expect(noWait.json()).toEqual([expect.objectContaining({ status: "UPLOADED", fileId: expect.any(String) })])

    const plain = await lore(["files", "upload", path("notes.md")], { env: { ...env(), FORCE_COLOR: "1" }, ...slow })
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).not.toMatch(ANSI)
    expect(plain.stdout.trimEnd()).toMatch(/^READY\s+\S*notes\.md\s+[0-9a-f-]{36}$/)
  })

  it("list shows the caller's files, newest first, by page", async () => {
    const listed = await lore(["files", "list", "--json"], { env: env() })
    expect(listed.code, listed.stderr).toBe(0)
    const page = listed.json()
    expect(page).toMatchObject({ page: 0, hasMore: false })
    expect(page.items).toHaveLength(5)
    expect(page.items.map((f: any) => f.id)).toContain(uploaded[0]!.fileId)
    // The last upload (notes.md, alone) is the newest.
    expect(page.items[0].fileName).toBe("notes.md")

    const paged = await lore(["files", "--limit", "2", "--page", "1", "--json"], { env: env() })
    expect(paged.json()).toMatchObject({ page: 1, hasMore: true })
    expect(paged.json().items).toHaveLength(2)

    const plain = await lore(["files", "list"], { env: env() })
    expect(plain.stdout).toContain("image.png")
    expect(plain.stdout).toContain("UNSUPPORTED_MEDIA_TYPE")
  })

  it("rm deletes a file (asking only on a terminal), and a second rm is not found", async () => {
    const id = uploaded[1]!.fileId
    const refused = await lore(["files", "rm", id], { env: env() })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/--yes/)
    const removed = await lore(["files", "rm", id, "--yes", "--json"], { env: env() })
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.json()).toEqual({ fileId: id, deleted: true })
    const again = await lore(["files", "rm", id, "--yes", "--json"], { env: env() })
    expect(again.code).toBe(5)
    expect(again.json()).toMatchObject({ error: { status: 404, code: "ASSISTANT_FILE_NOT_FOUND" } })
    const listed = (await lore(["files", "list", "--json"], { env: env() })).json()
    expect(listed.items.map((f: any) => f.id)).not.toContain(id)
  })

  it("ask --file attaches a file by path (uploaded first) or by id, and cites it", async () => {
    writeFileSync(path("heron.md"), "# Heron rota\n\nThe heron feeding rota starts at dawn on Mondays.\n")
    const byPath = await lore(["ask", "When does the heron feeding rota start?", "--file", path("heron.md"), "--json"], { env: env(), ...slow })
    expect(byPath.code, byPath.stderr).toBe(0)
    const answer = byPath.json()
    expect(answer.content).toContain("dawn on Mondays")
    expect(answer.citations[0]).toMatchObject({ kind: "FILE", title: "heron.md", available: true })
    const fileId = answer.citations[0].sourceId
    expect((await lore(["files", "list", "--json"], { env: env() })).json().items.map((f: any) => f.id)).toContain(fileId)

    const byId = await lore(["ask", "When does the pelican schedule move?", "--file", uploaded[0]!.fileId], { env: env(), ...slow })
    expect(byId.code, byId.stderr).toBe(0)
    expect(byId.stdout).toContain("Tuesdays")
    expect(byId.stdout).toContain("notes.md")

    const unusable = await lore(["ask", "What is in the picture?", "--file", path("image.png"), "--json"], { env: env(), ...slow })
    expect(unusable.code).toBe(6)
    expect(unusable.json()).toEqual([expect.objectContaining({ status: "FAILED", failureCode: "UNSUPPORTED_MEDIA_TYPE" })])
  })
})
