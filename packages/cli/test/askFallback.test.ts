import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedLore, serveLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

// Issue 29, point 9, as an employee sees it: with ASSISTANT_CHAT routed (forced) to a gateway that refuses Lore's
// key, `lore ask` used to fail with the provider's raw 401 JSON. It now answers offline and says so on stderr.

const WRONG_KEY = "sk-cli-wrong-key-0123456789"
let server: ServedLore
let provider: Server
let providerUrl: string
let env: () => Record<string, string>
const slow = { timeoutMs: 120_000 }

beforeAll(async () => {
  ensureBuilt()
  // A provider that refuses every key, quoting it back as OpenAI does.
  provider = createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      response.writeHead(401, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${String(request.headers.authorization)}`, type: "invalid_request_error", code: "invalid_api_key" } }))
    })
  })
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve))
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`
  server = await serveLore()
  const home = newConfigHome()
  env = () => ({ XDG_CONFIG_HOME: home, LORE_SERVER: server.url, LORE_TOKEN: server.adminToken })
  const dir = mkdtempSync(join(tmpdir(), "lore-cli-fallback-"))
  writeFileSync(join(dir, "travel.md"), "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval.\n")
  const run = async (args: ReadonlyArray<string>, input?: string) => {
    const result = await lore(args, { env: env(), ...slow, ...(input === undefined ? {} : { input }) })
    expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0)
    return result
  }
  await run(["sources", "add", join(dir, "travel.md"), "--space", "general", "--title", "Travel policy", "--json"])
  await run(["admin", "ai", "gateways", "add", "broken", "--preset", "openai-compatible", "--name", "Broken", "--base-url", providerUrl, "--json"])
  await run(["admin", "ai", "gateways", "credential", "broken", "--stdin", "--json"], `${WRONG_KEY}\n`)
  const refused = await lore(["admin", "ai", "routes", "set", "assistant-chat", "--gateway", "broken", "--model", "gpt-test"], { env: env(), ...slow })
  expect(refused.code).toBe(6)
  await run(["admin", "ai", "routes", "set", "assistant-chat", "--gateway", "broken", "--model", "gpt-test", "--force", "--json"])
}, 240_000)
afterAll(async () => {
  await server?.stop()
  await new Promise<void>((resolve) => provider?.close(() => resolve()))
})

describe("lore ask with a failing chat gateway", () => {
  it("answers offline, notes the fallback on stderr, and shows nothing of the provider's error", async () => {
    const plain = await lore(["ask", "Do flights need a manager's approval?"], { env: env(), ...slow })
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toContain("\"Flights need a manager's approval.\" [1]")
    expect(plain.stderr).toContain("note: The model call failed (UNAUTHORIZED); answering offline")
    for (const leak of ["Incorrect API key", WRONG_KEY, "invalid_api_key", "401"]) expect(plain.stdout + plain.stderr).not.toContain(leak)

    const json = await lore(["--json", "ask", "Which trips are booked by train?"], { env: env(), ...slow })
    expect(json.code, json.stderr).toBe(0)
    expect(json.json()).toMatchObject({ status: "COMPLETE", provider: "LOCAL", model: "lore-extractive" })
  })
})
