import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { SqlClient } from "@effect/sql"
import { Chunk, type Context, Effect, Exit, Layer, Logger, LogLevel, Option, Redacted, Scope, Stream } from "effect"
import { EmbeddingSettings } from "../../src/ai/EmbeddingSettings"
import { Gateways } from "../../src/ai/Gateways"
import { Models } from "../../src/ai/Models"
import { Routes } from "../../src/ai/Routes"
import { appLayer } from "../../src/App"
import { type LoreSettings, Settings } from "../../src/Config"
import { type Principal, systemActor } from "../../src/domain/Principal"
import { createTestDatabase, type TestDatabase } from "../jobs/support"
import { newBootstrapToken } from "../support/server"
import { http } from "../support/http"
import { HttpServer } from "@effect/platform"
import { serverUrl } from "../../src/http/Http"
import { type FakeChat, startFakeChat } from "../support/chatProviders"

const SECRET = "sk-model-layer-5ecret-0123456789abcdef"
const LOCAL_ID = "00000000-0000-4000-a000-00000000000a"

/** Everything written to the console or stdout/stderr, to look for the secret in. */
const captured: Array<string> = []
const capture = () => {
  const keep = (...args: Array<unknown>) => void captured.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg) ?? String(arg))).join(" "))
  for (const method of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, method).mockImplementation(keep)
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream)
    vi.spyOn(stream, "write").mockImplementation(((chunk: unknown, ...rest: Array<unknown>) => {
      captured.push(String(chunk))
      return (original as (...args: Array<unknown>) => boolean)(chunk, ...rest)
    }) as typeof stream.write)
  }
}

let database: TestDatabase
let scope: Scope.CloseableScope
let context: Context.Context<Models | Routes | Gateways | SqlClient.SqlClient>
let chat: FakeChat
let actor: Principal
let adminToken: string
let url: string
/** Runs on the app's services with the server's logger (JSON, debug), as a request handler would. */
const inApp = <A, E>(effect: Effect.Effect<A, E, Models | Routes | Gateways | SqlClient.SqlClient>) =>
  effect.pipe(Effect.provide(context), Effect.provide(Logger.json), Logger.withMinimumLogLevel(LogLevel.Debug))
const run = <A, E>(effect: Effect.Effect<A, E, Models | Routes | Gateways | SqlClient.SqlClient>) => Effect.runPromise(inApp(effect))
const runExit = <A, E>(effect: Effect.Effect<A, E, Models | Routes | Gateways | SqlClient.SqlClient>) => Effect.runPromiseExit(inApp(effect))

beforeAll(async () => {
  capture()
  chat = await startFakeChat({ apiKey: SECRET, slowMs: 3_000, gapMs: 250 })
  database = await createTestDatabase()
  adminToken = newBootstrapToken()
  const settings: LoreSettings = { ...database.settings, port: 0, bootstrapToken: Option.some(Redacted.make(adminToken)), logLevel: "debug" }
  scope = Effect.runSync(Scope.make())
  context = await Effect.runPromise(Layer.buildWithScope(appLayer(Layer.merge(Layer.succeed(Settings, settings), EmbeddingSettings.layer(undefined))), scope)) as any
  const [organization] = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string }>`SELECT id FROM organizations LIMIT 1`))
  actor = systemActor(organization!.id, "model layer test")
  url = Effect.runSync(Effect.provide(serverUrl, context as unknown as Context.Context<HttpServer.HttpServer>))
}, 180_000)
afterAll(async () => {
  if (scope) await Effect.runPromise(Scope.close(scope, Exit.void))
  await database?.dispose()
  await chat?.close()
  vi.restoreAllMocks()
})

/** A gateway with the secret as its key, and the workload routed to it (the route created or changed). */
const gateway = (key: string, preset: "OPENAI_COMPATIBLE" | "ANTHROPIC" | "AZURE_OPENAI", baseUrl: string, requestTimeoutSeconds = 5) =>
  run(Effect.gen(function* () {
    const gateways = yield* Gateways
    const created = yield* gateways.create(actor, { gatewayKey: key, displayName: key, preset, baseUrl, requestTimeoutSeconds })
    yield* gateways.setCredential(actor, created.id, SECRET)
    return created
  }))

const route = (workload: "ASSISTANT_CHAT" | "PROMPT_EXECUTION" | "KEYWORD_PLANNING", gatewayProfileId: string, modelId: string) =>
  run(Effect.gen(function* () {
    const routes = yield* Routes
    const current = (yield* routes.list(actor)).find((candidate) => candidate.workload === workload)!
    return yield* routes.set(actor, workload, { gatewayProfileId, modelId, version: current.version })
  }))

const question = { messages: [{ role: "user" as const, content: "What is the weather?" }] }
const tools = [{ name: "weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } } }]

describe("LOCAL, the default for every chat-like workload", () => {
  const passages = [
    { id: "p1", title: "Travel policy", text: "Employees book trains for trips under 500 km. Flights need a manager's approval." },
    { id: "p2", title: "Holidays", text: "The office closes between Christmas and New Year." }
  ]

  it("answers from the passages, quoting and citing them, and says which provider answered", async () => {
    const answer = await run(Effect.flatMap(Models, (models) => models.answer(actor, "ASSISTANT_CHAT", "Do flights need approval?", passages)))
    expect(answer.provider).toMatchObject({ gatewayId: LOCAL_ID, gatewayKey: "local", modelId: "lore-extractive", protocol: "LOCAL", source: "DEFAULT" })
    expect(answer.text).toContain("\"Flights need a manager's approval.\" [1]")
    expect(answer.text).not.toMatch(/Sources/)
    expect(answer.text).not.toContain("Christmas")
    expect(answer.citations).toEqual([{ index: 1, passageId: "p1", title: "Travel policy" }])
  })

  it("streams LOCAL's answer as paced text chunks and a finish, whatever tools are offered", async () => {
    const chunks = await run(Effect.gen(function* () {
      const { chunks } = yield* (yield* Models).stream(actor, "ASSISTANT_CHAT", { messages: [{ role: "user", content: "Which trips do employees book trains for?" }], tools }, passages)
      return Chunk.toArray(yield* Stream.runCollect(chunks))
    }))
    // Paced in word-aligned pieces, so that a client hanging up interrupts LOCAL mid-answer as it would a gateway.
    expect(new Set(chunks.slice(0, -1).map((chunk) => chunk._tag))).toEqual(new Set(["text"]))
    expect(chunks.at(-1)?._tag).toBe("finish")
    const text = chunks.flatMap((chunk) => chunk._tag === "text" ? [chunk.text] : []).join("")
    expect(text).toContain("\"Employees book trains for trips under 500 km.\" [1]")
  })

  it("says plainly when nothing relevant was found", async () => {
    const answer = await run(Effect.flatMap(Models, (models) => models.answer(actor, "ASSISTANT_CHAT", "What is the parking fee?", passages)))
    expect(answer.text).toMatch(/nothing relevant/)
    expect(answer.citations).toEqual([])
  })

  it("plans keywords deterministically: the question's salient terms", async () => {
    const plan = await run(Effect.flatMap(Models, (models) => models.planKeywords(actor, "What is the travel policy for flights to Berlin?")))
    expect(plan.keywords).toEqual(["travel", "policy", "flights", "berlin"])
    expect(plan.provider.gatewayKey).toBe("local")
  })
})

describe("OpenAI chat completions", () => {
  it("answers whole, with tool calls and structured output, and records usage", async () => {
    const openai = await gateway("fake-openai", "OPENAI_COMPATIBLE", `${chat.url}/v1`)
    await route("PROMPT_EXECUTION", openai.id, "gpt-test")
    const answer = await run(Effect.flatMap(Models, (models) => models.generate(actor, "PROMPT_EXECUTION", question)))
    expect(answer).toMatchObject({ text: "Hello from the fake model", usage: { inputTokens: 11, outputTokens: 7 }, provider: { gatewayKey: "fake-openai", modelId: "gpt-test", source: "ADMIN" } })
    const called = await run(Effect.flatMap(Models, (models) => models.generate(actor, "PROMPT_EXECUTION", { ...question, tools })))
    expect(called.toolCalls).toEqual([{ id: "call_1", name: "weather", arguments: "{\"city\":\"Paris\"}" }])

    await route("KEYWORD_PLANNING", openai.id, "gpt-test")
    const plan = await run(Effect.flatMap(Models, (models) => models.planKeywords(actor, "travel policy")))
    expect(plan).toMatchObject({ keywords: ["alpha", "beta"], provider: { gatewayKey: "fake-openai" } })
    expect(chat.requests.at(-1)!.body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "keyword_plan" } })
  })

  it("streams chunk by chunk, assembles streamed tool-call arguments by index, usage from the last chunk", async () => {
    const openai = await gateway("fake-stream", "OPENAI_COMPATIBLE", `${chat.url}/v1`)
    await route("ASSISTANT_CHAT", openai.id, "gpt-test")
    const arrivals: Array<{ at: number; chunk: any }> = []
    const { provider } = await run(Effect.gen(function* () {
      const { provider, chunks } = yield* (yield* Models).stream(actor, "ASSISTANT_CHAT", question)
      yield* Stream.runForEach(chunks, (chunk) => Effect.sync(() => arrivals.push({ at: Date.now(), chunk })))
      return { provider }
    }))
    expect(provider.gatewayKey).toBe("fake-stream")
    const texts = arrivals.filter(({ chunk }) => chunk._tag === "text")
    expect(texts.map(({ chunk }) => chunk.text)).toEqual(["Hel", "lo ", "there"])
    // The server sends them 250 ms apart: they reach the caller as they come, not all at the end.
    expect(texts[2]!.at - texts[0]!.at).toBeGreaterThanOrEqual(400)
    expect(arrivals.at(-1)!.chunk).toEqual({ _tag: "finish", finishReason: "stop", usage: { inputTokens: 5, outputTokens: 3 } })

    const calls = await run(Effect.gen(function* () {
      const { chunks } = yield* (yield* Models).stream(actor, "ASSISTANT_CHAT", { ...question, tools })
      return Chunk.toArray(yield* Stream.runCollect(chunks))
    }))
    expect(calls.filter((chunk) => chunk._tag === "toolCall")).toEqual([
      { _tag: "toolCall", call: { id: "call_a", name: "weather", arguments: "{\"city\":\"Paris\"}" } },
      { _tag: "toolCall", call: { id: "call_b", name: "time", arguments: "{\"zone\":\"UTC\"}" } }
    ])
  })

  it("gives TIMEOUT within requestTimeoutSeconds when no first byte comes, or no next chunk", async () => {
    const slow = await gateway("fake-slow", "OPENAI_COMPATIBLE", `${chat.url}/slow/v1`, 1)
    await route("PROMPT_EXECUTION", slow.id, "gpt-test")
    const started = Date.now()
    const exit = await runExit(Effect.flatMap(Models, (models) => models.generate(actor, "PROMPT_EXECUTION", question)))
    expect(Date.now() - started).toBeLessThan(2_500)
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("TIMEOUT")

    const stall = await gateway("fake-stall", "OPENAI_COMPATIBLE", `${chat.url}/stall/v1`, 1)
    await route("PROMPT_EXECUTION", stall.id, "gpt-test")
    const received: Array<string> = []
    const streamed = await runExit(Effect.gen(function* () {
      const { chunks } = yield* (yield* Models).stream(actor, "PROMPT_EXECUTION", question)
      yield* Stream.runForEach(chunks, (chunk) => Effect.sync(() => received.push(chunk._tag === "text" ? chunk.text : chunk._tag)))
    }))
    expect(received).toEqual(["Hel"])
    // A stream that has reached the caller is never sent again: one request, not a retry after the stall.
    expect(chat.requests.filter((request) => request.path.startsWith("/stall/"))).toHaveLength(1)
    expect(Exit.isFailure(streamed) && JSON.stringify(streamed.cause)).toContain("TIMEOUT")
  })

  it("retries a 429 after its Retry-After", async () => {
    const limited = await gateway("fake-limited", "OPENAI_COMPATIBLE", `${chat.url}/limited/v1`)
    await route("PROMPT_EXECUTION", limited.id, "gpt-test")
    const answer = await run(Effect.flatMap(Models, (models) => models.generate(actor, "PROMPT_EXECUTION", question)))
    expect(answer.text).toBe("Hello from the fake model")
    const attempts = chat.requests.filter((request) => request.path.startsWith("/limited/"))
    expect(attempts).toHaveLength(2)
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(950)
  })
})

describe("tool calls through the provider libraries", () => {
  it("streams each tool call's start and argument deltas before the whole call, and sends the tools as functions", async () => {
    const openai = await gateway("fake-tool-deltas", "OPENAI_COMPATIBLE", `${chat.url}/v1`)
    await route("PROMPT_EXECUTION", openai.id, "gpt-test")
    const chunks = await run(Effect.gen(function* () {
      const { chunks } = yield* (yield* Models).stream(actor, "PROMPT_EXECUTION", { ...question, tools })
      return Chunk.toArray(yield* Stream.runCollect(chunks))
    }))
    const starts = chunks.filter((chunk) => chunk._tag === "toolInputStart")
    expect(starts).toEqual([{ _tag: "toolInputStart", id: "call_a", name: "weather" }, { _tag: "toolInputStart", id: "call_b", name: "time" }])
    const deltas = (id: string) => chunks.flatMap((chunk) => (chunk._tag === "toolInputDelta" && chunk.id === id ? [chunk.delta] : [])).join("")
    expect(JSON.parse(deltas("call_a"))).toEqual({ city: "Paris" })
    expect(JSON.parse(deltas("call_b"))).toEqual({ zone: "UTC" })
    const order = chunks.map((chunk) => (chunk._tag === "toolCall" ? `call:${chunk.call.id}` : chunk._tag === "toolInputStart" ? `start:${chunk.id}` : chunk._tag))
    expect(order.indexOf("start:call_a")).toBeLessThan(order.indexOf("call:call_a"))
    expect(chunks.at(-1)).toMatchObject({ _tag: "finish", finishReason: "tool_calls" })
    expect(chat.requests.at(-1)!.body.tools).toEqual([{ type: "function", function: { name: "weather", description: "The weather in a city", parameters: tools[0]!.parameters } }])
  })

  it("sends a loop's earlier calls and their results back in each protocol's shape", async () => {
    const followUp = {
      messages: [
        { role: "system" as const, content: "Use the tools." },
        { role: "user" as const, content: "What is the weather?" },
        { role: "assistant" as const, content: "", toolCalls: [{ id: "call_1", name: "weather", arguments: "{\"city\":\"Paris\"}" }] },
        { role: "tool" as const, toolCallId: "call_1", content: "Sunny, 21 degrees" },
        { role: "assistant" as const, content: "", toolCalls: [{ id: "call_2", name: "weather", arguments: "{\"city\":\"Oslo\"}" }] },
        { role: "tool" as const, toolCallId: "call_2", content: "Refused: not a city you may see", isError: true }
      ],
      tools,
      toolChoice: "none" as const
    }
    const openai = await gateway("fake-tool-loop", "OPENAI_COMPATIBLE", `${chat.url}/v1`)
    await route("PROMPT_EXECUTION", openai.id, "gpt-test")
    await run(Effect.flatMap(Models, (models) => models.generate(actor, "PROMPT_EXECUTION", followUp)))
    const sent = chat.requests.at(-1)!.body
    expect(sent.tool_choice).toBe("none")
    expect(sent.messages[0]).toEqual({ role: "system", content: "Use the tools." })
    expect(sent.messages[2]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: "{\"city\":\"Paris\"}" } }] })
    expect(sent.messages[3]).toEqual({ role: "tool", tool_call_id: "call_1", content: "Sunny, 21 degrees" })
    expect(sent.messages[5]).toMatchObject({ role: "tool", tool_call_id: "call_2", content: "Refused: not a city you may see" })

    const claude = await gateway("fake-claude-loop", "ANTHROPIC", `${chat.url}/anthropic/v1`)
    await route("PROMPT_EXECUTION", claude.id, "claude-test-1")
    const answer = await run(Effect.flatMap(Models, (models) => models.generate(actor, "PROMPT_EXECUTION", { ...followUp, toolChoice: "auto" as const })))
    expect(answer.text).toBe("Hello from Claude")
    const toClaude = chat.requests.at(-1)!.body
    expect(toClaude.system).toEqual([{ type: "text", text: "Use the tools." }])
    expect(toClaude.tools).toEqual([expect.objectContaining({ name: "weather", input_schema: expect.objectContaining({ properties: { city: { type: "string" } } }) })])
    expect(toClaude.messages[1]).toMatchObject({ role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "weather", input: { city: "Paris" } }] })
    expect(toClaude.messages[2]).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "Sunny, 21 degrees" }] })
    expect(toClaude.messages[4].content[0]).toMatchObject({ type: "tool_result", tool_use_id: "call_2", is_error: true })
  })
})

describe("Azure OpenAI", () => {
  it("sends the key as api-key (redacted in the call log like authorization)", async () => {
    const azure = await gateway("fake-azure", "AZURE_OPENAI", `${chat.url}/openai/v1?api-version=preview`)
    await route("PROMPT_EXECUTION", azure.id, "gpt-azure")
    const answer = await run(Effect.flatMap(Models, (models) => models.generate(actor, "PROMPT_EXECUTION", question)))
    expect(answer.provider).toMatchObject({ gatewayKey: "fake-azure", protocol: "AZURE_OPENAI_COMPATIBLE" })
    const sent = chat.requests.at(-1)!
    expect(sent.path).toBe("/openai/v1/chat/completions")
    // The base URL's query (Azure's api-version) stays on the request.
    expect(sent.query).toBe("api-version=preview")
    expect(sent.headers["api-key"]).toBe(SECRET)
    expect(sent.headers.authorization).toBeUndefined()
    expect(captured.join("\n")).toContain("\"api-key\":\"[redacted]\"")
  })
})

describe("Anthropic messages", () => {
  it("answers whole and streamed, with usage", async () => {
    const claude = await gateway("fake-claude", "ANTHROPIC", `${chat.url}/anthropic/v1`)
    await route("PROMPT_EXECUTION", claude.id, "claude-test-1")
    const answer = await run(Effect.flatMap(Models, (models) => models.generate(actor, "PROMPT_EXECUTION", question)))
    expect(answer).toMatchObject({ text: "Hello from Claude", usage: { inputTokens: 13, outputTokens: 4 }, provider: { gatewayKey: "fake-claude", protocol: "ANTHROPIC_COMPATIBLE" } })
    const chunks = await run(Effect.gen(function* () {
      const { chunks } = yield* (yield* Models).stream(actor, "PROMPT_EXECUTION", question)
      return Chunk.toArray(yield* Stream.runCollect(chunks))
    }))
    expect(chunks).toEqual([
      { _tag: "text", text: "Hi " }, { _tag: "text", text: "Claude" },
      { _tag: "finish", finishReason: "end_turn", usage: { inputTokens: 9, outputTokens: 6 } }
    ])
    expect(chat.requests.at(-1)!.headers["x-api-key"]).toBe(SECRET)

    // Reasoning effort becomes a thinking budget, added to max_tokens; on chat completions it is reasoning_effort.
    const listed = await run(Effect.flatMap(Routes, (routes) => routes.list(actor)))
    await run(Effect.flatMap(Routes, (routes) => routes.set(actor, "PROMPT_EXECUTION", {
      gatewayProfileId: claude.id, modelId: "claude-test-1", providerReasoningEffort: "MEDIUM", version: listed.find((route) => route.workload === "PROMPT_EXECUTION")!.version
    })))
    await run(Effect.flatMap(Models, (models) => models.generate(actor, "PROMPT_EXECUTION", question)))
    expect(chat.requests.at(-1)!.body).toMatchObject({ max_tokens: 4096 + 8192, thinking: { type: "enabled", budget_tokens: 8192 } })
  })
})

describe("routes resolved on each call", () => {
  it("a route change applies to the next call; a disabled gateway falls back to LOCAL and says so", async () => {
    const first = await gateway("route-a", "OPENAI_COMPATIBLE", `${chat.url}/v1`)
    const second = await gateway("route-b", "ANTHROPIC", `${chat.url}/anthropic/v1`)
    await route("ASSISTANT_CHAT", first.id, "gpt-test")
    const before = await run(Effect.flatMap(Models, (models) => models.generate(actor, "ASSISTANT_CHAT", question)))
    expect(before.provider.gatewayKey).toBe("route-a")
    await route("ASSISTANT_CHAT", second.id, "claude-test-1")
    const after = await run(Effect.flatMap(Models, (models) => models.generate(actor, "ASSISTANT_CHAT", question)))
    expect(after).toMatchObject({ text: "Hello from Claude", provider: { gatewayKey: "route-b" } })

    await run(Effect.flatMap(Gateways, (gateways) => gateways.update(actor, second.id, { enabled: false, version: second.version })))
    const fallen = await run(Effect.flatMap(Models, (models) => models.generate(actor, "ASSISTANT_CHAT", question)))
    expect(fallen.provider).toMatchObject({ gatewayKey: "local", modelId: "lore-extractive", source: "ADMIN" })
    expect(fallen.provider.fallbackReason).toContain("route-b is disabled")
  })
})

describe("usage and secrets", () => {
  it("records every call with tokens, duration, workload, gateway and model", async () => {
    const usage = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ workload: string; gatewayKey: string; modelId: string; inputTokens: number; outputTokens: number; outcome: string }>`
      SELECT workload, gateway_key, model_id, input_tokens, output_tokens, outcome FROM ai_usage ORDER BY id`))
    expect(usage).toContainEqual({ workload: "PROMPT_EXECUTION", gatewayKey: "fake-openai", modelId: "gpt-test", inputTokens: 11, outputTokens: 7, outcome: "OK" })
    expect(usage).toContainEqual({ workload: "ASSISTANT_CHAT", gatewayKey: "fake-stream", modelId: "gpt-test", inputTokens: 5, outputTokens: 3, outcome: "OK" })
    expect(usage).toContainEqual({ workload: "PROMPT_EXECUTION", gatewayKey: "fake-claude", modelId: "claude-test-1", inputTokens: 9, outputTokens: 6, outcome: "OK" })
    expect(usage).toContainEqual({ workload: "PROMPT_EXECUTION", gatewayKey: "fake-slow", modelId: "gpt-test", inputTokens: 0, outputTokens: 0, outcome: "FAILED" })
    expect(usage).toContainEqual({ workload: "KEYWORD_PLANNING", gatewayKey: "local", modelId: "lore-keywords", inputTokens: 0, outputTokens: 0, outcome: "OK" })
  })

  it("GET /api/admin/ai/usage sums the calls by day, workload, gateway and model", async () => {
    const admin = http(url, adminToken)
    const stored = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ calls: number; inputTokens: number; outputTokens: number }>`
      SELECT count(*)::int AS calls, sum(input_tokens)::int AS input_tokens, sum(output_tokens)::int AS output_tokens FROM ai_usage`))
    const usage = await admin("GET", "/api/admin/ai/usage")
    expect(usage.status, JSON.stringify(usage.body)).toBe(200)
    expect(usage.body.totals).toMatchObject(stored[0]!)
    expect(usage.body.totals.calls).toBeGreaterThan(10)
    expect(usage.body.byDay).toEqual([expect.objectContaining({ day: new Date().toISOString().slice(0, 10), calls: stored[0]!.calls })])
    expect(usage.body.byModel).toContainEqual(expect.objectContaining({ gatewayKey: "fake-claude", modelId: "claude-test-1", inputTokens: 13 + 9 + 13 }))
    expect(usage.body.byGateway).toContainEqual(expect.objectContaining({ gatewayKey: "fake-slow", calls: 1, failedCalls: 1, inputTokens: 0 }))
    const workloads = usage.body.byWorkload.map((row: any) => row.workload)
    expect(workloads).toEqual([...workloads].sort())
    expect(workloads).toEqual(expect.arrayContaining(["ASSISTANT_CHAT", "KEYWORD_PLANNING", "PROMPT_EXECUTION"]))
    expect(usage.body.byWorkload.reduce((sum: number, row: any) => sum + row.outputTokens, 0)).toBe(stored[0]!.outputTokens)

    const future = await admin("GET", `/api/admin/ai/usage?since=${new Date(Date.now() + 86_400_000).toISOString()}&until=${new Date(Date.now() + 2 * 86_400_000).toISOString()}`)
    expect(future.body.totals.calls).toBe(0)
    expect(future.body.byDay).toEqual([])
    expect((await admin("GET", "/api/admin/ai/usage?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z")).body.code).toBe("INVALID_USAGE_PERIOD")
    expect((await admin("GET", "/api/admin/ai/usage?since=yesterday")).status).toBe(400)
    expect((await http(url)("GET", "/api/admin/ai/usage")).status).toBe(401)
  })

  it("never logs the credential; the call log shows its headers redacted", () => {
    const logs = captured.join("\n")
    expect(logs).toContain("ai model call")
    expect(logs).toContain("[redacted]")
    expect(logs).not.toContain(SECRET)
  })
})
