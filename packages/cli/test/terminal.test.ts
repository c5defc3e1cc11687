import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"
import { type ServedLore, serveLore } from "./support/serve"
import { loreOnTerminal, screenText, scriptPath } from "./support/terminal"

// What a person sees at a terminal (issue 10.4, 10.6, 10.7), on a pseudo-terminal through util-linux script.

let server: ServedLore
let dir: string
const env = () => ({ XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: server.url, LORE_TOKEN: server.adminToken })
const LONG_TITLE = "An exceedingly long document title that no narrow terminal could ever show whole"
let sourceId: string

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  dir = mkdtempSync(join(tmpdir(), "lore-cli-terminal-"))
  writeFileSync(join(dir, "long.md"), "# Long\n\nThe lighthouse keeper logs every passing ship.\n")
  const added = await lore(["sources", "add", join(dir, "long.md"), "--space", "general", "--title", LONG_TITLE, "--json"], { env: env(), timeoutMs: 120_000 })
  expect(added.code, added.stderr).toBe(0)
  sourceId = added.json()[0].sourceId
})
afterAll(async () => {
  await server?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The lines of the final screen that hold `text`. */
const linesWith = (output: string, text: string) => screenText(output).split("\n").filter((line) => line.includes(text))

describe.skipIf(!scriptPath)("on a terminal", () => {
  it("fits a table to the terminal: columns apart, free text cut with …, ids whole (issue 10.4)", async () => {
    for (const columns of [80, 120]) {
      const { code, output } = await loreOnTerminal(["sources", "list"], { env: env(), columns })
      expect(code, screenText(output)).toBe(0)
      const [header] = linesWith(output, "CLASSIFICATION")
      expect(header, screenText(output)).toMatch(/^ID\s{2,}TITLE\s{2,}STATUS\s{2,}CLASSIFICATION\s{2,}SPACE/)
      const [row] = linesWith(output, sourceId)
      expect(row, screenText(output)).toContain(sourceId)
      expect(row).toContain("…")
      expect(row).not.toContain(LONG_TITLE)
      for (const line of [header!, row!]) expect(line.trimEnd().length).toBeLessThanOrEqual(columns)
    }
    // A terminal wide enough shows every column, the title whole.
    const wide = await loreOnTerminal(["sources", "list"], { env: env(), columns: 250 })
    expect(linesWith(wide.output, sourceId)[0]).toContain(LONG_TITLE)
    expect(linesWith(wide.output, "CLASSIFICATION")[0]).toMatch(/SPACE\s{2,}VERSION\s{2,}CHUNKS\s{2,}UPDATED/)
  })

  it("marks the cited passage with bold and colour, not with markers (issue 10.5)", async () => {
    const found = await lore(["search", "lighthouse keeper", "--json"], { env: env() })
    const citationId = found.json().evidence[0].citationId as string
    const { code, output } = await loreOnTerminal(["cite", citationId], { env: env() })
    expect(code, screenText(output)).toBe(0)
    expect(output).toMatch(/\u001b\[1m(\u001b\[[0-9;]*m)*The lighthouse keeper logs every passing ship\./)
    expect(screenText(output)).not.toContain("»")
  })

  it("with CI set prints the result once, as plain text (issue 10.7)", async () => {
    const { code, output } = await loreOnTerminal(["tokens", "list"], { env: { ...env(), CI: "true" } })
    expect(code).toBe(0)
    expect(linesWith(output, "PREFIX")).toHaveLength(1)
    expect(linesWith(output, "bootstrap")).toHaveLength(1)
  })

  it("after the bytes are sent, shows the ingestion state until the source settles (issue 10.6)", async () => {
    writeFileSync(join(dir, "spinner.md"), "# Spinner\n\nThe cormorant dries its wings on the pier.\n")
    const { code, output } = await loreOnTerminal(["sources", "add", join(dir, "spinner.md"), "--space", "general"], { env: env(), timeoutMs: 120_000 })
    const screen = screenText(output)
    expect(code, screen).toBe(0)
    expect(screen).toMatch(/spinner\.md\s+(uploaded, the server is storing it|ingesting: PROCESSING)/)
    expect(screen).toMatch(/^READY\s+\S*spinner\.md\s+[0-9a-f-]{36}\s+v1/m)
    expect(screen).toContain("1 file into general: 1 ready")
  })

  it("with --json, draws the progress on stderr and keeps stdout one JSON document (issue 10.6)", async () => {
    writeFileSync(join(dir, "quiet.md"), "# Quiet\n\nThe heron waits in the shallows.\n")
    const out = join(dir, "out.json")
    const { code, output } = await loreOnTerminal(["sources", "add", join(dir, "quiet.md"), "--space", "general", "--json"], { env: env(), stdoutTo: out, timeoutMs: 120_000 })
    const screen = screenText(output)
    expect(code, screen).toBe(0)
    expect(screen).toMatch(/quiet\.md\s+(uploaded, the server is storing it|ingesting: PROCESSING)|^READY\s+\S*quiet\.md/m)
    const results = JSON.parse(readFileSync(out, "utf8"))
    expect(results).toEqual([expect.objectContaining({ status: "READY", sourceId: expect.stringMatching(/^[0-9a-f-]{36}$/) })])
  })
})
