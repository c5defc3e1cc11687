import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, client, type Client, ingested, userClient } from "../knowledge/support"
import { type FakeChat, startFakeChat } from "../support/chatProviders"
import { conversationOf, messageIdOf, parseChunks, postChat } from "../assistant/support"

/**
 * Issue 29, point 8: a client that hangs up right after the first `text-delta` of the offline LOCAL answerer
 * (no gateway configured) still finds the partial answer saved as an INTERRUPTED assistant message; so does one
 * answered by a gateway (a loopback OpenAI-compatible provider).
 */

const SECRET = "sk-disconnect-0123456789abcdef"

const TRAVEL = "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval before booking. " +
  "Hotels are booked through the travel desk, and receipts are kept for seven years.\n"

describe.each(backends)("a disconnect on $name", { timeout: 180_000 }, (backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let admin: Client
  let employee: Client & { id: string }
  let provider: FakeChat

  beforeAll(async () => {
    provider = await startFakeChat({ apiKey: SECRET, gapMs: 40, text: Array.from({ length: 40 }, (_, i) => `word${i} `) })
    server = await backend.start()
    admin = client(server.url, server.adminToken)
    const department = (await admin.call("POST", "/api/admin/departments", { name: "Travel" })).body.id
    const space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "travel", name: "Travel" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    await ingested(admin, { spaceId: space, name: "travel.md", title: "Travel policy", bytes: TRAVEL, type: "text/markdown", classification: "INTERNAL" })
    employee = await userClient(admin.call, server.url, { email: "traveller@example.com", departmentId: department })
  })
  afterAll(async () => {
    await server?.dispose()
    await provider?.close()
  })

  /** Asks, reads up to the first text-delta, hangs up, then waits for the assistant message to be saved. */
  const askAndHangUp = async (body: Record<string, unknown>) => {
    const abort = new AbortController()
    const response = await postChat(employee, body, abort.signal)
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    let raw = ""
    while (!raw.includes('"type":"text-delta"')) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`the stream ended before any text-delta: ${raw}`)
      raw += new TextDecoder().decode(value)
    }
    abort.abort()
    const chunks = await parseChunks(raw.slice(0, raw.lastIndexOf("\n\n") + 2))
    const firstDelta = (chunks.find((chunk) => chunk.type === "text-delta") as { delta: string } | undefined)?.delta ?? ""
    const conversationId = conversationOf(chunks)
    const messageId = messageIdOf(chunks)
    const deadline = Date.now() + 20_000
    let messages: Array<any> = []
    for (;;) {
      messages = (await employee.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).body
      const saved = messages.find((message) => message.id === messageId)
      if (saved || Date.now() > deadline) return { saved, messages, firstDelta }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  it("keeps the LOCAL answer's first words as INTERRUPTED when the client aborts after its first text-delta", async () => {
    const { saved, messages, firstDelta } = await askAndHangUp({ message: "Do flights need a manager's approval?" })
    expect(firstDelta.length).toBeGreaterThan(0)
    expect(saved, JSON.stringify(messages)).toMatchObject({ role: "ASSISTANT", status: "INTERRUPTED", provider: "LOCAL" })
    expect(saved.content.startsWith(firstDelta)).toBe(true)
    // The server keeps answering afterwards.
    expect((await employee.call("GET", "/api/assistant/conversations")).status).toBe(200)
  })

  it("keeps a gateway's first words as INTERRUPTED when the client aborts after its first text-delta, and stops the call", async () => {
    const gateway = await admin.call("POST", "/api/admin/ai/gateways", { gatewayKey: "slowish", displayName: "Slowish", preset: "OPENAI_COMPATIBLE", baseUrl: `${provider.url}/v1`, requestTimeoutSeconds: 10 })
    expect(gateway.status, JSON.stringify(gateway.body)).toBe(201)
    expect((await admin.call("PUT", `/api/admin/ai/gateways/${gateway.body.id}/credential`, { apiKey: SECRET })).status).toBe(204)
    const models = await admin.call("PUT", `/api/admin/ai/gateways/${gateway.body.id}/assistant-models`, [{ modelId: "gpt-slowish", displayName: "Slowish" }])
    expect(models.status, JSON.stringify(models.body)).toBe(200)
    const { saved, messages, firstDelta } = await askAndHangUp({ message: "Do flights need a manager's approval?", modelActivationId: models.body[0].id })
    expect(saved, JSON.stringify(messages)).toMatchObject({ role: "ASSISTANT", status: "INTERRUPTED", provider: "slowish", model: "gpt-slowish" })
    expect(saved.content.startsWith(firstDelta)).toBe(true)
    expect(saved.content).not.toContain("word39")
    // The provider's stream was closed, not read to its end.
    for (const deadline = Date.now() + 10_000; provider.cut.length === 0 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(provider.cut).toEqual(["/v1/chat/completions"])
  })
})
