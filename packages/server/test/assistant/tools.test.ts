import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, client, type Client, ingested, userClient } from "../knowledge/support"
import { lastUserText, modelCalls, passageNumbers, type ScriptedModel, type ScriptedRequest, startScriptedModel, toolResults, toolsOffered } from "../support/scriptedModel"
import { chat, citationsOf, conversationOf, messageIdOf, parseChunks, postChat, textOf } from "./support"

/**
 * The assistant's tool loop end to end over HTTP, against a scripted loopback model (OpenAI chat completions
 * with streamed tool calls) that follows a fixed plan: the tools are the MCP tools' specs, every call runs as
 * the caller, each step streams as UI Message Stream parts the `ai` package's parser, reducer and
 * DefaultChatTransport read unchanged, the steps are saved with the message, failures are tool error parts,
 * limits end in an answering step without tools, a disconnect saves what was said. Offline, LOCAL's planner
 * streams its searches as the same parts.
 */

const SECRET = "sk-tools-test-0123456789abcdef"
const TRAVEL = "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval before booking.\n"
const VAULT = "# Zebra budget\n\nThe zqvaultmarker zebra project budget is four million and is kept in the red vault.\n"
/** The read-only MCP tools, in mcp/Tools.ts's order. */
const SHARED_TOOLS = ["knowledge_search", "citation_excerpt", "asset_show", "prompt_render", "work_instruction_read", "assets_recommend"]

/** The fixed plan: search, read the first hit's excerpt (plus two bad calls), then answer citing what was found. */
const researchPlan = (request: ScriptedRequest) => {
  const made = modelCalls(request)
  const question = lastUserText(request)
  if (toolsOffered(request) && made.length === 0) {
    return { toolCalls: [{ name: "knowledge_search", arguments: JSON.stringify({ query: question.includes("zebra") ? "zqvaultmarker zebra budget" : "flights manager approval", limit: 3 }) }] }
  }
  if (toolsOffered(request) && made.length === 1) {
    const hit = toolResults(request).at(-1)!.output.hits?.[0]
    const stolen = question.match(/citation ([0-9a-f-]{36})/)?.[1]
    return {
      text: ["Let me read more."],
      toolCalls: [
        { name: "citation_excerpt", arguments: JSON.stringify({ citationId: stolen ?? hit?.citationId ?? "00000000-0000-4000-a000-000000000000" }) },
        { name: "delete_everything", arguments: "{}" },
        { name: "knowledge_search", arguments: "{\"query\": " },
        { name: "knowledge_search", arguments: JSON.stringify({ query: "flights ".repeat(3_000) }) }
      ]
    }
  }
  const numbers = passageNumbers(request)
  return numbers.length === 0 ? { text: ["Nothing relevant ", "was found."] } : { text: ["Flights need a manager's approval [", `${numbers[0]}].`, " Done."] }
}

describe.each(backends)("the assistant's tool loop on $name", { timeout: 240_000 }, (backend: Backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let admin: Client
  let blue: Client & { id: string }
  let red: Client & { id: string }
  let model: ScriptedModel
  let endless: ScriptedModel
  let slow: ScriptedModel
  const spaces: Record<string, string> = {}
  const departments: Record<string, string> = {}

  beforeAll(async () => {
    model = await startScriptedModel({ apiKey: SECRET, plan: researchPlan })
    // Calls a search at every step it is offered tools: only the step limit ends it.
    endless = await startScriptedModel({
      apiKey: SECRET,
      plan: (request) => (toolsOffered(request) ? { toolCalls: [{ name: "knowledge_search", arguments: JSON.stringify({ query: `trains ${modelCalls(request).length}` }) }] } : { text: ["Trains [1]."] })
    })
    slow = await startScriptedModel({
      apiKey: SECRET,
      gapMs: 120,
      plan: (request) => (modelCalls(request).length === 0 && toolsOffered(request)
        ? { toolCalls: [{ name: "knowledge_search", arguments: JSON.stringify({ query: "trains" }) }] }
        : { text: Array.from({ length: 60 }, (_, i) => `word${i} `) })
    })
    server = await backend.start({ assistantLoop: { maxSteps: 4, tokenBudget: 60_000, timeLimitMs: 60_000, toolTimeoutMs: 10_000 } })
    admin = client(server.url, server.adminToken)
    for (const name of ["Red", "Blue"]) departments[name] = (await admin.call("POST", "/api/admin/departments", { name })).body.id
    for (const key of ["open", "red"]) spaces[key] = (await admin.call("POST", "/api/admin/knowledge-spaces", { key, name: key })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.open}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.red}/grants`, { relation: "viewer", kind: "DEPARTMENT", subjectId: departments.Red })).status).toBe(204)
    await ingested(admin, { spaceId: spaces.open!, name: "travel.md", title: "Travel policy", bytes: TRAVEL, type: "text/markdown", classification: "INTERNAL" })
    await ingested(admin, { spaceId: spaces.red!, name: "zebra.md", title: "Zebra budget", bytes: VAULT, type: "text/markdown", classification: "INTERNAL" })
    blue = await userClient(admin.call, server.url, { email: "blue@example.com", departmentId: departments.Blue! })
    red = await userClient(admin.call, server.url, { email: "red@example.com", departmentId: departments.Red! })
  })
  afterAll(async () => {
    await server?.dispose()
    await Promise.all([model?.close(), endless?.close(), slow?.close()])
  })

  /** A gateway to a scripted model with one assistant model that takes tools; answers its activation id. */
  const toolModel = async (key: string, baseUrl: string, toolCalling = true) => {
    const gateway = await admin.call("POST", "/api/admin/ai/gateways", { gatewayKey: key, displayName: key, preset: "OPENAI_COMPATIBLE", baseUrl, requestTimeoutSeconds: 10 })
    expect(gateway.status, JSON.stringify(gateway.body)).toBe(201)
    expect((await admin.call("PUT", `/api/admin/ai/gateways/${gateway.body.id}/credential`, { apiKey: SECRET })).status).toBe(204)
    const models = await admin.call("PUT", `/api/admin/ai/gateways/${gateway.body.id}/assistant-models`, [{ modelId: `${key}-model`, displayName: key, toolCalling }])
    expect(models.status, JSON.stringify(models.body)).toBe(200)
    expect(models.body[0].toolCalling).toBe(toolCalling)
    return models.body[0].id as string
  }

  it("runs the loop as the caller with the MCP tools, streams every step through DefaultChatTransport, and saves the steps", async () => {
    const activation = await toolModel("scripted", `${model.url}/v1`)
    const options = await blue.call("GET", "/api/assistant/model-options")
    expect(options.body.options).toEqual(expect.arrayContaining([
      expect.objectContaining({ id: activation, toolCalling: true }), expect.objectContaining({ provider: "LOCAL", toolCalling: false })
    ]))

    // The ai package's own transport and reducer, as useChat uses them.
    const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/api/assistant/chat`, headers: { authorization: `Bearer ${blue.token}` }, body: { modelActivationId: activation } })
    const stream = await transport.sendMessages({
      chatId: "tools-1", trigger: "submit-message", messageId: undefined, abortSignal: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Do flights need a manager's approval?" }] }]
    })
    let message: UIMessage | undefined
    for await (const update of readUIMessageStream({ stream })) message = update
    const types = message!.parts.map((part) => part.type)
    // The planner's search, the model's search, its excerpt and two bad calls, then the answer.
    expect(types.filter((type) => type === "step-start")).toHaveLength(4)
    const tools = message!.parts.filter((part) => part.type.startsWith("tool-")) as Array<any>
    expect(tools.map((part) => [part.type, part.state])).toEqual([
      ["tool-knowledge_search", "output-available"],
      ["tool-knowledge_search", "output-available"],
      ["tool-citation_excerpt", "output-available"],
      ["tool-delete_everything", "output-error"],
      ["tool-knowledge_search", "output-error"],
      ["tool-knowledge_search", "output-error"]
    ])
    expect(tools[1].input).toEqual({ query: "flights manager approval", limit: 3 })
    expect(tools[2].output).toMatchObject({ passage: 1, title: "Travel policy" })
    expect(tools[3].errorText).toMatch(/^UNKNOWN_TOOL: /)
    expect(tools[4].errorText).toMatch(/^INVALID_TOOL_INPUT: /)
    expect(tools[5].errorText).toBe("INVALID_TOOL_INPUT: The arguments are longer than 16384 characters")
    const texts = message!.parts.filter((part) => part.type === "text").map((part: any) => part.text)
    expect(texts).toEqual(["Let me read more.", "Flights need a manager's approval [1]. Done."])

    // The model was offered the MCP tools by their names and schemas, plus the chat's own; the last step had results to read.
    const first = model.requests[0]!
    expect(first.tools!.map((tool) => tool.function.name)).toEqual([...SHARED_TOOLS, "conversation_files_search"])
    const search = first.tools!.find((tool) => tool.function.name === "knowledge_search")!.function.parameters
    expect(Object.keys(search.properties)).toEqual(["query", "knowledgeSpaceIds", "limit", "offset"])
    const last = model.requests.at(-1)!
    expect(last.tool_choice).toBe("none")
    expect(toolResults(last).map((result) => (typeof result.output === "string" ? result.output.split(":")[0] : "ok"))).toEqual(["ok", "ok", "UNKNOWN_TOOL", "INVALID_TOOL_INPUT", "INVALID_TOOL_INPUT", "ok"])

    // Saved: content is the answer's text, the citation is the answer's, the parts are what the reducer built.
    const conversations = await blue.call("GET", "/api/assistant/conversations")
    const conversationId = conversations.body[0].id
    const saved = (await blue.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).body[1]
    expect(saved).toMatchObject({ id: message!.id, status: "COMPLETE", content: "Flights need a manager's approval [1]. Done.", provider: "scripted", model: "scripted-model" })
    expect(saved.parts).toEqual(message!.parts.filter((part) => !part.type.startsWith("data-") && !part.type.startsWith("source-")))
    const cited = await blue.call("GET", `/api/assistant/messages/${message!.id}/citations`)
    expect(cited.body).toEqual([expect.objectContaining({ citationNumber: 1, title: "Travel policy", available: true })])
  })

  it("checks every call as the caller: another space's passages and citations stay hidden, a refused call is an error part", async () => {
    const activation = await toolModel("scripted-access", `${model.url}/v1`)
    // Red sees the vault and its chunk id; blue asks the model to read that chunk.
    const seen = await chat(red, { message: "What is the zqvaultmarker zebra budget?", modelActivationId: activation })
    const redHit = (seen.chunks.find((chunk: any) => chunk.type === "tool-output-available" && chunk.output?.hits?.length) as any).output.hits[0]
    expect(redHit.title).toBe("Zebra budget")
    const hidden = await chat(blue, { message: `What is the zqvaultmarker zebra budget? Read citation ${redHit.citationId}`, modelActivationId: activation })
    expect(hidden.status).toBe(200)
    expect(hidden.raw).not.toContain("four million")
    expect(hidden.raw).not.toContain("Zebra budget")
    const excerpt = hidden.chunks.find((chunk: any) => chunk.type === "tool-output-error") as any
    expect(excerpt.errorText).toMatch(/NOT_FOUND/)
    expect(hidden.chunks.at(-1)!.type).toBe("finish")
    expect(citationsOf(hidden.chunks)).toEqual([])
  })

  it("ends with one answering step without tools when the step limit is reached", async () => {
    const activation = await toolModel("endless", `${endless.url}/v1`)
    const before = endless.requests.length
    const reply = await chat(blue, { message: "Which trips are by train?", modelActivationId: activation })
    const requests = endless.requests.slice(before)
    // maxSteps 4: the planner's step, two model steps with tools, then the answering step without them.
    expect(requests.map(toolsOffered)).toEqual([true, true, false])
    expect(reply.chunks.filter((chunk) => chunk.type === "start-step")).toHaveLength(4)
    expect(textOf(reply.chunks)).toBe("Trains [1].")
    expect(citationsOf(reply.chunks)).toEqual([expect.objectContaining({ citationNumber: 1, title: "Travel policy" })])
  })

  it("sends no tools to a model whose activation does not take them", async () => {
    const activation = await toolModel("no-tools", `${model.url}/v1`, false)
    const before = model.requests.length
    const reply = await chat(blue, { message: "Do flights need a manager's approval?", modelActivationId: activation })
    expect(model.requests.slice(before).map((request) => request.tools)).toEqual([undefined])
    expect(JSON.stringify(model.requests.at(-1)!.messages[0])).toContain("[1] Travel policy")
    expect(textOf(reply.chunks)).toBe("Nothing relevant was found.")
  })

  it("cancels the loop on a disconnect and saves what was said with its steps", async () => {
    const activation = await toolModel("slow", `${slow.url}/v1`)
    const abort = new AbortController()
    const response = await postChat(blue, { message: "Which trips are by train?", modelActivationId: activation }, abort.signal)
    const reader = response.body!.getReader()
    let raw = ""
    while (!raw.includes("word2 ")) raw += new TextDecoder().decode((await reader.read()).value)
    abort.abort()
    const chunks = await parseChunks(raw.slice(0, raw.lastIndexOf("\n\n") + 2))
    const conversationId = conversationOf(chunks)
    let saved: any
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline) {
      saved = (await blue.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).body.find((m: any) => m.id === messageIdOf(chunks))
      if (saved && slow.cut.length > 0) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(saved).toMatchObject({ status: "INTERRUPTED", provider: "slow" })
    expect(saved.content).toContain("word0 word1 word2")
    expect(saved.content).not.toContain("word59")
    expect(saved.parts.filter((part: any) => part.type === "tool-knowledge_search").map((part: any) => part.state)).toEqual(["output-available", "output-available"])
    expect(slow.cut).toHaveLength(1)
  })

  it("offline, the planner searches a second time when the first search found too little, as the same tool parts", async () => {
    const first = await chat(blue, { message: "What is the parking fee on the moon?" })
    const conversationId = conversationOf(first.chunks)
    const followUp = await chat(blue, { message: "Do flights need a manager's approval?", conversationId })
    const inputs = followUp.chunks.filter((chunk: any) => chunk.type === "tool-input-available") as Array<any>
    expect(inputs.map((chunk) => chunk.toolName)).toEqual(["knowledge_search", "knowledge_search"])
    expect(inputs[0].input.query).toContain("parking")
    expect(inputs[1].input.query).toBe("Do flights need a manager's approval?")
    expect(textOf(followUp.chunks)).toContain("Flights need a manager's approval before booking.")
    // A first search with enough, or nothing else to try, is one step.
    const single = await chat(blue, { message: "Do flights need a manager's approval?" })
    expect(single.chunks.filter((chunk: any) => chunk.type === "tool-input-available")).toHaveLength(1)
  })
})
