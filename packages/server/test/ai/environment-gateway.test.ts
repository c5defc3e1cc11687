import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"
import { type FakeProviders, startFakeProviders } from "../support/aiProviders"

const ENV_KEY = "sk-env-key-from-LORE_EMBEDDING_API_KEY-42"
const ENVIRONMENT_ID = "00000000-0000-4000-a000-00000000000e"

let server: TestServer
let providers: FakeProviders
let admin: Call

beforeAll(async () => {
  providers = await startFakeProviders({ apiKey: ENV_KEY })
  server = await startTestServer({ embedding: { url: `${providers.url}/v1`, model: "embed-test", dimensions: 8, apiKey: ENV_KEY } })
  admin = http(server.url, server.adminToken)
})
afterAll(async () => {
  await server?.dispose()
  await providers?.close()
})

describe("the gateway made from LORE_EMBEDDING_*", () => {
  it("is listed read-only with source ENVIRONMENT, and tests with the environment's key", async () => {
    const gateways = await admin("GET", "/api/admin/ai/gateways")
    const environment = gateways.body.find((gateway: any) => gateway.id === ENVIRONMENT_ID)
    expect(environment).toMatchObject({ source: "ENVIRONMENT", editable: false, credentialSet: true, baseUrl: `${providers.url}/v1`, preset: "OPENAI_COMPATIBLE" })
    expect(JSON.stringify(gateways.body)).not.toContain(ENV_KEY)
    expect((await admin("PUT", `/api/admin/ai/gateways/${ENVIRONMENT_ID}`, { enabled: false, version: 1 })).body.code).toBe("GATEWAY_NOT_EDITABLE")
    expect((await admin("DELETE", `/api/admin/ai/gateways/${ENVIRONMENT_ID}`)).body.code).toBe("GATEWAY_NOT_EDITABLE")
    const tested = await admin("POST", `/api/admin/ai/gateways/${ENVIRONMENT_ID}/test`)
    expect(tested.body).toMatchObject({ authenticated: true })
    expect(providers.requests.at(-1)!.headers.authorization).toBe(`Bearer ${ENV_KEY}`)
  })

  it("routes both embedding workloads (source ENVIRONMENT) until an admin route overrides them", async () => {
    const routes = (await admin("GET", "/api/admin/ai/routes")).body
    for (const workload of ["QUERY_EMBEDDING", "DOCUMENT_EMBEDDING"]) {
      expect(routes.find((route: any) => route.workload === workload)).toMatchObject({ source: "ENVIRONMENT", gatewayProfileId: ENVIRONMENT_ID, modelId: "embed-test", version: 0 })
    }
    expect(routes.find((route: any) => route.workload === "ASSISTANT_CHAT")).toMatchObject({ source: "DEFAULT", gatewayKey: "local" })

    const gateway = (await admin("POST", "/api/admin/ai/gateways", { gatewayKey: "openai", displayName: "OpenAI", preset: "OPENAI", baseUrl: `${providers.url}/v1` })).body
    // A gateway without a key fails its test: forced.
    const set = await admin("PUT", "/api/admin/ai/routes/QUERY_EMBEDDING", { gatewayProfileId: gateway.id, modelId: "text-embedding-3-small", dimensions: 8, version: 0, force: true })
    expect(set.body).toMatchObject({ source: "ADMIN", gatewayKey: "openai" })
    expect((await admin("PUT", "/api/admin/ai/routes/DOCUMENT_EMBEDDING", { gatewayProfileId: ENVIRONMENT_ID, modelId: "embed-test", version: 0 })).body.code).toBe("INVALID_ROUTE")
    expect((await admin("DELETE", "/api/admin/ai/routes/QUERY_EMBEDDING?version=1")).status).toBe(204)
    const back = (await admin("GET", "/api/admin/ai/routes")).body.find((route: any) => route.workload === "QUERY_EMBEDDING")
    expect(back).toMatchObject({ source: "ENVIRONMENT", gatewayProfileId: ENVIRONMENT_ID })
  })

  it("index settings report the environment's model and dimensions", async () => {
    const settings = await admin("GET", "/api/admin/ai/index-settings")
    expect(settings.body).toMatchObject({ embeddingProvider: "openai-compatible", embeddingModel: "embed-test", dimensions: 8, distanceMetric: "COSINE", managementMode: "ENVIRONMENT", editable: true, generation: 1 })
  })

  it("health still reports the embedding model (read through the platform's EmbeddingStatus)", async () => {
    const health = await http(server.url)("GET", "/api/health")
    expect(health.body).toMatchObject({ embeddingModel: "embed-test (8 dimensions)" })
    expect(health.body.vectorSearch).not.toBe("off")
  })
})
