import { startServer } from "@lore/server"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type FakeProviders, startFakeProviders } from "../support/aiProviders"
import { http } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

const KEY = "sk-sealed-under-the-old-server-key"
const keyA = "a".repeat(64)
const keyB = "b".repeat(64)

let server: TestServer
let providers: FakeProviders

beforeAll(async () => {
  providers = await startFakeProviders({ apiKey: KEY })
  server = await startTestServer({ secretKey: keyA })
})
afterAll(async () => {
  await server?.dispose()
  await providers?.close()
})

it("a key sealed under another server key is reported CREDENTIAL_UNREADABLE (not a 500) until it is set again", async () => {
  const admin = http(server.url, server.adminToken)
  const gateway = (await admin("POST", "/api/admin/ai/gateways", { gatewayKey: "sealed", displayName: "Sealed", preset: "OPENAI_COMPATIBLE", baseUrl: `${providers.url}/v1` })).body
  expect((await admin("PUT", `/api/admin/ai/gateways/${gateway.id}/credential`, { apiKey: KEY })).status).toBe(204)
  expect((await admin("POST", `/api/admin/ai/gateways/${gateway.id}/test`)).body.authenticated).toBe(true)
  await server.stop()

  const other = await startServer({ port: 0, dataDir: server.dataDir, ...(server.databaseUrl ? { databaseUrl: server.databaseUrl } : {}), bootstrapToken: server.adminToken, secretKey: keyB, logLevel: "warning" })
  try {
    const again = http(other.url, server.adminToken)
    const unreadable = await again("POST", `/api/admin/ai/gateways/${gateway.id}/test`)
    expect(unreadable.status).toBe(200)
    expect(unreadable.body).toMatchObject({ authenticated: false, errorCode: "CREDENTIAL_UNREADABLE" })
    expect((await again("PUT", `/api/admin/ai/gateways/${gateway.id}/credential`, { apiKey: KEY })).status).toBe(204)
    expect((await again("POST", `/api/admin/ai/gateways/${gateway.id}/test`)).body.authenticated).toBe(true)
  } finally {
    await other.stop()
  }
})
