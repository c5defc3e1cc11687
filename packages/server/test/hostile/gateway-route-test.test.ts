import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, client, type Client } from "../knowledge/support"
import { type FakeProviders, startFakeProviders } from "../support/aiProviders"

/**
 * Issue 29, point 9: `lore admin ai routes set assistant-chat --gateway X` was accepted right after
 * `gateways test X` failed. Setting a route now tests its gateway: a failing one is refused with 422
 * GATEWAY_TEST_FAILED naming the test's errorCode (never the key the provider quotes back), unless forced.
 */

const GOOD_KEY = "sk-good-0123456789abcdef"
const WRONG_KEY = "sk-wrong-fedcba9876543210"

describe.each(backends)("setting a route to a failing gateway on $name", { timeout: 120_000 }, (backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let providers: FakeProviders
  let admin: Client

  const gatewayWithKey = async (gatewayKey: string, apiKey: string, path = "/v1") => {
    const gateway = await admin.call("POST", "/api/admin/ai/gateways", { gatewayKey, displayName: gatewayKey, preset: "OPENAI_COMPATIBLE", baseUrl: `${providers.url}${path}`, requestTimeoutSeconds: 2 })
    expect(gateway.status, JSON.stringify(gateway.body)).toBe(201)
    expect((await admin.call("PUT", `/api/admin/ai/gateways/${gateway.body.id}/credential`, { apiKey })).status).toBe(204)
    return gateway.body.id as string
  }
  const route = (workload: string, body: Record<string, unknown>) => admin.call("PUT", `/api/admin/ai/routes/${workload}`, body)
  const current = async (workload: string) => (await admin.call("GET", "/api/admin/ai/routes")).body.find((candidate: any) => candidate.workload === workload)

  beforeAll(async () => {
    providers = await startFakeProviders({ apiKey: GOOD_KEY, slowMs: 5_000 })
    server = await backend.start()
    admin = client(server.url, server.adminToken)
  })
  afterAll(async () => {
    await server?.dispose()
    await providers?.close()
  })

  it("refuses a gateway whose test fails with 422 GATEWAY_TEST_FAILED naming the errorCode, unless forced", async () => {
    const wrong = await gatewayWithKey("wrong-key", WRONG_KEY)
    const refused = await route("ASSISTANT_CHAT", { gatewayProfileId: wrong, modelId: "gpt-test", version: 0 })
    expect(refused.status, JSON.stringify(refused.body)).toBe(422)
    expect(refused.contentType).toMatch(/^application\/problem\+json/)
    expect(refused.body).toMatchObject({ code: "GATEWAY_TEST_FAILED", errors: [{ path: "gatewayProfileId", code: "UNAUTHORIZED" }] })
    expect(refused.body.detail).toContain("(UNAUTHORIZED)")
    expect(refused.body.detail).toContain("force")
    // The provider quotes the key back; Lore does not.
    expect(JSON.stringify(refused.body)).not.toContain(WRONG_KEY)
    // Nothing was saved: the workload keeps LOCAL.
    expect(await current("ASSISTANT_CHAT")).toMatchObject({ source: "DEFAULT", gatewayKey: "local", version: 0 })

    // A gateway too slow for its own timeout is refused as TIMEOUT.
    const slow = await gatewayWithKey("slow", GOOD_KEY, "/slow/v1")
    const timedOut = await route("PROMPT_EXECUTION", { gatewayProfileId: slow, modelId: "gpt-test", version: 0 })
    expect(timedOut.body).toMatchObject({ status: 422, code: "GATEWAY_TEST_FAILED", errors: [{ code: "TIMEOUT" }] })

    // Forced, the route is saved (and chat then degrades to LOCAL: chat-fallback.test.ts).
    const forced = await route("ASSISTANT_CHAT", { gatewayProfileId: wrong, modelId: "gpt-test", version: 0, force: true })
    expect(forced.status, JSON.stringify(forced.body)).toBe(200)
    expect(forced.body).toMatchObject({ source: "ADMIN", gatewayKey: "wrong-key", version: 1 })
  })

  it("routes to a gateway that passes its test; cheap checks (version, workload) come before the gateway is called", async () => {
    const good = await gatewayWithKey("good-key", GOOD_KEY)
    const before = providers.requests.length
    const stale = await route("KEYWORD_PLANNING", { gatewayProfileId: good, modelId: "gpt-test", version: 3 })
    expect(stale.body.code).toBe("VERSION_CONFLICT")
    expect(providers.requests.length).toBe(before)
    const set = await route("KEYWORD_PLANNING", { gatewayProfileId: good, modelId: "gpt-test", version: 0 })
    expect(set.status, JSON.stringify(set.body)).toBe(200)
    expect(providers.requests.slice(before).map((request) => request.path)).toEqual(["/v1/models"])
    expect((await route("KEYWORD_PLANNING", { gatewayProfileId: good, modelId: "gpt-test", version: 1, force: "yes" })).body.code).toBe("VALIDATION_FAILED")
  })
})
