import { Command } from "commander"
import { createServer, type Server } from "node:http"
import { mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { createLoreClient } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CommandSpec, GroupSpec } from "../src/command"
import { cliDir, closedPort, ensureBuilt, lore, newConfigHome } from "./support/cli"
import { serveLore, type ServedLore } from "./support/serve"

// `--json` is exactly one JSON document on stdout, failures included (issue 33.2), and an error document
// always carries `errors` (33.1). Every command is run down a failure path: each required argument and
// option gets a plausible value, the server is a port nothing listens on.

const commandsDir = join(cliDir, "src", "commands")
const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
  })

// `serve` starts a server and `mcp` serves MCP on stdin: neither has a request to fail.
const longRunning = new Set(["serve", "mcp"])
const placeholder = "7b0c1a47-0000-4000-8000-000000000001"

/** `lore <path> <required arguments> <required options>` for each command, found from its own spec. */
const failureInvocations = async () => {
  const invocations: Array<ReadonlyArray<string>> = []
  for (const file of filesUnder(commandsDir)) {
    const spec = ((await import(file)) as { default: CommandSpec | GroupSpec }).default
    if (spec.kind !== "command") continue
    const path = relative(commandsDir, file).replace(/\.tsx?$/, "").split("/")
    if (longRunning.has(path.join(" "))) continue
    const probe = new Command(path[path.length - 1]!)
    spec.configure?.(probe)
    const args = probe.registeredArguments.filter((argument) => argument.required).map(() => placeholder)
    const options = probe.options.filter((option) => option.mandatory).flatMap((option) => [option.long!, placeholder])
    invocations.push([...path, ...args, ...options])
  }
  return invocations
}

/** Runs `tasks` with at most `width` in flight (the machine has two cores; each is a node process). */
const inBatches = async <T, R>(items: ReadonlyArray<T>, width: number, task: (item: T) => Promise<R>) => {
  const results: Array<R> = new Array(items.length)
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await task(items[index]!)
    }
  }))
  return results
}

describe("--json prints exactly one document", { timeout: 300_000 }, () => {
  beforeAll(() => ensureBuilt())

  it("for every command's failure path, and an error document always has an errors array", async () => {
    const invocations = await failureInvocations()
    expect(invocations.length).toBeGreaterThan(100)
    const env = { XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: `http://127.0.0.1:${await closedPort()}`, LORE_TOKEN: `lore_pat_${"x".repeat(40)}`, CI: "1" }
    const broken: Array<string> = []
    const errorDocuments = await inBatches(invocations, 3, async (args) => {
      const run = await lore(["--json", ...args], { env })
      const name = `lore --json ${args.join(" ")} (exit ${run.code})`
      let document: any
      try {
        document = JSON.parse(run.stdout)
      } catch {
        broken.push(`${name}: stdout is not one JSON document: ${JSON.stringify(run.stdout.slice(0, 300))}`)
        return 0
      }
      if (run.code === 0) return 0
      if (document?.error === undefined) return 0
      if (!Array.isArray(document.error.errors) || typeof document.error.code !== "string" || typeof document.error.status !== "number") {
        broken.push(`${name}: the error has no errors array, code or status: ${run.stdout.slice(0, 300)}`)
      }
      return 1
    })
    expect(broken).toEqual([])
    // Nearly all fail, most of them on the unreachable server: the test reaches the error path, not help.
    expect(errorDocuments.filter((counted) => counted === 1).length).toBeGreaterThan(invocations.length * 0.9)
  })
})

const badTemplate = `type: PROMPT_TEMPLATE
namespace: ops
slug: country-brief
knowledgeSpace: general
title: Country brief
summary: Briefs a traveller on a country
classification: INTERNAL
schemaVersion: "1"
payload:
  objective: Brief a traveller
  audience: Travellers
  systemInstruction: You brief travellers.
  userTemplate: "Brief me on {{country}}."
  variables: []
  outputContract: {}
  knowledgeRequirements: []
  knownLimitations: ""
`

// A gateway that accepts the connection and then fails every completion: the answer fails inside its stream.
let provider: Server
let server: ServedLore | undefined

describe("against a server whose model fails", { timeout: 300_000 }, () => {
  beforeAll(async () => {
    provider = createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        if (request.url?.endsWith("/models")) {
          response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "broken-model", object: "model" }] }))
          return
        }
        // A model that fails before its first word is answered offline (MODEL_FALLBACK); one that fails mid-answer
        // fails the answer: a first chunk of text, then the connection drops.
        response.writeHead(200, { "content-type": "text/event-stream" })
        const chunk = { id: "c1", object: "chat.completion.chunk", created: 0, model: "broken-model", choices: [{ index: 0, delta: { role: "assistant", content: "The travel " }, finish_reason: null }] }
        response.write(`data: ${JSON.stringify(chunk)}\n\n`, () => setTimeout(() => response.destroy(), 50))
      })
    })
    await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve))
    server = await serveLore()
    const admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const gateway = await admin.admin.ai.createGateway({ gatewayKey: "broken", displayName: "Broken", preset: "OPENAI_COMPATIBLE", baseUrl: `http://127.0.0.1:${(provider.address() as { port: number }).port}/v1` })
    await admin.admin.ai.setCredential(gateway.id, "sk-test-key-000000000000")
    await admin.admin.ai.setAssistantModels(gateway.id, [{ modelId: "broken-model", displayName: "Broken" }])
    await admin.admin.ai.setRoute("ASSISTANT_CHAT", { gatewayProfileId: gateway.id, modelId: "broken-model", version: 0 })
    // With nothing relevant the assistant says so without asking the model: give it a passage to answer from.
    const dir = mkdtempSync(join(tmpdir(), "lore-cli-json-"))
    writeFileSync(join(dir, "travel.md"), "# Travel policy\n\nThe travel policy: employees book trains for trips under 500 km.\n")
    const added = await lore(["--json", "sources", "add", join(dir, "travel.md"), "--space", "general", "--title", "Travel policy"], { env: { XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: server.url, LORE_TOKEN: server.adminToken }, timeoutMs: 120_000 })
    expect(added.code, added.stderr).toBe(0)
  })
  afterAll(async () => {
    await server?.stop()
    await new Promise((resolve) => provider?.close(resolve))
  })

  it("prints only the error, with the conversation and the failed message, and exits 1", async () => {
    const run = await lore(["--json", "ask", "What is the travel policy?"], { env: { XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: server!.url, LORE_TOKEN: server!.adminToken }, timeoutMs: 120_000 })
    expect(run.code, run.stderr).toBe(1)
    const document = run.json()
    expect(Object.keys(document)).toEqual(["error"])
    expect(document.error).toMatchObject({ status: 0, code: "ANSWER_FAILED", errors: [], requestId: expect.any(String), conversationId: expect.any(String), messageId: expect.any(String) })
    expect(document.error.detail.length).toBeGreaterThan(0)
    // The failed answer was saved in that conversation.
    const admin = createLoreClient({ baseUrl: server!.url, token: server!.adminToken })
    const messages = await admin.assistant.messages(document.error.conversationId)
    expect(messages.find((message) => message.id === document.error.messageId)).toMatchObject({ status: "FAILED" })
  })

  it("a 422 prints each errors[] entry as '  <path>: <message>' on stderr, and keeps them in --json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lore-cli-fields-"))
    writeFileSync(join(dir, "brief.yaml"), badTemplate)
    const env = { XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: server!.url, LORE_TOKEN: server!.adminToken }
    const text = await lore(["assets", "push", join(dir, "brief.yaml")], { env })
    expect(text.code).toBe(6)
    expect(text.stderr).toMatch(/^ {2}payload\.userTemplate: .*country/m)
    const json = await lore(["--json", "assets", "push", join(dir, "brief.yaml")], { env })
    expect(json.code).toBe(6)
    expect(json.json().error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: "payload.userTemplate", message: expect.stringContaining("country") })]))
  })

  it("marks commander's required options as required in help", async () => {
    const help = await lore(["assets", "withdraw", "--help"])
    expect(help.stdout).toMatch(/--release <release> .*\(required\)/)
    expect(help.stdout).toMatch(/--reason <text> .*\(required\)/)
    expect(help.stdout).not.toMatch(/--emergency .*\(required\)/)
  })
})
