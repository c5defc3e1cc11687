import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { PromptListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { zipSync } from "fflate"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAsset, draftOf, ok, type Person, promptPayload, startWorld, workInstructionPayload, type World } from "../assets/support"
import { client as knowledgeClient, eventually, uploaded } from "../knowledge/support"

/**
 * The MCP server at /mcp through the SDK's own Client over Streamable HTTP: 401 with WWW-Authenticate, initialize,
 * tools/list and every tool, prompts (released PROMPT_TEMPLATEs; a withdrawn one disappears), resources (documents
 * and skill files by lore:// URI), tool errors as isError results with the problem code, and a user without access
 * to the space getting nothing of it through any tool, prompt or resource.
 */

const WORD = "quokkaberry"
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const text = (value: string) => new TextEncoder().encode(value)

let world: World
let owner: Person
let viewer: Person
let outsider: Person
let prompt: { assetId: string; releaseId: string }
let instruction: { assetId: string; releaseId: string }
let sourceId: string
const clients: Array<Client> = []

const connect = async (token: string) => {
  const client = new Client({ name: "lore-test", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${world.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  clients.push(client)
  return client
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as {
  isError?: boolean
  structuredContent?: any
  content: Array<{ type: string; text: string }>
}

const released = async (reviewer: Person, body: Record<string, unknown>) => {
  const asset = await createAsset(owner, body)
  const submitted = await ok(owner.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "ship", lockVersion: asset.draft.lockVersion }), 201)
  await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${submitted.reviews[0].id}/decisions`, { decision: "APPROVE", comment: "ok" }))
  const done = await ok(owner.call("POST", `/api/assets/${asset.id}/releases`, { revisionId: submitted.revisions[0].id, versionLabel: "1.0.0" }), 201)
  return { assetId: asset.id as string, releaseId: done.releases[0].id as string }
}

const releasedSkill = async (reviewer: Person) => {
  const zip = zipSync({
    "lint-fixer/SKILL.md": text("---\nname: lint-fixer\ndescription: Fixes lint errors.\nlicense: MIT\n---\n# lint-fixer\nRun scripts/fix.sh.\n"),
    "lint-fixer/scripts/fix.sh": text("echo fix\n")
  })
  const form = new FormData()
  form.append("file", new Blob([zip as Uint8Array<ArrayBuffer>], { type: "application/zip" }), "skill.zip")
  const response = await fetch(`${world.server.url}/api/assets/skills?namespace=dev&knowledgeSpaceId=${world.spaceId}`, { method: "POST", headers: { authorization: `Bearer ${owner.token}` }, body: form })
  const asset = await response.json() as any
  expect(response.status, JSON.stringify(asset)).toBe(201)
  const submitted = await ok(owner.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "ship", lockVersion: asset.draft.lockVersion }), 201)
  await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${submitted.reviews[0].id}/decisions`, { decision: "APPROVE", comment: "ok" }))
  await ok(owner.call("POST", `/api/assets/${asset.id}/skill-releases`, { revisionId: submitted.revisions[0].id, versionLabel: "1.0.0" }), 201)
}

beforeAll(async () => {
  world = await startWorld()
  owner = await world.person("mcp-owner@example.com")
  const reviewer = await world.person("mcp-reviewer@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
  viewer = await world.person("mcp-viewer@example.com", { relation: "viewer" })
  outsider = await world.person("mcp-outsider@example.com", { relation: null })
  const source = await uploaded(knowledgeClient(world.server.url, owner.token), {
    spaceId: world.spaceId, name: "pager.md", type: "text/markdown", title: "Pager handbook",
    bytes: `# Pager handbook\n\n## Escalation\n\nWhen the ${WORD} alarm fires, page the SRE lead within five minutes.\n`
  })
  sourceId = source.id
  await eventually(() => viewer.call("GET", `/api/knowledge/search?q=${WORD}`), (r) => r.body.evidence?.length > 0, "indexed document")
  prompt = await released(reviewer, { type: "PROMPT_TEMPLATE", namespace: "ops", slug: "incident-brief", knowledgeSpaceId: world.spaceId, draft: draftOf(promptPayload(), { title: "Incident brief" }) })
  instruction = await released(reviewer, { type: "WORK_INSTRUCTION", namespace: "sre", slug: "pager", knowledgeSpaceId: world.spaceId, draft: draftOf(workInstructionPayload(), { title: "Pager rotation" }) })
  await releasedSkill(reviewer)
}, 240_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
  await world.server.dispose()
})

describe("MCP over Streamable HTTP", { timeout: 120_000 }, () => {
  it("answers 401 with WWW-Authenticate: Bearer without a valid token, on every request", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
    const anonymous = await fetch(`${world.server.url}/mcp`, { method: "POST", headers, body })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/)
    expect((await anonymous.json() as any).code).toBe("UNAUTHENTICATED")
    const forged = await fetch(`${world.server.url}/mcp`, { method: "POST", headers: { ...headers, authorization: "Bearer lore_pat_nope" }, body })
    expect(forged.status).toBe(401)
    expect(forged.headers.get("www-authenticate")).toMatch(/^Bearer/)
    await expect(connect("lore_pat_forged")).rejects.toThrow()
  })

  it("keeps a session per user: another user's session id is unknown, a one-off POST without one is answered", async () => {
    const client = await connect(viewer.token)
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!
    expect(sessionId).toMatch(UUID)
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" })
    const stolen = await fetch(`${world.server.url}/mcp`, { method: "POST", headers: { ...headers, authorization: `Bearer ${outsider.token}`, "mcp-session-id": sessionId }, body })
    expect(stolen.status).toBe(404)
    const oneOff = await fetch(`${world.server.url}/mcp`, { method: "POST", headers: { ...headers, authorization: `Bearer ${outsider.token}` }, body })
    expect(oneOff.status).toBe(200)
    expect(((await oneOff.json()) as any).result.tools).toHaveLength(7)
  })

  it("takes a browser session cookie too, with the CSRF header on POST", async () => {
    const signIn = await fetch(`${world.server.url}/api/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: viewer.token }) })
    expect(signIn.status).toBe(201)
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith("lore_session="))!.split(";")[0]!
    const { token: csrf } = (await (await fetch(`${world.server.url}/api/session/csrf`, { headers: { cookie } })).json()) as { token: string }
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", cookie }
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "knowledge_search", arguments: { query: WORD } } })
    const refused = await fetch(`${world.server.url}/mcp`, { method: "POST", headers, body })
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as any).code).toBe("CSRF_TOKEN_INVALID")
    const answered = await fetch(`${world.server.url}/mcp`, { method: "POST", headers: { ...headers, "x-csrf-token": csrf }, body })
    expect(answered.status).toBe(200)
    expect(((await answered.json()) as any).result.structuredContent.hits[0].title).toBe("Pager handbook")
  })

  it("initializes and lists the seven tools with their JSON schemas", async () => {
    const client = await connect(viewer.token)
    expect(client.getServerVersion()?.name).toBe("lore")
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {} })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(["asset_show", "assets_list", "assets_recommend", "citation_excerpt", "knowledge_search", "prompt_render", "work_instruction_read"])
    const search = tools.find((t) => t.name === "knowledge_search")!
    expect(search.inputSchema).toMatchObject({ type: "object", required: ["query"], properties: { query: { type: "string" }, knowledgeSpaceIds: { type: "array" }, limit: { type: "integer" } } })
  })

  it("searches and reads a citation's excerpt", async () => {
    const client = await connect(viewer.token)
    const found = await call(client, "knowledge_search", { query: `what to do when the ${WORD} alarm fires` })
    expect(found.isError).toBeFalsy()
    const hit = found.structuredContent.hits[0]
    expect(hit).toMatchObject({ title: "Pager handbook", citationId: expect.stringMatching(UUID), heading: "Escalation", startPage: null, endPage: null })
    expect(hit.content).toContain(WORD)
    expect(JSON.parse(found.content[0]!.text)).toEqual(found.structuredContent)
    const rest = await ok(viewer.call("GET", `/api/citations/${hit.citationId}/excerpt`))
    const excerpt = await call(client, "citation_excerpt", { citationId: hit.citationId })
    expect(excerpt.structuredContent).toEqual(rest)
    const elsewhere = await call(client, "knowledge_search", { query: WORD, knowledgeSpaceIds: ["00000000-0000-4000-8000-000000000000"] })
    expect(elsewhere.structuredContent.hits).toEqual([])
    const inSpace = await call(client, "knowledge_search", { query: WORD, knowledgeSpaceIds: [world.spaceId], limit: 1 })
    expect(inSpace.structuredContent.hits).toHaveLength(1)
  })

  it("lists, shows, recommends, renders and reads released assets", async () => {
    const client = await connect(viewer.token)
    const listed = await call(client, "assets_list", {})
    expect(listed.structuredContent.assets.map((a: any) => `${a.namespace}/${a.slug}`)).toEqual(["dev/lint-fixer", "ops/incident-brief", "sre/pager"])
    expect((await call(client, "assets_list", { type: "SKILL" })).structuredContent.assets).toHaveLength(1)
    const shown = await call(client, "asset_show", { assetId: prompt.assetId })
    expect(shown.structuredContent).toMatchObject({ assetId: prompt.assetId, type: "PROMPT_TEMPLATE", releases: [{ releaseId: prompt.releaseId, versionLabel: "1.0.0" }] })
    expect(shown.structuredContent.releases[0].payload.variables.map((v: any) => v.name)).toContain("incident_id")
    const recommended = await call(client, "assets_recommend", { task: "pager rotation handover" })
    expect(recommended.structuredContent.recommendations[0]).toMatchObject({ assetId: instruction.assetId, releaseId: instruction.releaseId })
    const rendered = await call(client, "prompt_render", { ...prompt, variables: { incident_id: "INC-7", date: "2026-02-03", severity: "SEV2" } })
    expect(rendered.structuredContent.result.userPrompt).toContain("Summarize incident INC-7")
    // Audited as over /api, by the caller, with the HTTP request's id.
    const audit = await ok(world.admin("GET", `/api/admin/audit?resourceType=asset&resourceId=${prompt.assetId}`))
    const renders = audit.items.filter((e: any) => e.action === "asset.prompt.render" && e.actorUserId === viewer.id)
    expect(renders).toHaveLength(1)
    expect(renders[0].requestId).toEqual(expect.any(String))
    const read = await call(client, "work_instruction_read", instruction)
    expect(read.structuredContent.instruction).toMatchObject({ assetId: instruction.assetId, title: "Pager rotation" })
    expect(read.structuredContent.instruction.instruction.steps).toHaveLength(2)
  })

  it("refuses with isError, structuredContent {code, detail} and the code first in the text", async () => {
    const client = await connect(viewer.token)
    const invalid = await call(client, "prompt_render", { ...prompt, variables: {} })
    expect(invalid.isError).toBe(true)
    expect(invalid.structuredContent).toMatchObject({ code: "INVALID_VARIABLES", detail: expect.any(String) })
    expect(invalid.content[0]!.text.split(":")[0]).toBe("INVALID_VARIABLES")
    const wrong = await call(client, "work_instruction_read", prompt)
    expect(wrong.structuredContent.code).toBe("WRONG_ASSET_TYPE")
    expect(wrong.content[0]!.text.startsWith("WRONG_ASSET_TYPE")).toBe(true)
    const bad = await call(client, "knowledge_search", { query: "", limit: 500 })
    expect(bad).toMatchObject({ isError: true, structuredContent: { code: "VALIDATION_FAILED" } })
    expect([...new Set(bad.structuredContent.errors.map((e: any) => e.path))].sort()).toEqual(["limit", "query"])
  })

  it("serves released prompt templates as prompts, and a withdrawn one disappears", async () => {
    const client = await connect(viewer.token)
    const { prompts } = await client.listPrompts()
    const brief = prompts.find((p) => p.name === "ops.incident-brief")!
    expect(brief.arguments?.find((a) => a.name === "incident_id")).toMatchObject({ required: true })
    expect(brief.arguments?.find((a) => a.name === "severity")?.description).toContain("SEV1, SEV2, SEV3")
    expect(brief.arguments?.find((a) => a.name === "audience_name")).toMatchObject({ required: false })
    const got = await client.getPrompt({ name: "ops.incident-brief", arguments: { incident_id: "INC-9", date: "2026-03-04", severity: "SEV3" } })
    expect(got.messages[0]!.content).toMatchObject({ type: "text", text: expect.stringContaining("Summarize incident INC-9") })
    await expect(client.getPrompt({ name: "ops.incident-brief", arguments: {} })).rejects.toThrow(/INVALID_VARIABLES/)

    // The session's GET stream hears prompts/list_changed when a release is made or withdrawn; the outsider's does not.
    let changes = 0
    client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
      changes += 1
    })
    let outsiderChanges = 0
    const bystander = await connect(outsider.token)
    bystander.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
      outsiderChanges += 1
    })
    await new Promise((resolve) => setTimeout(resolve, 500))
    const extra = await released(await world.person("mcp-reviewer2@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] }), {
      type: "PROMPT_TEMPLATE", namespace: "ops", slug: "retro", knowledgeSpaceId: world.spaceId, draft: draftOf(promptPayload(), { title: "Retro" })
    })
    await eventually(async () => changes, (n) => n >= 1, "prompts/list_changed after a release", 15_000)
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["ops.incident-brief", "ops.retro"])
    const before = changes
    await ok(owner.call("POST", `/api/assets/${extra.assetId}/withdrawal`, { releaseId: extra.releaseId, reason: "retired" }))
    await eventually(async () => changes, (n) => n > before, "prompts/list_changed after a withdrawal", 15_000)
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["ops.incident-brief"])
    expect(outsiderChanges).toBe(0)
    await expect(client.getPrompt({ name: "ops.retro", arguments: {} })).rejects.toThrow(/PROMPT_NOT_FOUND/)
  })

  it("serves documents and skill files as lore:// resources", async () => {
    const client = await connect(viewer.token)
    const { resources } = await client.listResources()
    const uris = resources.map((r) => r.uri)
    expect(uris).toContain(`lore://documents/${sourceId}`)
    expect(uris).toContain("lore://skills/dev/lint-fixer/1.0.0/SKILL.md")
    expect(uris).toContain("lore://skills/dev/lint-fixer/1.0.0/scripts/fix.sh")
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["lore://documents/{sourceId}", "lore://skills/{namespace}/{slug}/{version}/{+path}"])
    const document = await client.readResource({ uri: `lore://documents/${sourceId}` })
    expect(document.contents[0]).toMatchObject({ mimeType: "text/markdown", text: expect.stringContaining(WORD) })
    const skill = await client.readResource({ uri: "lore://skills/dev/lint-fixer/1.0.0/SKILL.md" })
    expect(skill.contents[0]).toMatchObject({ text: expect.stringContaining("name: lint-fixer") })
    const script = await client.readResource({ uri: "lore://skills/dev/lint-fixer/1.0.0/scripts/fix.sh" })
    expect(script.contents[0]).toMatchObject({ text: "echo fix\n" })
    await expect(client.readResource({ uri: "lore://skills/dev/lint-fixer/9.9.9/SKILL.md" })).rejects.toThrow(/RELEASE_NOT_FOUND/)
    await expect(client.listResources({ cursor: "not-a-cursor" })).rejects.toThrow(/INVALID_CURSOR/)
  })

  it("gives a user without access to the space nothing of it through any tool, prompt or resource", async () => {
    const client = await connect(outsider.token)
    const found = await call(client, "knowledge_search", { query: WORD })
    expect(found.structuredContent.hits).toEqual([])
    const hit = (await call(await connect(viewer.token), "knowledge_search", { query: WORD })).structuredContent.hits[0]
    expect((await call(client, "citation_excerpt", { citationId: hit.citationId })).structuredContent.code).toBe("CITATION_NOT_FOUND")
    expect((await call(client, "assets_list", {})).structuredContent.assets).toEqual([])
    expect((await call(client, "assets_recommend", { task: "pager incident" })).structuredContent.recommendations).toEqual([])
    expect((await call(client, "asset_show", { assetId: prompt.assetId })).structuredContent.code).toBe("ASSET_NOT_FOUND")
    expect((await call(client, "prompt_render", { ...prompt, variables: { incident_id: "INC-1", date: "2026-01-01", severity: "SEV1" } })).structuredContent.code).toBe("ASSET_NOT_FOUND")
    expect((await call(client, "work_instruction_read", instruction)).structuredContent.code).toBe("ASSET_NOT_FOUND")
    expect((await client.listPrompts()).prompts).toEqual([])
    await expect(client.getPrompt({ name: "ops.incident-brief", arguments: {} })).rejects.toThrow(/PROMPT_NOT_FOUND/)
    expect((await client.listResources()).resources).toEqual([])
    await expect(client.readResource({ uri: `lore://documents/${sourceId}` })).rejects.toThrow(/SOURCE_NOT_FOUND/)
    await expect(client.readResource({ uri: "lore://skills/dev/lint-fixer/1.0.0/SKILL.md" })).rejects.toThrow(/ASSET_NOT_FOUND/)
  })
})
