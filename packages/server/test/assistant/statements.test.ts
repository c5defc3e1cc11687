import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, client, type Client, ingested } from "../knowledge/support"

/**
 * How many SQL statements a chat runs before its first token (issue 32 point 6: at most 10). Every statement the
 * server sends is recorded with the request id of the request that runs it (StartOptions.onStatement, a
 * @effect/sql statement transformer); a chat's statements are those with its x-request-id, counted until its
 * first text-delta arrived. The first chat of a process warms the caches (routes, gateways), so it is not counted.
 */

const TRAVEL = "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval before booking.\n"
const TRAINS = "# Rail guide\n\nTrains are booked through the travel desk; first class needs a manager's approval.\n"
const LIMIT = 10

describe.each(backends)("statements before a chat's first token on $name", { timeout: 240_000 }, (backend: Backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let admin: Client
  const statements: Array<{ readonly sql: string; readonly requestId: string | undefined; readonly at: number }> = []

  beforeAll(async () => {
    server = await backend.start({ onStatement: ({ sql, requestId }) => void statements.push({ sql, requestId, at: performance.now() }) })
    admin = client(server.url, server.adminToken)
    const [space] = (await admin.call("GET", "/api/knowledge-spaces/upload-targets")).body
    await ingested(admin, { spaceId: space.id, name: "travel.md", title: "Travel policy", bytes: TRAVEL, type: "text/markdown" })
    // Two passages match the questions, so the offline planner's first search is enough (no second search step).
    await ingested(admin, { spaceId: space.id, name: "rail.md", title: "Rail guide", bytes: TRAINS, type: "text/markdown" })
  })
  afterAll(async () => {
    await server?.dispose()
  })

  /** One chat: its request id, the statements it ran before its first text-delta arrived, and the conversation. */
  const counted = async (body: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/api/assistant/chat`, {
      method: "POST", headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" }, body: JSON.stringify(body)
    })
    expect(response.status).toBe(200)
    const requestId = response.headers.get("x-request-id")!
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let raw = ""
    let firstToken = Number.NaN
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      raw += decoder.decode(value, { stream: true })
      if (Number.isNaN(firstToken) && raw.includes("\"type\":\"text-delta\"")) firstToken = performance.now()
    }
    expect(Number.isNaN(firstToken)).toBe(false)
    const before = statements.filter((statement) => statement.requestId === requestId && statement.at <= firstToken).map((statement) => statement.sql.replace(/\s+/g, " ").slice(0, 160))
    const conversationId = (raw.match(/"conversationId":"([0-9a-f-]{36})"/) ?? [])[1]
    return { before, conversationId, all: statements.filter((statement) => statement.requestId === requestId).length }
  }

  it(`runs at most ${LIMIT} statements before the first token, in a new conversation and in a follow-up`, async () => {
    const warm = await counted({ message: "Which trips are booked by train?" })
    expect(warm.all).toBeGreaterThan(0) // the listener sees the chat's statements, tagged with its request id
    const fresh = await counted({ message: "Do flights need a manager's approval?" })
    console.log(`new conversation: ${fresh.before.length} statements before the first token (${fresh.all} in all)\n  ${fresh.before.join("\n  ")}`)
    expect(fresh.before.length, fresh.before.join("\n")).toBeLessThanOrEqual(LIMIT)
    const followUp = await counted({ message: "And trains?", conversationId: fresh.conversationId })
    console.log(`follow-up: ${followUp.before.length} statements before the first token (${followUp.all} in all)\n  ${followUp.before.join("\n  ")}`)
    expect(followUp.before.length, followUp.before.join("\n")).toBeLessThanOrEqual(LIMIT)
    // No space here has graph retrieval on, and the read scope says so: no graph statement runs.
    expect([...fresh.before, ...followUp.before].filter((statement) => statement.includes("graph_entities"))).toEqual([])
  })

  it("appends two follow-ups sent at once to one conversation, each with its own sequence (conversations count their messages)", async () => {
    const first = await counted({ message: "Which trips are booked by train?" })
    await Promise.all([counted({ message: "And flights?", conversationId: first.conversationId }), counted({ message: "And first class?", conversationId: first.conversationId })])
    const messages = (await admin.call("GET", `/api/assistant/conversations/${first.conversationId}/messages`)).body as Array<{ sequence: number; role: string }>
    expect(messages.map((message) => message.sequence)).toEqual([1, 2, 3, 4, 5, 6])
    expect(messages.filter((message) => message.role === "USER")).toHaveLength(3)
  })
})
