import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, client, type Client, ingested, userClient } from "../knowledge/support"
import { type FakeChat, startFakeChat } from "../support/chatProviders"
import { chat, conversationOf, messageIdOf, textOf } from "../assistant/support"

/**
 * Issue 29, point 9: a chat route to a gateway that refuses Lore's key (a loopback provider answering 401 with
 * OpenAI's body, which quotes the key back) degrades to the offline LOCAL answerer: a MODEL_FALLBACK notice
 * before `text-start`, then LOCAL's cited answer, saved as LOCAL; the provider's raw error never reaches the employee.
 */

const GOOD_KEY = "sk-good-0123456789abcdef"
const WRONG_KEY = "sk-wrong-fedcba9876543210"
const TRAVEL = "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval before booking.\n"

describe.each(backends)("a failing chat gateway on $name", { timeout: 180_000 }, (backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let provider: FakeChat
  let admin: Client
  let employee: Client & { id: string }
  let gatewayId: string

  beforeAll(async () => {
    provider = await startFakeChat({ apiKey: GOOD_KEY, gapMs: 5 })
    server = await backend.start()
    admin = client(server.url, server.adminToken)
    const department = (await admin.call("POST", "/api/admin/departments", { name: "Travel" })).body.id
    const space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "travel", name: "Travel" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    await ingested(admin, { spaceId: space, name: "travel.md", title: "Travel policy", bytes: TRAVEL, type: "text/markdown", classification: "INTERNAL" })
    employee = await userClient(admin.call, server.url, { email: "traveller@example.com", departmentId: department })
    const gateway = await admin.call("POST", "/api/admin/ai/gateways", { gatewayKey: "misconfigured", displayName: "Misconfigured", preset: "OPENAI_COMPATIBLE", baseUrl: `${provider.url}/v1`, requestTimeoutSeconds: 10 })
    expect(gateway.status, JSON.stringify(gateway.body)).toBe(201)
    gatewayId = gateway.body.id
    expect((await admin.call("PUT", `/api/admin/ai/gateways/${gatewayId}/credential`, { apiKey: WRONG_KEY })).status).toBe(204)
    const route = await admin.call("PUT", "/api/admin/ai/routes/ASSISTANT_CHAT", { gatewayProfileId: gatewayId, modelId: "gpt-test", version: 0, force: true })
    expect(route.status, JSON.stringify(route.body)).toBe(200)
  })
  afterAll(async () => {
    await server?.dispose()
    await provider?.close()
  })

  it("answers offline with a MODEL_FALLBACK notice before text-start, saved as LOCAL, with no provider detail", async () => {
    const before = provider.requests.length
    const reply = await chat(employee, { message: "Do flights need a manager's approval?" })
    expect(reply.status).toBe(200)
    // The gateway was asked, and refused.
    expect(provider.requests.slice(before).map((request) => request.path)).toContain("/v1/chat/completions")

    const types = reply.chunks.map((chunk) => chunk.type)
    // After the planner's search step, in the answering step: the notice, then the offline text.
    expect(types.slice(0, 2)).toEqual(["start", "data-conversation"])
    expect(types.slice(types.lastIndexOf("start-step"), types.lastIndexOf("start-step") + 3)).toEqual(["start-step", "data-notice", "text-start"])
    expect(types).not.toContain("error")
    expect(reply.chunks.find((chunk) => chunk.type === "data-notice")).toEqual({
      type: "data-notice", data: { code: "MODEL_FALLBACK", message: "The model call failed (UNAUTHORIZED); answering offline" }
    })
    expect(textOf(reply.chunks)).toContain("Flights need a manager's approval before booking.")
    expect((reply.chunks.at(-1) as any).messageMetadata).toEqual({ provider: "LOCAL", model: "lore-extractive" })

    // Nothing of the provider's answer reaches the employee: not its JSON, not its words, not the key it quoted.
    for (const leak of ["Incorrect API key", WRONG_KEY, '"error"']) expect(reply.raw).not.toContain(leak)
    // Nor its status: ids and scores are random or computed, so a "401" inside them says nothing.
    expect(reply.raw.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, "<id>").replace(/\d+\.\d+/g, "<n>")).not.toMatch(/\b401\b/)

    const messages = (await employee.call("GET", `/api/assistant/conversations/${conversationOf(reply.chunks)}/messages`)).body
    expect(messages.find((message: any) => message.id === messageIdOf(reply.chunks))).toMatchObject({
      role: "ASSISTANT", status: "COMPLETE", provider: "LOCAL", model: "lore-extractive"
    })
    expect(JSON.stringify(messages)).not.toContain("Incorrect API key")

    // Administrators see the failed call in the usage log.
    const usage = await admin.call("GET", "/api/admin/ai/usage")
    expect(usage.status, JSON.stringify(usage.body)).toBe(200)
    expect(JSON.stringify(usage.body)).toMatch(/"gatewayKey":"misconfigured"[^}]*"failedCalls":1|"failedCalls":1[^}]*"gatewayKey":"misconfigured"/)
  })
})
