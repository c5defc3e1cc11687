import { createLoreClient, type LoreClient } from "@lore/sdk"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { PromptListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { zipSync } from "fflate"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { binary, ensureBuilt, lore } from "./support/cli"
import { serveLore, type ServedLore } from "./support/serve"

// `lore mcp` through the MCP SDK's own Client over stdio, spawning the built binary (token from LORE_TOKEN, server
// from LORE_URL, no profile); and `lore skills sync`, which installs activated released skills with their digests
// verified and removes withdrawn ones it installed, leaving the user's own skills alone.

let server: ServedLore
let admin: LoreClient
let dir: string
let home: string
const skill = { assetId: "", releaseId: "" }
let spaceId = ""
const text = (value: string) => new TextEncoder().encode(value)

const releaseSkill = async (spaceId: string, name: string, version: string) => {
  const zip = zipSync({ [`${name}/SKILL.md`]: text(`---\nname: ${name}\ndescription: Does ${name} things.\nlicense: MIT\n---\n# ${name}\nSteps.\n`), [`${name}/scripts/run.sh`]: text(`echo ${name}\n`) })
  const asset = await admin.assets.skills.create({ file: zip, namespace: "dev", knowledgeSpaceId: spaceId })
  const released = await admin.assets.directRelease(asset.id, { versionLabel: version, changeNote: "ship", lockVersion: asset.draft!.lockVersion })
  return { assetId: asset.id, releaseId: released.releases[0]!.id }
}

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
  home = mkdtempSync(join(tmpdir(), "lore-cli-mcp-home-"))
  dir = mkdtempSync(join(tmpdir(), "lore-cli-mcp-"))
  const space = await admin.admin.spaces.create({ key: "tooling", name: "Tooling" })
  spaceId = space.id
  const policy = await admin.assets.policy(space.id)
  await admin.assets.setPolicy(space.id, { requiredApprovals: 1, directReleaseAllowed: true, version: policy.version })
  Object.assign(skill, await releaseSkill(space.id, "lint-fixer", "1.0.0"))
  await admin.assets.skills.setActivation(skill.assetId, true)
  await releaseSkill(space.id, "not-activated", "1.0.0")
}, 240_000)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
  rmSync(home, { recursive: true, force: true })
})

describe("lore mcp and lore skills sync", { timeout: 120_000 }, () => {
  it("serves MCP on stdio with LORE_URL and LORE_TOKEN: tools, prompts, resources", async () => {
    const stderr: Array<string> = []
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [binary, "mcp"],
      env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: home, LORE_URL: server.url, LORE_TOKEN: server.adminToken },
      stderr: "pipe"
    })
    transport.stderr?.on("data", (chunk) => stderr.push(String(chunk)))
    const client = new Client({ name: "cli-test", version: "1.0.0" })
    try {
      await client.connect(transport)
      expect(client.getServerVersion()?.name).toBe("lore")
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toContain("knowledge_search")
      const listed = (await client.callTool({ name: "assets_list", arguments: { type: "SKILL" } })) as any
      expect(listed.structuredContent.assets.map((a: any) => a.slug).sort()).toEqual(["lint-fixer", "not-activated"])
      const refused = (await client.callTool({ name: "asset_show", arguments: { assetId: "00000000-0000-4000-8000-000000000000" } })) as any
      expect(refused).toMatchObject({ isError: true, structuredContent: { code: "ASSET_NOT_FOUND" } })
      expect((await client.listPrompts()).prompts).toEqual([])
      // A prompt released meanwhile: the server's notification comes through the relay, then the prompt is listed.
      let changes = 0
      client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
        changes += 1
      })
      const payload = {
        objective: "Write a commit message", audience: "Developers", systemInstruction: "Be brief.", userTemplate: "Describe {{change}}.",
        variables: [{ name: "change", type: "STRING", required: true, sensitive: false }], outputContract: {}, knowledgeRequirements: [], knownLimitations: ""
      }
      const draft = { title: "Commit message", summary: "Writes commit messages", classification: "INTERNAL" as const, schemaVersion: "1", payload: JSON.stringify(payload) }
      const asset = await admin.assets.create({ type: "PROMPT_TEMPLATE", namespace: "dev", slug: "commit-message", knowledgeSpaceId: spaceId, draft })
      await admin.assets.directRelease(asset.id, { versionLabel: "1.0.0", changeNote: "ship", lockVersion: asset.draft!.lockVersion })
      for (let waited = 0; changes === 0 && waited < 15_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(changes).toBeGreaterThan(0)
      const { prompts } = await client.listPrompts()
      expect(prompts.map((p) => p.name)).toEqual(["dev.commit-message"])
      const got = await client.getPrompt({ name: "dev.commit-message", arguments: { change: "the MCP relay" } })
      expect(got.messages[0]!.content).toMatchObject({ text: "Be brief.\n\nDescribe the MCP relay." })
      expect(stderr.join("")).toBe("")

      // The server forgets the relay's session (here: the user opens 20 more, the most a user keeps): the relay starts
      // a new one with the agent's own initialize and the agent notices nothing.
      const others = await Promise.all(Array.from({ length: 20 }, async () => {
        const other = new Client({ name: "other", version: "1.0.0" })
        await other.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${server.adminToken}` } } }))
        return other
      }))
      await Promise.all(others.map((other) => other.close()))
      const again = (await client.callTool({ name: "assets_list", arguments: { type: "SKILL" } })) as any
      expect(again.structuredContent.assets).toHaveLength(2)
      expect(stderr.join("")).toContain("started a new one")
    } finally {
      await client.close()
    }
    expect(stderr.join("").split("\n").filter((line) => line !== "" && !line.startsWith("lore mcp: "))).toEqual([])
  })

  it("exits 3 at once without a token, printing nothing on stdout", async () => {
    const result = await lore(["mcp"], { env: { XDG_CONFIG_HOME: home, LORE_SERVER: server.url } })
    expect(result.code).toBe(3)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain("LORE_TOKEN")
  })

  it("syncs activated skills into a folder, keeps the user's own, and removes a withdrawn one", async () => {
    const env = { XDG_CONFIG_HOME: home, LORE_SERVER: server.url, LORE_TOKEN: server.adminToken }
    const target = join(dir, "skills")
    mkdirSync(join(target, "my-own"), { recursive: true })
    writeFileSync(join(target, "my-own", "SKILL.md"), "mine\n")
    const first = await lore(["--json", "skills", "sync", "--dir", target], { env })
    expect(first.code, first.stderr).toBe(0)
    expect(first.json().skills).toMatchObject([{ coordinate: "dev/lint-fixer@1.0.0", action: "installed", packageDigest: expect.stringMatching(/^sha256:/) }])
    expect(readFileSync(join(target, "lint-fixer", "scripts", "run.sh"), "utf8")).toBe("echo lint-fixer\n")
    expect(existsSync(join(target, "not-activated"))).toBe(false)
    expect(JSON.parse(readFileSync(join(target, ".lore-skills.json"), "utf8")).skills["lint-fixer"]).toMatchObject({ assetId: skill.assetId, releaseId: skill.releaseId })

    const again = await lore(["--json", "skills", "sync", "--dir", target], { env })
    expect(again.json().skills).toMatchObject([{ coordinate: "dev/lint-fixer@1.0.0", action: "unchanged" }])

    await admin.assets.withdraw(skill.assetId, { releaseId: skill.releaseId, reason: "retired" })
    const after = await lore(["--json", "skills", "sync", "--dir", target], { env })
    expect(after.code, after.stderr).toBe(0)
    expect(after.json().skills).toMatchObject([{ coordinate: "dev/lint-fixer@1.0.0", action: "removed" }])
    expect(existsSync(join(target, "lint-fixer"))).toBe(false)
    expect(readFileSync(join(target, "my-own", "SKILL.md"), "utf8")).toBe("mine\n")
  })
})
