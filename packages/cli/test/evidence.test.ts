import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminApi, type ServedLore, serveLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

// `lore evidence add|list` (documents bound to a conversation) against a real server, through the built binary.

let server: ServedLore
let dir: string
let env: () => Record<string, string>
let conversationId: string
const slow = { timeoutMs: 120_000 }

const path = (...parts: Array<string>) => join(dir, ...parts)
const api = (method: string, route: string, body?: unknown) => adminApi(server)(method, route, body)

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  const home = newConfigHome()
  env = () => ({ XDG_CONFIG_HOME: home, LORE_SERVER: server.url, LORE_TOKEN: server.adminToken })
  dir = mkdtempSync(join(tmpdir(), "lore-cli-evidence-"))
  writeFileSync(path("memo.md"), "# Memo\n\nThe heron audit found stale access reviews in the finance team.\n")
  writeFileSync(path("broken.pdf"), "%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R\n")
  expect((await api("POST", "/api/admin/knowledge-spaces", { key: "audits", name: "Audits" })).status).toBe(201)
  // A conversation starts with a chat message; its id arrives in the stream's data-conversation part.
  const chat = await (await api("POST", "/api/assistant/chat", { message: "What did the audit find?" })).text()
  conversationId = /"conversationId":"([0-9a-f-]{36})"/.exec(chat)![1]!
}, 120_000)
afterAll(async () => {
  await server?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe("lore evidence", () => {
  it("add uploads into the space, waits until READY, and list shows it", async () => {
    const added = await lore(["evidence", "add", path("memo.md"), "--conversation", conversationId, "--space", "audits", "--json"], { env: env(), ...slow })
    expect(added.code, added.stderr).toBe(0)
    const binding = added.json()
    expect(binding).toMatchObject({ conversationId, fileName: "memo.md", status: "READY", failureCode: null })

    const listed = await lore(["evidence", "list", "--conversation", conversationId, "--json"], { env: env(), ...slow })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json()).toEqual([binding])
    const plain = await lore(["evidence", "--conversation", conversationId], { env: env(), ...slow })
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toMatch(/memo\.md\s+READY/)
  })

  it("add of an unreadable document exits 6 with the FAILED binding as the JSON document", async () => {
    const added = await lore(["evidence", "add", path("broken.pdf"), "--conversation", conversationId, "--space", "audits", "--json"], { env: env(), ...slow })
    expect(added.code, added.stderr).toBe(6)
    expect(added.json()).toMatchObject({ fileName: "broken.pdf", status: "FAILED", failureCode: expect.any(String) })
  })

  it("starts a conversation when none is named (issue 33.10); names the missing flag; another's conversation is not found", async () => {
    const noConversation = await lore(["--json", "evidence", "add", path("memo.md"), "--space", "audits", "--no-wait"], { env: env(), ...slow })
    expect(noConversation.code, noConversation.stderr).toBe(0)
    const started = noConversation.json()
    expect(started.conversationId).not.toBe(conversationId)
    const conversations = (await lore(["--json", "conversations", "list"], { env: env() })).json()
    expect(conversations.find((c: any) => c.id === started.conversationId)).toMatchObject({ title: "memo.md" })
    const noList = await lore(["evidence", "list"], { env: env() })
    expect(noList.code).toBe(2)
    const unknown = await lore(["evidence", "list", "--conversation", "00000000-0000-4000-8000-000000000000", "--json"], { env: env() })
    expect(unknown.code).toBe(5)
    expect(unknown.json()).toMatchObject({ error: { status: 404, code: "CONVERSATION_NOT_FOUND" } })
  })
})
