import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedLore, serveLore } from "./support/serve"
import { ANSI, binary, ensureBuilt, lore, newConfigHome } from "./support/cli"

// `lore sources|search|catalog|cite` against a real server, through the built binary, with real files.

let server: ServedLore
let dir: string
let env: () => Record<string, string>
const slow = { timeoutMs: 120_000 }
const UPLOAD_LIMIT = 200_000

const handbook = `# Travel handbook

## Booking

Book flights through the travel desk at least two weeks ahead.

## Per diem

The per diem for the Lisbon office is forty-two euros, paid with the monthly salary.
`
const notes = "Meeting notes\n\nThe orchard irrigation schedule moves to Thursdays from March onwards.\n"
const extraA = "Glossary A\n\nA quokka is a small wallaby living on Rottnest Island.\n"
const extraB = "Glossary B\n\nThe narwhal tusk is an elongated canine tooth.\n"
// The first bytes of a PNG: a type Lore does not ingest (415).
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])

const path = (...parts: Array<string>) => join(dir, ...parts)

/** `lore` run in a given working directory (the shared helper always runs in the test's). */
const loreIn = (cwd: string, args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [binary, ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: dir, ...env() }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    )
  })

beforeAll(async () => {
  ensureBuilt()
  // A small upload limit, so a test can exceed it (issue 10.7); every other file here is far below it.
  server = await serveLore({ LORE_MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT) })
  const home = newConfigHome()
  env = () => ({ XDG_CONFIG_HOME: home, LORE_SERVER: server.url, LORE_TOKEN: server.adminToken })
  dir = mkdtempSync(join(tmpdir(), "lore-cli-knowledge-"))
  mkdirSync(path("extra"))
  writeFileSync(path("handbook.md"), handbook)
  writeFileSync(path("notes.txt"), notes)
  writeFileSync(path("extra", "glossary-a.txt"), extraA)
  writeFileSync(path("extra", "glossary-b.txt"), extraB)
  writeFileSync(path("image.png"), png)
  // Looks like a PDF (so it is accepted) but cannot be parsed: ingestion ends in ATTENTION.
  writeFileSync(path("broken.pdf"), "%PDF-1.4\nthis is not really a pdf\n%%EOF\n")
})
afterAll(async () => {
  await server?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe("lore sources, search, catalog and cite", () => {
  let added: Array<Record<string, any>>
  const idOf = (file: string) => added.find((result) => result.file.endsWith(file))!.sourceId as string

  it("sources add uploads files and a glob pattern, waits until READY, and reports a refused file without stopping the others", async () => {
    const result = await lore(
      ["sources", "add", path("handbook.md"), path("notes.txt"), `${dir}/**/glossary-?.txt`, path("image.png"), path("broken.pdf"), "--space", "general", "--json"],
      { env: env(), ...slow }
    )
    expect(result.code, result.stderr).toBe(6)
    expect(result.stderr).toBe("")
    added = result.json()
    expect(added.map((entry) => entry.file)).toEqual([path("handbook.md"), path("notes.txt"), path("extra", "glossary-a.txt"), path("extra", "glossary-b.txt"), path("image.png"), path("broken.pdf")])
    for (const entry of added.slice(0, 4)) {
      expect(entry).toMatchObject({ status: "READY", sourceId: expect.stringMatching(/^[0-9a-f-]{36}$/), versionNumber: 1 })
      // Who can read it, from the upload's answer (issue 10.6).
      expect(entry.audience).toMatchObject({ readers: 1, spaceMembers: 1, summary: expect.stringContaining("readable by 1 of 1") })
      expect(entry.failureCode).toBeUndefined()
    }
    expect(added[4]).toMatchObject({ status: "FAILED", sourceId: null, failureCode: expect.stringMatching(/^[A-Z_]+$/), httpStatus: 415 })
    expect(added[4]!.failureMessage).toEqual(expect.any(String))
    expect(added[5]).toMatchObject({ status: "ATTENTION", sourceId: expect.any(String), versionNumber: 1, failureCode: expect.stringMatching(/^[A-Z_]+$/), failureMessage: expect.any(String) })
  })

  it("plain output is one line per file, without escape codes; --no-wait returns while PROCESSING", async () => {
    writeFileSync(path("plain.txt"), "Plain output check\n\nThe heron counts fish at dawn.\n")
    const plain = await lore(["sources", "add", path("plain.txt"), path("image.png"), "--space", "general", "--classification", "internal"], {
      env: { ...env(), FORCE_COLOR: "1" },
      ...slow
    })
    expect(plain.code).toBe(6)
    expect(plain.stdout).not.toMatch(ANSI)
    const lines = plain.stdout.trimEnd().split("\n")
    expect(lines).toHaveLength(3)
    const ready = lines.findIndex((line) => line.includes("plain.txt"))
    expect(lines[ready]).toMatch(/^READY\s+\S*plain\.txt\s+[0-9a-f-]{36}\s+v1$/)
    // After the file's line, who can read it (issue 10.6): INTERNAL is read from clearance STANDARD up.
    expect(lines[ready + 1]).toMatch(/^\s+readable by 1 of 1 members of space general/)
    expect(lines.find((line) => line.includes("image.png"))).toMatch(/^FAILED\s+\S*image\.png\s+-\s+[A-Z_]+: /)
    expect(plain.stderr).toMatch(/^error: 1 of 2 files failed: .*image\.png/)

    writeFileSync(path("later.txt"), "Later\n\nThe kestrel hovers over the meadow.\n")
    const noWait = await lore(["sources", "add", path("later.txt"), "--space", "general", "--no-wait", "--json"], { env: env(), ...slow })
    expect(noWait.code, noWait.stderr).toBe(0)
    expect(noWait.json()).toEqual([expect.objectContaining({ status: "PROCESSING", sourceId: expect.any(String) })])
  })

  it("sources list shows them, with filters, and sources show one of them", async () => {
    const listed = await lore(["sources", "list", "--json"], { env: env() })
    expect(listed.code, listed.stderr).toBe(0)
    const listing = listed.json()
    const ids = listing.items.map((source: { id: string }) => source.id)
    for (const file of ["handbook.md", "notes.txt", "glossary-a.txt", "glossary-b.txt"]) expect(ids).toContain(idOf(file))
    expect(listing.total).toBeGreaterThanOrEqual(6)
    expect(listing.statusCounts).toMatchObject({ ready: expect.any(Number), processing: expect.any(Number), attention: 1 })

    const internal = (await lore(["sources", "list", "--classification", "INTERNAL", "--space", "general", "--all", "--json"], { env: env() })).json()
    expect(internal.items.map((source: { fileName: string }) => source.fileName)).toEqual(["plain.txt"])
    expect(internal.nextCursor).toBeNull()

    const limited = (await lore(["sources", "list", "--limit", "2", "--json"], { env: env() })).json()
    expect(limited.items).toHaveLength(2)
    expect(limited.nextCursor).toEqual(expect.any(String))

    const table = await lore(["sources", "list", "--q", "handbook"], { env: { ...env(), FORCE_COLOR: "1" } })
    expect(table.stdout).not.toMatch(ANSI)
    const [header, row] = table.stdout.trimEnd().split("\n")
    expect(header).toMatch(/^ID\s+TITLE\s+STATUS\s+CLASSIFICATION\s+SPACE\s+VERSION\s+CHUNKS\s+UPDATED$/)
    expect(row).toContain(idOf("handbook.md"))
    expect(row).toMatch(/READY\s+CONFIDENTIAL\s+general/)

    const shown = await lore(["sources", "show", idOf("handbook.md"), "--json"], { env: env() })
    expect(shown.json()).toMatchObject({ id: idOf("handbook.md"), fileName: "handbook.md", status: "READY", knowledgeSpaceKey: "general" })
  })

  let citationId: string
  it("search finds a phrase with citation ids; plain output highlights nothing but shows title, section and citation", async () => {
    const result = await lore(["search", "per diem Lisbon office", "--json"], { env: env() })
    expect(result.code, result.stderr).toBe(0)
    const found = result.json()
    expect(found).toMatchObject({ requestId: expect.any(String), mode: expect.stringMatching(/^(lexical|hybrid)$/) })
    const top = found.evidence[0]
    expect(top).toMatchObject({ title: "handbook", heading: "Per diem", citationId: expect.stringMatching(/^[0-9a-f-]{36}$/) })
    expect(top.content).toContain("forty-two euros")
    expect(top.highlights.map((term: string) => term.toLowerCase())).toContain("lisbon")
    citationId = top.citationId

    const plain = await lore(["search", "per diem Lisbon office", "--limit", "1"], { env: { ...env(), FORCE_COLOR: "1" } })
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).not.toMatch(ANSI)
    expect(plain.stdout).toContain("1. handbook › Travel handbook › Per diem")
    expect(plain.stdout).toContain(`citation ${citationId}`)
    expect(plain.stdout).toContain("forty-two euros")
    // The next page: the terminal says how to get it, and --offset gets it ("travel" is in both sections' heading path).
    const both = (await lore(["search", "travel per diem", "--json"], { env: env() })).json().evidence.map((hit: { citationId: string }) => hit.citationId)
    expect(both).toHaveLength(2)
    expect((await lore(["search", "travel per diem", "--limit", "1"], { env: env() })).stdout).toContain("More results: add --offset 1")
    const second = await lore(["search", "travel per diem", "--limit", "1", "--offset", "1", "--json"], { env: env() })
    expect(second.json()).toMatchObject({ nextOffset: null })
    expect(second.json().evidence.map((hit: { citationId: string }) => hit.citationId)).toEqual([both[1]])

    const none = await lore(["search", "xylophone zeppelin", "--json"], { env: env() })
    expect(none.json().evidence).toEqual([])
  })

  it("cite shows the excerpt, and --content downloads the cited document", async () => {
    const excerpt = await lore(["cite", citationId, "--json"], { env: env() })
    expect(excerpt.code, excerpt.stderr).toBe(0)
    expect(excerpt.json()).toMatchObject({ citationId, title: "handbook", heading: "Per diem", presentationKind: "MARKDOWN", truncated: expect.any(Boolean) })
    expect(excerpt.json().excerpt).toContain("forty-two euros")

    const plain = await lore(["cite", citationId], { env: env() })
    expect(plain.stdout).not.toMatch(ANSI)
    expect(plain.stdout).toMatch(/^handbook\nSection:\s+Per diem\n/)
    // The cited passage is marked, piped, with » «, at the server's offsets; its context is not (issue 10.5).
    const { excerpt: text, highlightStart, highlightEnd } = excerpt.json()
    expect(text.slice(highlightStart, highlightEnd)).toContain("forty-two euros")
    expect(plain.stdout).toContain("»The per diem for the Lisbon office is forty-two euros, paid with the monthly salary.«")
    expect(plain.stdout.match(/»/g)).toHaveLength(1)

    const saved = await lore(["cite", citationId, "--content", "--output", path("cited.md"), "--json"], { env: env() })
    expect(saved.code, saved.stderr).toBe(0)
    expect(saved.json()).toMatchObject({ citationId, path: path("cited.md"), mediaType: expect.stringContaining("markdown") })
    expect(readFileSync(path("cited.md"), "utf8")).toBe(handbook)
  })

  it("catalog lists the latest version of each document", async () => {
    const result = await lore(["catalog", "--json"], { env: env() })
    expect(result.code, result.stderr).toBe(0)
    const titles = result.json().map((entry: { title: string }) => entry.title)
    expect(titles).toEqual(expect.arrayContaining(["handbook", "notes", "glossary-a", "glossary-b"]))
    const plain = await lore(["catalog", "--space", "general"], { env: { ...env(), FORCE_COLOR: "1" } })
    expect(plain.stdout).not.toMatch(ANSI)
    expect(plain.stdout).toMatch(/^TITLE\s+VERSION\s+CLASSIFICATION\s+SPACE\s+MEDIA TYPE\s+UPDATED\s+ASSET ID\n/)
    expect(plain.stdout).toMatch(/handbook\s+v1\s+CONFIDENTIAL\s+general\s+text\/markdown/)
  })

  it("sources open writes the identical bytes, by default under the original name, and never overwrites without --force", async () => {
    const id = idOf("handbook.md")
    const explicit = await lore(["sources", "open", id, "--output", path("copy.md"), "--json"], { env: env() })
    expect(explicit.code, explicit.stderr).toBe(0)
    expect(explicit.json()).toMatchObject({ sourceId: id, path: path("copy.md"), bytes: Buffer.byteLength(handbook) })
    expect(readFileSync(path("copy.md"))).toEqual(readFileSync(path("handbook.md")))

    const cwd = mkdtempSync(join(tmpdir(), "lore-cli-open-"))
    try {
      const first = await loreIn(cwd, ["sources", "open", id])
      expect(first.code, first.stderr).toBe(0)
      expect(first.stdout).toMatch(/^Saved .* to handbook\.md\n$/)
      expect(readFileSync(join(cwd, "handbook.md"), "utf8")).toBe(handbook)

      writeFileSync(join(cwd, "handbook.md"), "local edits")
      const refused = await loreIn(cwd, ["sources", "open", id])
      expect(refused.code).toBe(6)
      expect(refused.stderr).toMatch(/already exists.*\n.*--force/)
      expect(readFileSync(join(cwd, "handbook.md"), "utf8")).toBe("local edits")

      const forced = await loreIn(cwd, ["sources", "open", id, "--force"])
      expect(forced.code, forced.stderr).toBe(0)
      expect(readFileSync(join(cwd, "handbook.md"), "utf8")).toBe(handbook)
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }

    const piped = await lore(["sources", "open", id, "--output", "-"], { env: env() })
    expect(piped.code).toBe(0)
    expect(piped.stdout).toBe(handbook)
  })

  it("sources rm needs --yes without a terminal (exit 2), then deletes: search stops finding it and its citation is gone", async () => {
    const id = idOf("handbook.md")
    const refused = await lore(["sources", "rm", id], { env: env() })
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe("")
    expect(refused.stderr).toContain("--yes")
    const refusedJson = await lore(["sources", "rm", id, "--json"], { env: env() })
    expect(refusedJson.code).toBe(2)
    expect(refusedJson.json().error).toMatchObject({ code: "USAGE_ERROR", detail: expect.stringContaining("--yes") })
    expect((await lore(["search", "per diem Lisbon office", "--json"], { env: env() })).json().evidence.length).toBeGreaterThan(0)

    const removed = await lore(["sources", "rm", id, "--yes", "--json"], { env: env() })
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.json()).toMatchObject({ sourceId: id, status: expect.stringMatching(/^(PENDING|COMPLETED)$/) })

    const after = (await lore(["search", "per diem Lisbon office", "--json"], { env: env() })).json()
    expect(after.evidence.filter((evidence: { title: string }) => evidence.title === "handbook")).toEqual([])
    const gone = await lore(["cite", citationId, "--json"], { env: env() })
    expect(gone.code).toBe(5)
    expect(gone.json().error).toMatchObject({ status: 404 })
    const again = await lore(["sources", "rm", id, "--yes"], { env: env() })
    expect(again.code).toBe(5)
  })
})

describe("usage errors of the knowledge commands", () => {
  it.each([
    [["sources", "add", "/nonexistent/file.md", "--space", "general"], "no such file"],
    [["sources", "add", "/nonexistent/*.md", "--space", "general"], "no files match"],
    [["sources", "add", "README.md"], "--space"],
    [["sources", "add", "a.md", "b.md", "--space", "general", "--title", "T"], "--title"],
    [["sources", "add", "a.md", "--space", "general", "--classification", "SECRET"], "CONFIDENTIAL"],
    [["sources", "add", "a.md", "--space", "general", "--concurrency", "0"], "1 to 16"],
    [["sources", "list", "--limit", "5", "--all"], "--all"],
    [["sources", "show", "not-a-uuid"], "not a source id"],
    [["search", "   "], "empty"],
    [["search", "x", "--limit", "101"], "1 to 100"],
    [["search", "x", "--offset", "500"], "0 to 499"],
    [["cite", "not-a-uuid"], "not a citation id"],
    [["cite", "00000000-0000-4000-8000-000000000000", "--output", "x"], "--content"]
  ])("exit 2 for %j", async (args, message) => {
    if (args.includes("a.md")) writeFileSync(path("a.md"), "# A\n\nalpha\n")
    if (args.includes("b.md")) writeFileSync(path("b.md"), "# B\n\nbeta\n")
    const result = await lore(
      args.map((arg) => (arg === "a.md" || arg === "b.md" ? path(arg) : arg)),
      { env: env() }
    )
    expect(result.code, result.stderr).toBe(2)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain(message)
  })

  it("a file over the server's upload limit is refused with a message that says the limit (issue 10.7)", async () => {
    writeFileSync(path("huge.txt"), "x".repeat(UPLOAD_LIMIT * 3))
    const result = await lore(["sources", "add", path("huge.txt"), "--space", "general"], { env: env(), ...slow })
    expect(result.code).toBe(6)
    expect(result.stdout).toMatch(/PAYLOAD_TOO_LARGE: .*at most 200000 bytes/)
    expect(result.stderr).toMatch(/^error: 1 of 1 file failed: .*huge\.txt: PAYLOAD_TOO_LARGE \(.*at most 200000 bytes.*\)/)
  })

  it("an unknown space is not found (exit 5) and names the spaces there are", async () => {
    const result = await lore(["sources", "add", path("notes.txt"), "--space", "no-such-space"], { env: env() })
    expect(result.code).toBe(5)
    expect(result.stderr).toMatch(/no knowledge space 'no-such-space'.*\n.*general/)
    const search = await lore(["search", "x", "--space", "no-such-space", "--json"], { env: env() })
    expect(search.code).toBe(5)
    expect(search.json().error).toMatchObject({ code: "SPACE_NOT_FOUND" })
  })
})
