import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { createServer } from "node:net"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"
import { type FakeProviders, startFakeProviders } from "../support/aiProviders"

const SECRET = "sk-test-5ecret-never-shown-0123456789"
const LOCAL_ID = "00000000-0000-4000-a000-00000000000a"

/** Everything the server process writes, so a test can look for the secret in it. */
const captured: Array<string> = []
const capture = () => {
  const keep = (...args: Array<unknown>) => void captured.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg) ?? String(arg))).join(" "))
  for (const method of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, method).mockImplementation(keep)
  const write = (original: typeof process.stdout.write) => ((chunk: unknown, ...rest: Array<unknown>) => {
    captured.push(String(chunk))
    return (original as (...args: Array<unknown>) => boolean)(chunk, ...rest)
  }) as typeof process.stdout.write
  vi.spyOn(process.stdout, "write").mockImplementation(write(process.stdout.write.bind(process.stdout)))
  vi.spyOn(process.stderr, "write").mockImplementation(write(process.stderr.write.bind(process.stderr)))
}

/** A loopback port nothing listens on. */
const closedPort = async () => {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
  const port = (probe.address() as { port: number }).port
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

let server: TestServer
let providers: FakeProviders
let admin: Call
/** Every response body this file received, to check none carries the secret. */
const bodies: Array<string> = []
const call: Call = async (method, path, body) => {
  const reply = await admin(method, path, body)
  bodies.push(JSON.stringify(reply.body ?? ""))
  return reply
}

beforeAll(async () => {
  capture()
  providers = await startFakeProviders({ apiKey: SECRET, slowMs: 4_000 })
  server = await startTestServer({ logLevel: "debug" })
  admin = http(server.url, server.adminToken)
})
afterAll(async () => {
  await server?.dispose()
  await providers?.close()
  vi.restoreAllMocks()
})

const newGateway = async (key: string, extra: Record<string, unknown> = {}) => {
  const created = await call("POST", "/api/admin/ai/gateways", { gatewayKey: key, displayName: `Gateway ${key}`, preset: "OPENAI_COMPATIBLE", baseUrl: `${providers.url}/v1`, ...extra })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return created.body
}

describe("provider presets and the built-in gateway", () => {
  it("lists the presets with their real enum values", async () => {
    const presets = await call("GET", "/api/admin/ai/providers")
    expect(presets.status).toBe(200)
    expect(presets.body.map((preset: any) => preset.preset)).toEqual(["OPENAI", "AZURE_OPENAI", "ANTHROPIC", "GEMINI", "OPENAI_COMPATIBLE", "LOCAL"])
    expect(presets.body.find((preset: any) => preset.preset === "ANTHROPIC")).toMatchObject({ protocol: "ANTHROPIC_COMPATIBLE", category: "DIRECT_PROVIDER", supportsEmbeddings: false })
    expect(presets.body.find((preset: any) => preset.preset === "GEMINI")).toMatchObject({ protocol: "OPENAI_COMPATIBLE", defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta/openai" })
    expect(presets.body.find((preset: any) => preset.preset === "LOCAL")).toMatchObject({ category: "BUILT_IN", baseUrlEditable: false })
  })

  it("LOCAL is always listed under its fixed id, read-only, never deletable, and tests without a network", async () => {
    const gateways = await call("GET", "/api/admin/ai/gateways")
    expect(gateways.body[0]).toMatchObject({ id: LOCAL_ID, gatewayKey: "local", preset: "LOCAL", editable: false, source: "BUILT_IN", enabled: true, credentialSet: false })
    expect((await call("DELETE", `/api/admin/ai/gateways/${LOCAL_ID}`)).body.code).toBe("GATEWAY_NOT_EDITABLE")
    expect((await call("PUT", `/api/admin/ai/gateways/${LOCAL_ID}`, { displayName: "Mine", version: 1 })).body.code).toBe("GATEWAY_NOT_EDITABLE")
    expect((await call("PUT", `/api/admin/ai/gateways/${LOCAL_ID}/credential`, { apiKey: "x" })).body.code).toBe("GATEWAY_NOT_EDITABLE")
    expect((await call("POST", "/api/admin/ai/gateways", { gatewayKey: "local2", displayName: "Another local", preset: "LOCAL" })).body.code).toBe("INVALID_GATEWAY")
    const test = await call("POST", `/api/admin/ai/gateways/${LOCAL_ID}/test`)
    expect(test.status).toBe(200)
    expect(test.body).toMatchObject({ authenticated: true, errorCode: null })
    expect(test.body.models.map((model: any) => model.id)).toContain("lore-extractive")
  })
})

describe("gateways", () => {
  it("creates a gateway, stores its credential write-only, and tests it against the provider", async () => {
    const gateway = await newGateway("vllm")
    expect(gateway).toMatchObject({ preset: "OPENAI_COMPATIBLE", protocol: "OPENAI_COMPATIBLE", category: "SELF_HOSTED", version: 1, credentialSet: false, credentialSetAt: null, editable: true, source: "ADMIN", requestTimeoutSeconds: 60 })
    expect((await call("POST", "/api/admin/ai/gateways", { gatewayKey: "vllm", displayName: "Again", preset: "OPENAI" })).body.code).toBe("GATEWAY_KEY_TAKEN")

    const unauthenticated = await call("POST", `/api/admin/ai/gateways/${gateway.id}/test`)
    expect(unauthenticated.body).toMatchObject({ authenticated: false, errorCode: "UNAUTHORIZED", models: [] })

    const set = await call("PUT", `/api/admin/ai/gateways/${gateway.id}/credential`, { apiKey: SECRET })
    expect(set.status).toBe(204)
    const listed = (await call("GET", "/api/admin/ai/gateways")).body.find((candidate: any) => candidate.id === gateway.id)
    expect(listed).toMatchObject({ credentialSet: true, version: 1 })
    expect(listed.credentialSetByUserId).toMatch(/^[0-9a-f-]{36}$/)
    expect(Date.parse(listed.credentialSetAt)).toBeGreaterThan(Date.now() - 60_000)
    expect(Object.keys(listed)).not.toContain("apiKey")

    const tested = await call("POST", `/api/admin/ai/gateways/${gateway.id}/test`)
    expect(tested.body).toMatchObject({ authenticated: true, errorCode: null, errorMessage: null })
    expect(tested.body.models).toEqual([{ id: "gpt-test", displayName: "gpt-test" }, { id: "embed-test", displayName: "embed-test" }])
    expect(providers.requests.at(-1)).toMatchObject({ method: "GET", path: "/v1/models" })
    expect(providers.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`)
  })

  it("a wrong key is UNAUTHORIZED, and the provider's quote of it is not passed on", async () => {
    const wrong = `${SECRET}-wrong`
    const tested = await call("POST", "/api/admin/ai/gateways/test", { preset: "OPENAI_COMPATIBLE", baseUrl: `${providers.url}/v1`, apiKey: wrong })
    expect(tested.status).toBe(200)
    expect(tested.body).toMatchObject({ authenticated: false, errorCode: "UNAUTHORIZED" })
    expect(tested.body.errorMessage).toContain("[redacted]")
    expect(JSON.stringify(tested.body)).not.toContain(wrong)
  })

  it("tests unsaved Anthropic and Azure gateways with their own headers", async () => {
    const anthropic = await call("POST", "/api/admin/ai/gateways/test", { preset: "ANTHROPIC", baseUrl: `${providers.url}/anthropic/v1`, apiKey: SECRET })
    expect(anthropic.body).toMatchObject({ authenticated: true, models: [{ id: "claude-test-1", displayName: "Claude Test 1" }] })
    const sent = providers.requests.at(-1)!
    expect(sent.headers["x-api-key"]).toBe(SECRET)
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01")
    expect(sent.headers.authorization).toBeUndefined()
    const azure = await call("POST", "/api/admin/ai/gateways/test", { preset: "AZURE_OPENAI", baseUrl: `${providers.url}/azure/openai/v1?api-version=preview`, apiKey: SECRET })
    expect(azure.body).toMatchObject({ authenticated: true, models: [{ id: "gpt-azure-test" }] })
    expect(providers.requests.at(-1)!.headers["api-key"]).toBe(SECRET)
    const wrongAnthropic = await call("POST", "/api/admin/ai/gateways/test", { preset: "ANTHROPIC", baseUrl: `${providers.url}/anthropic/v1`, apiKey: "nope" })
    expect(wrongAnthropic.body.errorCode).toBe("UNAUTHORIZED")
  })

  it("a slow provider is TIMEOUT within requestTimeoutSeconds; a closed port UNREACHABLE; a web page BAD_RESPONSE", async () => {
    const started = Date.now()
    const slow = await call("POST", "/api/admin/ai/gateways/test", { preset: "OPENAI_COMPATIBLE", baseUrl: `${providers.url}/slow/v1`, requestTimeoutSeconds: 1, apiKey: SECRET })
    const elapsed = Date.now() - started
    expect(slow.body).toMatchObject({ authenticated: false, errorCode: "TIMEOUT" })
    expect(elapsed).toBeGreaterThanOrEqual(900)
    expect(elapsed).toBeLessThan(3_000)
    const port = await closedPort()
    const unreachable = await call("POST", "/api/admin/ai/gateways/test", { preset: "OPENAI_COMPATIBLE", baseUrl: `http://127.0.0.1:${port}/v1` })
    expect(unreachable.body).toMatchObject({ authenticated: false, errorCode: "UNREACHABLE" })
    const html = await call("POST", "/api/admin/ai/gateways/test", { preset: "OPENAI_COMPATIBLE", baseUrl: `${providers.url}/html/v1` })
    expect(html.body).toMatchObject({ authenticated: false, errorCode: "BAD_RESPONSE" })
    expect((await call("POST", "/api/admin/ai/gateways/test", { preset: "OPENAI", baseUrl: "ftp://example.com" })).body.code).toBe("INVALID_GATEWAY")
  })

  it("does not follow a redirect with the key", async () => {
    const redirected = await call("POST", "/api/admin/ai/gateways/test", { preset: "ANTHROPIC", baseUrl: `${providers.url}/redirect/anthropic/v1`, apiKey: SECRET })
    expect(redirected.body).toMatchObject({ authenticated: false, errorCode: "BAD_RESPONSE" })
    expect(redirected.body.errorMessage).toContain("redirect")
    expect(providers.requests.some((request) => request.path.startsWith("/collect/"))).toBe(false)
  })

  it("updates check the version (409 VERSION_CONFLICT on a stale one); a key in the URL is refused", async () => {
    const gateway = await newGateway("versioned")
    const updated = await call("PUT", `/api/admin/ai/gateways/${gateway.id}`, { displayName: "Renamed", requestTimeoutSeconds: 5, version: 1 })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ displayName: "Renamed", requestTimeoutSeconds: 5, version: 2, baseUrl: `${providers.url}/v1` })
    const stale = await call("PUT", `/api/admin/ai/gateways/${gateway.id}`, { enabled: false, version: 1 })
    expect(stale.status).toBe(409)
    expect(stale.body.code).toBe("VERSION_CONFLICT")
    expect((await call("DELETE", `/api/admin/ai/gateways/${gateway.id}?version=1`)).body.code).toBe("VERSION_CONFLICT")
    const withUser = await call("PUT", `/api/admin/ai/gateways/${gateway.id}`, { baseUrl: "https://user:pass@example.com/v1", version: 2 })
    expect(withUser.body.code).toBe("INVALID_GATEWAY")
    expect(JSON.stringify(withUser.body)).not.toContain("pass@")
    expect((await call("DELETE", `/api/admin/ai/gateways/${gateway.id}?version=2`)).status).toBe(204)
    expect((await call("PUT", `/api/admin/ai/gateways/${gateway.id}`, { version: 2 })).body.code).toBe("GATEWAY_NOT_FOUND")
    expect((await call("DELETE", `/api/admin/ai/gateways/${gateway.id}`)).status).toBe(404)
  })

  it("assistant models: replaced as a whole, ids kept for models that stay, duplicates refused", async () => {
    const gateway = await newGateway("assistants")
    const first = await call("PUT", `/api/admin/ai/gateways/${gateway.id}/assistant-models`, [
      { modelId: "gpt-test", displayName: "GPT test" },
      { modelId: "gpt-mini", displayName: "GPT mini" }
    ])
    expect(first.status).toBe(200)
    expect(first.body.map((model: any) => model.modelId)).toEqual(["gpt-test", "gpt-mini"])
    const second = await call("PUT", `/api/admin/ai/gateways/${gateway.id}/assistant-models`, [{ modelId: "gpt-mini", displayName: "Mini" }])
    expect(second.body).toEqual([{ id: first.body[1].id, modelId: "gpt-mini", displayName: "Mini" }])
    const listed = (await call("GET", "/api/admin/ai/gateways")).body.find((candidate: any) => candidate.id === gateway.id)
    expect(listed.assistantModels).toEqual(second.body)
    const twice = await call("PUT", `/api/admin/ai/gateways/${gateway.id}/assistant-models`, [{ modelId: "a", displayName: "A" }, { modelId: "a", displayName: "B" }])
    expect(twice.body.code).toBe("INVALID_GATEWAY")
    expect((await call("PUT", `/api/admin/ai/gateways/${gateway.id}/assistant-models`, [{ modelId: "a", displayName: "A", extra: 1 }])).body.code).toBe("VALIDATION_FAILED")
  })
})

describe("routes", () => {
  it("every workload has an effective route; an admin route overrides it, checks its version and keeps its gateway", async () => {
    const initial = await call("GET", "/api/admin/ai/routes")
    expect(initial.body.map((route: any) => route.workload)).toEqual(["ASSISTANT_CHAT", "PROMPT_EXECUTION", "KEYWORD_PLANNING", "GRAPH_EXTRACTION", "QUERY_EMBEDDING", "DOCUMENT_EMBEDDING"])
    for (const route of initial.body) expect(route).toMatchObject({ source: "DEFAULT", gatewayProfileId: LOCAL_ID, gatewayKey: "local", version: 0, editable: true })

    const gateway = await newGateway("chat", { supportsProviderReasoningEffort: true })
    // This gateway has no key, so its test fails: forced (the refusal itself is test/hostile/gateway-route-test.test.ts).
    const set = await call("PUT", "/api/admin/ai/routes/ASSISTANT_CHAT", { gatewayProfileId: gateway.id, modelId: "gpt-test", providerReasoningEffort: "LOW", version: 0, force: true })
    expect(set.status).toBe(200)
    expect(set.body).toMatchObject({ workload: "ASSISTANT_CHAT", source: "ADMIN", gatewayKey: "chat", modelId: "gpt-test", providerReasoningEffort: "LOW", version: 1 })
    expect((await call("PUT", "/api/admin/ai/routes/ASSISTANT_CHAT", { gatewayProfileId: gateway.id, modelId: "other", version: 0 })).body.code).toBe("VERSION_CONFLICT")
    const moved = await call("PUT", "/api/admin/ai/routes/ASSISTANT_CHAT", { gatewayProfileId: gateway.id, modelId: "gpt-4o", version: 1, force: true })
    expect(moved.body).toMatchObject({ modelId: "gpt-4o", version: 2 })
    expect(moved.body.providerReasoningEffort).toBeUndefined()

    const inUse = await call("DELETE", `/api/admin/ai/gateways/${gateway.id}`)
    expect(inUse.status).toBe(409)
    expect(inUse.body.code).toBe("GATEWAY_IN_USE")
    expect(inUse.body.detail).toContain("ASSISTANT_CHAT")

    const disabled = await call("PUT", `/api/admin/ai/gateways/${gateway.id}`, { enabled: false, version: 1 })
    expect(disabled.body.enabled).toBe(false)
    const chat = (await call("GET", "/api/admin/ai/routes")).body.find((route: any) => route.workload === "ASSISTANT_CHAT")
    expect(chat).toMatchObject({ source: "ADMIN", gatewayKey: "chat" })
    expect(chat.lifecycleNote).toMatch(/disabled.*LOCAL/)

    expect((await call("DELETE", "/api/admin/ai/routes/ASSISTANT_CHAT?version=1")).body.code).toBe("VERSION_CONFLICT")
    expect((await call("DELETE", "/api/admin/ai/routes/ASSISTANT_CHAT")).status).toBe(204)
    const reset = (await call("GET", "/api/admin/ai/routes")).body.find((route: any) => route.workload === "ASSISTANT_CHAT")
    expect(reset).toMatchObject({ source: "DEFAULT", gatewayProfileId: LOCAL_ID, version: 0 })
    expect((await call("DELETE", `/api/admin/ai/gateways/${gateway.id}`)).status).toBe(204)
  })

  it("refuses routes a gateway cannot serve", async () => {
    const anthropic = (await call("POST", "/api/admin/ai/gateways", { gatewayKey: "claude", displayName: "Claude", preset: "ANTHROPIC", baseUrl: `${providers.url}/anthropic/v1` })).body
    expect((await call("PUT", "/api/admin/ai/routes/DOCUMENT_EMBEDDING", { gatewayProfileId: anthropic.id, modelId: "claude", version: 0 })).body.code).toBe("INVALID_ROUTE")
    expect((await call("PUT", "/api/admin/ai/routes/ASSISTANT_CHAT", { gatewayProfileId: LOCAL_ID, modelId: "gpt-4o", version: 0 })).body.code).toBe("INVALID_ROUTE")
    const plain = await newGateway("plain")
    expect((await call("PUT", "/api/admin/ai/routes/ASSISTANT_CHAT", { gatewayProfileId: plain.id, modelId: "m", providerReasoningEffort: "HIGH", version: 0 })).body.code).toBe("INVALID_ROUTE")
    expect((await call("PUT", "/api/admin/ai/routes/ASSISTANT_CHAT", { gatewayProfileId: "00000000-0000-4000-8000-000000000001", modelId: "m", version: 0 })).body.code).toBe("GATEWAY_NOT_FOUND")
    expect((await call("PUT", "/api/admin/ai/routes/NOT_A_WORKLOAD", { gatewayProfileId: LOCAL_ID, modelId: "m", version: 0 })).body.code).toBe("VALIDATION_FAILED")
    const local = await call("PUT", "/api/admin/ai/routes/KEYWORD_PLANNING", { gatewayProfileId: LOCAL_ID, modelId: "lore-keywords", version: 0 })
    expect(local.body).toMatchObject({ source: "ADMIN", gatewayKey: "local", version: 1 })
  })

  it("index settings say the index is lexical without an embedding model", async () => {
    const settings = await call("GET", "/api/admin/ai/index-settings")
    expect(settings.status).toBe(200)
    expect(settings.body).toMatchObject({ embeddingProvider: "LOCAL", embeddingModel: "none", dimensions: 0, managementMode: "DEFAULT", editable: true, generation: null, reembedding: null })
  })
})

describe("the credential is write-only", () => {
  it("never appears in a response, a validation error, a log line or the audit trail", async () => {
    const gateway = await newGateway("secretive")
    // Invalid bodies that carry the secret: the error names the field, never its value.
    const extra = await call("PUT", `/api/admin/ai/gateways/${gateway.id}/credential`, { apiKey: SECRET, note: SECRET })
    expect(extra.body.code).toBe("VALIDATION_FAILED")
    const tooLong = await call("PUT", `/api/admin/ai/gateways/${gateway.id}/credential`, { apiKey: SECRET.repeat(200) })
    expect(tooLong.body.code).toBe("VALIDATION_FAILED")
    const wrongType = await call("POST", "/api/admin/ai/gateways/test", { preset: SECRET, apiKey: SECRET })
    expect(wrongType.body.code).toBe("VALIDATION_FAILED")
    expect((await call("PUT", `/api/admin/ai/gateways/${gateway.id}/credential`, { apiKey: SECRET })).status).toBe(204)
    expect((await call("POST", `/api/admin/ai/gateways/${gateway.id}/test`)).body.authenticated).toBe(true)

    const audit = await call("GET", "/api/admin/audit?resourceType=ai_gateway&pageSize=200")
    expect(audit.status).toBe(200)
    const actions = audit.body.items.map((item: any) => item.action)
    expect(actions).toContain("ai_gateway.credential.set")
    expect(actions).toContain("ai_gateway.create")

    expect(bodies.length).toBeGreaterThan(10)
    for (const body of bodies) expect(body).not.toContain(SECRET)
    // The capture works: the server's own log lines are in it.
    expect(captured.join("\n")).toContain("Lore is listening")
    for (const line of captured) expect(line).not.toContain(SECRET)
  })
})

describe("the credential at rest", () => {
  /** Every file under a directory (the embedded database lives in the data dir). */
  const filesUnder = (dir: string): Array<string> =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? filesUnder(path) : [path]
    })

  it("is stored AES-256-GCM sealed, never as its text", async () => {
    const marker = "marker-gateway-name-9f3b"
    const gateway = await newGateway("at-rest", { displayName: marker })
    const atRest = `${SECRET}-at-rest`
    expect((await call("PUT", `/api/admin/ai/gateways/${gateway.id}/credential`, { apiKey: atRest })).status).toBe(204)
    if (server.databaseUrl) {
      const client = new pg.Client({ connectionString: server.databaseUrl })
      await client.connect()
      try {
        const { rows } = await client.query("SELECT credential_sealed FROM ai_gateways WHERE id = $1", [gateway.id])
        expect(rows[0].credential_sealed).toMatch(/^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/)
        expect(rows[0].credential_sealed).not.toContain(atRest)
      } finally {
        await client.end()
      }
    } else {
      const contents = filesUnder(server.dataDir).map((file) => readFileSync(file))
      // The scan sees what was written: the gateway's name is in the database files, the key is not.
      expect(contents.some((bytes) => bytes.includes(marker))).toBe(true)
      expect(contents.some((bytes) => bytes.includes(atRest))).toBe(false)
    }
    expect((await call("POST", `/api/admin/ai/gateways/${gateway.id}/test`)).body.errorCode).toBe("UNAUTHORIZED")
  })
})
