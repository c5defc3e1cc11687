import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startFakeProviders, type FakeProviders } from "../../test-support/aiProviders"
import { serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

const KEY = "sk-cli-test-key-never-an-argument-77"

let server: ServedLore
let providers: FakeProviders
let home: string
const admin = (args: ReadonlyArray<string>, options: { input?: string; env?: Record<string, string> } = {}) =>
  lore(args, { env: { XDG_CONFIG_HOME: home, ...options.env }, ...(options.input === undefined ? {} : { input: options.input }) })

const ok = async (pending: ReturnType<typeof lore>) => {
  const result = await pending
  expect(result.code, `${result.stderr}${result.stdout}`).toBe(0)
  return result
}

beforeAll(async () => {
  ensureBuilt()
  providers = await startFakeProviders({ apiKey: KEY })
  server = await serveLore()
  home = newConfigHome()
  await ok(admin(["login", "--server", server.url, "--token", server.adminToken]))
})
afterAll(async () => {
  await server?.stop()
  await providers?.close()
})

describe("lore admin ai", () => {
  it("shows model usage for a period, refusing a date it cannot read or a period that ends before it starts", async () => {
    const usage = (await ok(admin(["admin", "ai", "usage", "--since", "2026-01-01", "--until", "2026-02-01", "--json"]))).json()
    expect(usage).toMatchObject({ since: "2026-01-01T00:00:00.000Z", until: "2026-02-01T00:00:00.000Z", totals: { calls: 0, inputTokens: 0 }, byDay: [] })
    expect((await ok(admin(["admin", "ai", "usage"]))).stdout).toContain("No model calls in this period.")
    const unreadable = await admin(["admin", "ai", "usage", "--since", "last tuesday"])
    expect(unreadable.code).toBe(2)
    expect(unreadable.stderr).toContain("--since")
    const backwards = await admin(["admin", "ai", "usage", "--since", "2026-02-01", "--until", "2026-01-01"])
    expect(backwards.code).toBe(6)
    expect(backwards.stderr).toContain("INVALID_USAGE_PERIOD")
  })

  it("lists providers, gateways (LOCAL built in), routes and index settings", async () => {
    const presets = (await ok(admin(["admin", "ai", "providers", "--json"]))).json()
    expect(presets.map((preset: any) => preset.preset)).toEqual(["OPENAI", "AZURE_OPENAI", "ANTHROPIC", "GEMINI", "OPENAI_COMPATIBLE", "LOCAL"])
    const gateways = (await ok(admin(["admin", "ai", "gateways", "--json"]))).json()
    expect(gateways[0]).toMatchObject({ gatewayKey: "local", editable: false })
    const plain = await ok(admin(["admin", "ai", "gateways", "list"]))
    expect(plain.stdout).toMatch(/^KEY\s+PRESET\s+BASE URL/)
    expect(plain.stdout).toMatch(/local\s+LOCAL/)
    const routes = (await ok(admin(["admin", "ai", "routes", "--json"]))).json()
    expect(routes).toHaveLength(6)
    expect((await ok(admin(["admin", "ai", "index-settings", "--json"]))).json()).toMatchObject({ managementMode: "DEFAULT", embeddingModel: "none" })
    expect((await ok(admin(["admin", "ai", "gateways", "test", "local", "--json"]))).json()).toMatchObject({ authenticated: true, gateway: "local" })
  })

  it("adds a gateway, takes its key from stdin only, tests it, offers models, routes a workload and cleans up", async () => {
    const added = (await ok(admin(["admin", "ai", "gateways", "add", "fake", "--preset", "openai-compatible", "--name", "Fake", "--base-url", `${providers.url}/v1`, "--json"]))).json()
    expect(added).toMatchObject({ gatewayKey: "fake", preset: "OPENAI_COMPATIBLE", credentialSet: false })

    // No terminal and no --stdin: refused at once, naming --stdin (exit 2); nothing is read or sent.
    const noPrompt = await admin(["admin", "ai", "gateways", "credential", "fake"], { input: KEY })
    expect(noPrompt.code).toBe(2)
    expect(noPrompt.stderr).toContain("--stdin")
    const inCi = await admin(["admin", "ai", "gateways", "credential", "fake"], { input: KEY, env: { CI: "1" } })
    expect(inCi.code).toBe(2)
    // There is no option that takes the key as an argument.
    expect((await admin(["admin", "ai", "gateways", "credential", "fake", "--api-key", KEY])).code).toBe(2)

    const failing = await admin(["admin", "ai", "gateways", "test", "fake", "--json"])
    expect(failing.code).toBe(1)
    expect(failing.json().error.code).toBe("UNAUTHORIZED")
    // Routing a workload to it now is refused (exit 6), naming the test's code and --force; nothing is saved.
    const refused = await admin(["admin", "ai", "routes", "set", "assistant-chat", "--gateway", "fake", "--model", "gpt-test"])
    expect(refused.code).toBe(6)
    expect(refused.stderr).toContain("GATEWAY_TEST_FAILED")
    expect(refused.stderr).toContain("(UNAUTHORIZED)")
    expect(refused.stderr).toContain("--force")
    expect((await ok(admin(["admin", "ai", "routes", "--json"]))).json().find((route: any) => route.workload === "ASSISTANT_CHAT")).toMatchObject({ source: "DEFAULT" })

    const set = await ok(admin(["admin", "ai", "gateways", "credential", "fake", "--stdin", "--json"], { input: `${KEY}\n` }))
    expect(set.json()).toMatchObject({ gatewayKey: "fake", credentialSet: true })
    expect(set.stdout + set.stderr).not.toContain(KEY)
    expect((await admin(["admin", "ai", "gateways", "credential", "fake", "--stdin"], { input: "" })).code).toBe(2)

    const tested = (await ok(admin(["admin", "ai", "gateways", "test", "fake", "--json"]))).json()
    expect(tested).toMatchObject({ authenticated: true, models: [{ id: "gpt-test" }, { id: "embed-test" }] })

    const models = (await ok(admin(["admin", "ai", "gateways", "models", "fake", "--offer", "gpt-test=GPT Test", "--json"]))).json()
    expect(models.assistantModels).toEqual([expect.objectContaining({ modelId: "gpt-test", displayName: "GPT Test" })])
    const listedModels = (await ok(admin(["admin", "ai", "gateways", "models", "fake", "--json"]))).json()
    expect(listedModels.available.map((model: any) => model.id)).toEqual(["gpt-test", "embed-test"])

    const updated = (await ok(admin(["admin", "ai", "gateways", "update", "fake", "--timeout", "5", "--json"]))).json()
    expect(updated).toMatchObject({ requestTimeoutSeconds: 5, version: 2 })
    const stale = await admin(["admin", "ai", "gateways", "update", "fake", "--disable", "--if-version", "1", "--json"])
    expect(stale.code).not.toBe(0)
    expect(stale.json().error.code).toBe("VERSION_CONFLICT")

    const routed = (await ok(admin(["admin", "ai", "routes", "set", "assistant-chat", "--gateway", "fake", "--model", "gpt-test", "--json"]))).json()
    expect(routed).toMatchObject({ workload: "ASSISTANT_CHAT", source: "ADMIN", gatewayKey: "fake", version: 1 })
    const again = (await ok(admin(["admin", "ai", "routes", "set", "ASSISTANT_CHAT", "--gateway", "fake", "--model", "gpt-4o", "--json"]))).json()
    expect(again).toMatchObject({ modelId: "gpt-4o", version: 2 })

    expect((await admin(["admin", "ai", "gateways", "rm", "fake"])).code).toBe(2)
    const inUse = await admin(["admin", "ai", "gateways", "rm", "fake", "--yes", "--json"])
    expect(inUse.json().error.code).toBe("GATEWAY_IN_USE")
    expect((await ok(admin(["admin", "ai", "routes", "reset", "assistant-chat", "--json"]))).json()).toMatchObject({ source: "DEFAULT", gatewayKey: "local" })
    expect((await ok(admin(["admin", "ai", "gateways", "rm", "fake", "--yes", "--json"]))).json()).toMatchObject({ deleted: true })
    expect((await admin(["admin", "ai", "gateways", "test", "fake"])).code).toBe(5)
    expect((await admin(["admin", "ai", "routes", "set", "not-a-workload", "--gateway", "local", "--model", "x"])).code).toBe(2)
  })

  it("says a DOCUMENT_EMBEDDING route change queued a re-embedding, and index-settings shows its progress", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-cli-embed-"))
    writeFileSync(join(dir, "pay.md"), "# Pay\n\nEmployee pay is reviewed every spring.")
    await ok(admin(["sources", "add", join(dir, "pay.md"), "--space", "general", "--json"]))
    await ok(admin(["admin", "ai", "gateways", "add", "embedder", "--preset", "openai-compatible", "--name", "Embedder", "--base-url", `${providers.url}/v1`, "--json"]))

    expect((await admin(["admin", "ai", "routes", "set", "document-embedding", "--gateway", "embedder", "--model", "embed-test"])).code).toBe(6)
    // The embedder has no key, so its test fails: --force routes to it anyway.
    expect((await admin(["admin", "ai", "routes", "set", "document-embedding", "--gateway", "embedder", "--model", "embed-test", "--dimensions", "8"])).code).toBe(6)
    const set = await ok(admin(["admin", "ai", "routes", "set", "document-embedding", "--gateway", "embedder", "--model", "embed-test", "--dimensions", "8", "--force"]))
    expect(set.stdout).toMatch(/Re-embedding queued: generation 1 \(embed-test on embedder, 8 dimensions\): 0 of 1 chunks embedded/)
    const json = (await ok(admin(["admin", "ai", "routes", "--json"]))).json().find((route: any) => route.workload === "DOCUMENT_EMBEDDING")
    expect(json).toMatchObject({ source: "ADMIN", gatewayKey: "embedder", dimensions: 8 })

    const settings = (await ok(admin(["admin", "ai", "index-settings", "--json"]))).json()
    expect(settings).toMatchObject({ generation: null, reembedding: { generation: 1, embeddingModel: "embed-test", chunksTotal: 1 } })
    const shown = await ok(admin(["admin", "ai", "index-settings"]))
    expect(shown.stdout).toMatch(/Re-embedding:\s+generation 1 \(embed-test on embedder, 8 dimensions\): \d of 1 chunks embedded, job [A-Z]+/)

    const reset = await ok(admin(["admin", "ai", "routes", "reset", "document-embedding"]))
    expect(reset.stdout).toContain("No embedding model: search is lexical")
    expect((await ok(admin(["admin", "ai", "index-settings", "--json"]))).json()).toMatchObject({ generation: null, reembedding: null })
    await ok(admin(["admin", "ai", "gateways", "rm", "embedder", "--yes", "--json"]))
  })
})
