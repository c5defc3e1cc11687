import { createLoreClient, isLoreError, type LoreClient } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeProviders, startFakeProviders } from "../support/aiProviders"
import { startTestServer, type TestServer } from "../support/server"

const KEY = "sk-sdk-test-key-0042"

/** lore.admin.ai against a real server and a fake provider on loopback: every endpoint once. */
describe("SDK AI administration", () => {
  let server: TestServer
  let providers: FakeProviders
  let lore: LoreClient

  beforeAll(async () => {
    providers = await startFakeProviders({ apiKey: KEY })
    server = await startTestServer()
    lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
  })
  afterAll(async () => {
    await server?.dispose()
    await providers?.close()
  })

  it("manages a gateway, its credential, assistant models and a route; typed errors narrow on code", async () => {
    expect((await lore.admin.ai.providers()).length).toBe(6)
    const unsaved = await lore.admin.ai.testUnsavedGateway({ preset: "ANTHROPIC", baseUrl: `${providers.url}/anthropic/v1`, apiKey: KEY })
    expect(unsaved).toMatchObject({ authenticated: true, models: [{ id: "claude-test-1", displayName: "Claude Test 1" }] })

    const gateway = await lore.admin.ai.createGateway({ gatewayKey: "sdk", displayName: "SDK", preset: "OPENAI_COMPATIBLE", baseUrl: `${providers.url}/v1` })
    await lore.admin.ai.setCredential(gateway.id, KEY)
    expect(await lore.admin.ai.testGateway(gateway.id)).toMatchObject({ authenticated: true, errorCode: null })
    const models = await lore.admin.ai.setAssistantModels(gateway.id, [{ modelId: "gpt-test", displayName: "GPT test" }])
    expect(models).toEqual([{ id: expect.any(String), modelId: "gpt-test", displayName: "GPT test", toolCalling: false }])
    const updated = await lore.admin.ai.updateGateway(gateway.id, { displayName: "SDK gateway", version: gateway.version })
    expect(updated).toMatchObject({ displayName: "SDK gateway", version: 2, credentialSet: true, assistantModels: models })
    expect((await lore.admin.ai.gateways()).map((g) => g.gatewayKey)).toEqual(["local", "sdk"])

    const route = await lore.admin.ai.setRoute("PROMPT_EXECUTION", { gatewayProfileId: gateway.id, modelId: "gpt-test", version: 0 })
    expect(route).toMatchObject({ source: "ADMIN", version: 1 })
    const conflict = await lore.admin.ai.setRoute("PROMPT_EXECUTION", { gatewayProfileId: gateway.id, modelId: "gpt-test", version: 0 }).catch((error) => error)
    expect(isLoreError(conflict, "VERSION_CONFLICT")).toBe(true)
    const inUse = await lore.admin.ai.deleteGateway(gateway.id).catch((error) => error)
    expect(isLoreError(inUse, "GATEWAY_IN_USE")).toBe(true)
    await lore.admin.ai.resetRoute("PROMPT_EXECUTION", 1)
    expect((await lore.admin.ai.routes()).find((r) => r.workload === "PROMPT_EXECUTION")).toMatchObject({ source: "DEFAULT" })
    expect(await lore.admin.ai.indexSettings()).toMatchObject({ managementMode: "DEFAULT", generation: null, reembedding: null })
    await lore.admin.ai.deleteGateway(gateway.id, 2)
    expect((await lore.admin.ai.gateways()).map((g) => g.gatewayKey)).toEqual(["local"])
  })
})
