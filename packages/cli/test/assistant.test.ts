import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedLore, serveLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"
import { loreOnTerminal, screenText, scriptPath } from "./support/terminal"

// `lore ask` and `lore conversations` against a real server, through the built binary (LOCAL answers).

let server: ServedLore
let env: () => Record<string, string>
const slow = { timeoutMs: 120_000 }

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  const home = newConfigHome()
  env = () => ({ XDG_CONFIG_HOME: home, LORE_SERVER: server.url, LORE_TOKEN: server.adminToken })
  const dir = mkdtempSync(join(tmpdir(), "lore-cli-assistant-"))
  writeFileSync(join(dir, "travel.md"), "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval.\n")
  const added = await lore(["sources", "add", join(dir, "travel.md"), "--space", "general", "--title", "Travel policy", "--json"], { env: env(), ...slow })
  expect(added.code, added.stderr).toBe(0)
})
afterAll(async () => {
  await server?.stop()
})

describe("lore ask and lore conversations", () => {
  it("streams the answer to stdout with its sources, and --json prints the saved message with citations", async () => {
    const plain = await lore(["ask", "Do flights need a manager's approval?"], { env: env(), ...slow })
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toContain("\"Flights need a manager's approval.\" [1]")
    expect(plain.stdout).toMatch(/Sources\n\[1\] Travel policy/)

    const json = await lore(["--json", "ask", "Which trips are booked by train?"], { env: env(), ...slow })
    expect(json.code, json.stderr).toBe(0)
    const message = json.json()
    expect(message).toMatchObject({ status: "COMPLETE", provider: "LOCAL", model: "lore-extractive", content: expect.stringContaining("[1]") })
    expect(message.citations).toEqual([expect.objectContaining({ citationNumber: 1, title: "Travel policy", available: true })])
    // The planner's search is a step, in --json as on a terminal.
    expect(message.steps).toEqual([expect.objectContaining({ toolName: "knowledge_search", state: "done", label: expect.stringMatching(/^searching: .*train/), outcome: "1 passage" })])

    const followUp = await lore(["--json", "ask", "And flights?", "--conversation", message.conversationId], { env: env(), ...slow })
    expect(followUp.json().conversationId).toBe(message.conversationId)

    const empty = await lore(["ask", "  "], { env: env() })
    expect(empty.code).toBe(2)
  })

  it.skipIf(!scriptPath)("shows each step as a line on a terminal: searching, then its outcome", async () => {
    const { code, output } = await loreOnTerminal(["ask", "Do flights need a manager's approval?"], { env: env(), timeoutMs: 120_000 })
    expect(code, output).toBe(0)
    const screen = screenText(output)
    expect(screen).toMatch(/✓ searching: [^\n]*flights[^\n]*\(1 passage\)/)
    expect(screen.indexOf("searching:")).toBeLessThan(screen.indexOf("Flights need a manager's approval."))
  })

  it("lists, shows, renames and removes conversations", async () => {
    const asked = (await lore(["--json", "ask", "Do flights need approval?"], { env: env(), ...slow })).json()
    const list = await lore(["--json", "conversations"], { env: env() })
    expect(list.json()[0]).toMatchObject({ id: asked.conversationId, title: "Do flights need approval?", messageCount: 2 })
    const table = await lore(["conversations", "list"], { env: env() })
    expect(table.stdout).toContain("Do flights need approval?")

    expect((await lore(["conversations", "rename", asked.conversationId, "Flights"], { env: env() })).code).toBe(0)
    const shown = await lore(["conversations", "show", asked.conversationId], { env: env() })
    expect(shown.stdout).toContain("Flights")
    expect(shown.stdout).toContain("[1] Travel policy")
    const shownJson = (await lore(["--json", "conversations", "show", asked.conversationId], { env: env() })).json()
    expect(shownJson.messages[1].citations[0]).toMatchObject({ citationNumber: 1, available: true })

    const refused = await lore(["conversations", "rm", asked.conversationId], { env: env() })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("--yes")
    expect((await lore(["conversations", "rm", asked.conversationId, "--yes"], { env: env() })).code).toBe(0)
    const gone = await lore(["conversations", "show", asked.conversationId], { env: env() })
    expect(gone.code).not.toBe(0)
    expect(gone.stderr).toContain("CONVERSATION_NOT_FOUND")
  })

  it("refuses lore chat without a terminal, naming lore ask", async () => {
    const chat = await lore(["chat"], { env: env() })
    expect(chat.code).toBe(2)
    expect(chat.stderr).toContain("lore ask")
  })
})
