import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminApi, type ServedLore, serveLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

// `lore graph ...` against a real server (LOCAL extraction), through the built binary.

let server: ServedLore
let dir: string
let env: () => Record<string, string>
let assetId: string
const slow = { timeoutMs: 120_000 }

const path = (...parts: Array<string>) => join(dir, ...parts)
const api = (method: string, route: string, body?: unknown) => adminApi(server)(method, route, body)

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  const home = newConfigHome()
  env = () => ({ XDG_CONFIG_HOME: home, LORE_SERVER: server.url, LORE_TOKEN: server.adminToken })
  dir = mkdtempSync(join(tmpdir(), "lore-cli-graph-"))
  writeFileSync(path("people.txt"), "Alice Johnson works at Acme Corporation in Paris. Alice Johnson met Bob Smith in Berlin.\n")
  expect((await api("POST", "/api/admin/knowledge-spaces", { key: "people", name: "People" })).status).toBe(201)
  const added = await lore(["sources", "add", path("people.txt"), "--space", "people", "--classification", "PUBLIC", "--json"], { env: env(), ...slow })
  expect(added.code, added.stderr).toBe(0)
  const [entry] = added.json()
  assetId = (await (await api("GET", `/api/sources/${entry.sourceId}`)).json()).knowledgeAssetId
  expect(assetId).toMatch(/^[0-9a-f-]{36}$/)
}, 120_000)
afterAll(async () => {
  await server?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe("lore graph", () => {
  it("index waits until the job ends; jobs show, explore (tree and JSON), curate, export", async () => {
    const indexed = await lore(["graph", "index", assetId, "--json"], { env: env(), ...slow })
    expect(indexed.code, indexed.stderr + indexed.stdout).toBe(0)
    const [job] = indexed.json()
    expect(job).toMatchObject({ status: "SUCCEEDED", knowledgeAssetId: assetId, extractor: "LOCAL" })

    const shown = await lore(["graph", "jobs", "show", job.id], { env: env(), ...slow })
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain("SUCCEEDED")
    const resumed = await lore(["graph", "jobs", "resume", job.id, "--json"], { env: env(), ...slow })
    expect(resumed.code).not.toBe(0)
    expect(resumed.json().error.code).toBe("GRAPH_JOB_STATE_CONFLICT")

    const tree = await lore(["graph", "explore", "Alice Johnson", "--space", "people"], { env: env(), ...slow })
    expect(tree.code, tree.stderr).toBe(0)
    expect(tree.stdout).toMatch(/^Alice Johnson \[PERSON\]/m)
    expect(tree.stdout).toMatch(/^ {2}-CO_OCCURS_WITH-> |^ {2}<-CO_OCCURS_WITH- /m)
    const explored = (await lore(["graph", "explore", "Bob Smith", "--space", "people", "--depth", "0", "--json"], { env: env(), ...slow })).json()
    const bob = explored.entities.find((e: any) => e.name === "Bob Smith")
    expect(bob).toBeTruthy()

    const curated = await lore(["graph", "curate", "suppress", "--space", "people", "--entity", bob.id, "--reason", "noise", "--json"], { env: env(), ...slow })
    expect(curated.code, curated.stderr).toBe(0)
    const curation = curated.json()
    expect(curation).toMatchObject({ curationKind: "SUPPRESSION", entity: { kind: "ENTITY", id: bob.id } })
    const hidden = (await lore(["graph", "explore", "", "--space", "people", "--json"], { env: env(), ...slow })).json()
    expect(hidden.entities.map((e: any) => e.name)).not.toContain("Bob Smith")
    const removed = await lore(["graph", "curate", "rm", curation.id, "--space", "people", "--reason", "undo"], { env: env(), ...slow })
    expect(removed.code, removed.stderr).toBe(0)

    const exported = await lore(["graph", "export", "--space", "people", "--format", "MARKDOWN", "-o", path("graph.md")], { env: env(), ...slow })
    expect(exported.code, exported.stderr).toBe(0)
    const markdown = readFileSync(path("graph.md"), "utf8")
    expect(markdown).toContain("```mermaid")
    expect(markdown).toContain("Bob Smith")
    const csv = await lore(["graph", "export", "--space", "people", "--format", "CSV"], { env: env(), ...slow })
    expect(csv.stdout).toMatch(/^# entities\r\n/)
    const bad = await lore(["graph", "export", "--space", "people", "--format", "PDF"], { env: env(), ...slow })
    expect(bad.code).toBe(2)
  })
})
