import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, client, type Client, ingested, userClient } from "../knowledge/support"
import { conversationOf, messageIdOf, parseChunks, postChat } from "../assistant/support"

/**
 * Issue 29, point 8: a client that hangs up right after the first `text-delta` of the offline LOCAL answerer
 * (no gateway configured) still finds the partial answer saved as an INTERRUPTED assistant message.
 */

const TRAVEL = "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval before booking. " +
  "Hotels are booked through the travel desk, and receipts are kept for seven years.\n"

describe.each(backends)("a disconnect on $name", { timeout: 180_000 }, (backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let admin: Client
  let employee: Client & { id: string }

  beforeAll(async () => {
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
  })

  it("keeps the LOCAL answer's first words as INTERRUPTED when the client aborts after its first text-delta", async () => {
    const abort = new AbortController()
    const response = await postChat(employee, { message: "Do flights need a manager's approval?" }, abort.signal)
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
    const firstDelta = chunks.find((chunk) => chunk.type === "text-delta") as { delta: string } | undefined
    expect(firstDelta?.delta.length).toBeGreaterThan(0)
    const conversationId = conversationOf(chunks)
    const messageId = messageIdOf(chunks)

    const deadline = Date.now() + 20_000
    let messages: Array<any> = []
    let saved: any
    while (Date.now() < deadline) {
      messages = (await employee.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).body
      saved = messages.find((message) => message.id === messageId)
      if (saved) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(saved, JSON.stringify(messages)).toMatchObject({ role: "ASSISTANT", status: "INTERRUPTED", provider: "LOCAL" })
    expect(saved.content.startsWith(firstDelta!.delta)).toBe(true)
    // The server keeps answering afterwards.
    expect((await employee.call("GET", "/api/assistant/conversations")).status).toBe(200)
  })
})
