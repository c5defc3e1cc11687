import { createLoreClient, LoreApiError, type LoreClient } from "@lore/sdk"
import { uploadEvidence } from "@lore/sdk/node"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"

/** `lore.assistant.evidence` against a real server: upload (Blob and from disk), wait, list, get, typed errors. */

const memo = `# Audit memo

The audit codeword is MARBLEHERON and the finding concerns stale access reviews. ${"The auditors checked every quarterly review. ".repeat(30)}
`

describe("SDK assistant evidence", () => {
  let server: TestServer
  let lore: LoreClient
  let dir: string
  let conversationId: string
  let knowledgeSpaceId: string

  beforeAll(async () => {
    server = await startTestServer()
    lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    dir = mkdtempSync(join(tmpdir(), "lore-sdk-evidence-"))
    // The space's creator manages it (and so may add to it).
    knowledgeSpaceId = (await lore.admin.spaces.create({ key: "audits", name: "Audits" })).id
    // A conversation starts with a chat message; its id arrives in the stream's data-conversation part.
    const chat = await fetch(`${server.url}/api/assistant/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "What did the audit find?" })
    })
    conversationId = /"conversationId":"([0-9a-f-]{36})"/.exec(await chat.text())![1]!
  }, 60_000)
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await server?.dispose()
  })

  it("uploads a Blob as evidence, waits until READY, lists and gets it", async () => {
    const binding = await lore.assistant.evidence.upload({ conversationId, knowledgeSpaceId, file: new Blob([memo]), fileName: "audit-memo.md" })
    expect(binding).toMatchObject({ conversationId, knowledgeSpaceId, fileName: "audit-memo.md", status: "PROCESSING", failureCode: null })
    const statuses: Array<string> = []
    const ready = await lore.assistant.evidence.waitUntilSettled(conversationId, binding.id, { intervalMs: 50, onStatus: (b) => statuses.push(b.status) })
    expect(ready.status).toBe("READY")
    expect(statuses.at(-1)).toBe("READY")
    expect((await lore.sources.get(ready.sourceObjectId)).classification).toBe("CONFIDENTIAL")
    expect(await lore.assistant.evidence.list(conversationId)).toEqual([ready])
    expect(await lore.assistant.evidence.get(conversationId, binding.id)).toEqual(ready)
  })

  it("uploads from disk with a classification", async () => {
    const path = join(dir, "checklist.txt")
    writeFileSync(path, `Access review checklist. ${"Every reviewer signs the list. ".repeat(20)}`)
    const progress: Array<number> = []
    const binding = await uploadEvidence(lore, path, { conversationId, knowledgeSpaceId, classification: "INTERNAL", onProgress: (sent) => progress.push(sent) })
    expect(binding.fileName).toBe("checklist.txt")
    expect(progress.at(-1)).toBeGreaterThan(0)
    expect((await lore.sources.get(binding.sourceObjectId)).classification).toBe("INTERNAL")
    expect((await lore.assistant.evidence.list(conversationId)).map((b) => b.id)).toContain(binding.id)
  })

  it("fails with typed errors", async () => {
    const missing = "00000000-0000-4000-8000-000000000000"
    const noConversation = await lore.assistant.evidence.upload({ conversationId: missing, knowledgeSpaceId, file: new Blob([memo]), fileName: "m.md" }).catch((e: unknown) => e)
    expect(noConversation).toBeInstanceOf(LoreApiError)
    expect(noConversation).toMatchObject({ status: 404, code: "CONVERSATION_NOT_FOUND" })
    const noBinding = await lore.assistant.evidence.get(conversationId, missing).catch((e: unknown) => e)
    expect(noBinding).toMatchObject({ status: 404, code: "EVIDENCE_BINDING_NOT_FOUND" })
    const noSpace = await lore.assistant.evidence.upload({ conversationId, knowledgeSpaceId: missing, file: new Blob([memo]), fileName: "m.md" }).catch((e: unknown) => e)
    expect(noSpace).toMatchObject({ status: 404, code: "KNOWLEDGE_SPACE_NOT_FOUND" })
  })
})
