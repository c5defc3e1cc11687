import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Issue 29, points 5 and 6 for /mcp, in the style of test/http/fuzz-parameters.test.ts: malformed JSON-RPC, wrong
 * types, huge and deeply nested arguments, unknown tools, prompts and resources, bad session ids. Every answer is a
 * 4xx or a JSON-RPC error (never a 5xx, never a hang), in the JSON-RPC error shape (problem+json before MCP starts:
 * authentication, method, size), and repeats at most 200 bytes of what was sent.
 */

let server: TestServer
let sessionId: string
beforeAll(async () => {
  server = await startTestServer()
  const opened = await send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } } })
  expect(opened.status, opened.text).toBe(200)
  sessionId = opened.headers.get("mcp-session-id")!
  expect(sessionId).toBeTruthy()
}, 120_000)
afterAll(() => server?.dispose())

/** Caller input made of this filler: an answer holding 101 of them (202 bytes) repeats more than 200 bytes of it. */
const filler = (bytes: number) => "qx".repeat(Math.ceil(bytes / 2))
const ECHO = filler(202)

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
}

const baseHeaders = () => ({ authorization: `Bearer ${server.adminToken}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" })

async function send(body: unknown, options: { headers?: Record<string, string>; method?: string; raw?: string } = {}): Promise<Answer> {
  const response = await fetch(`${server.url}/mcp`, {
    method: options.method ?? "POST",
    headers: { ...baseHeaders(), ...options.headers },
    ...((options.method ?? "POST") === "POST" ? { body: options.raw ?? JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(20_000)
  })
  const text = await response.text()
  let parsed: any
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: response.status, headers: response.headers, text, body: parsed }
}

/** The rules every answer keeps, whatever was sent. */
const expectSafe = (answer: Answer, what: string) => {
  expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBeLessThan(500)
  expect(answer.text.includes(ECHO), `${what} repeats more than 200 bytes of its input`).toBe(false)
  if (answer.status >= 400 && answer.text !== "") {
    const contentType = answer.headers.get("content-type") ?? ""
    if (contentType.startsWith("application/problem+json")) {
      expect(answer.body, what).toMatchObject({ status: answer.status, code: expect.stringMatching(/^[A-Z_]+$/) })
    } else {
      expect(answer.body, what).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number), message: expect.any(String) } })
    }
  }
}

/** A JSON-RPC answer that is an error (HTTP 4xx, or 200 carrying an error or a tool's isError result). */
const expectRefused = (answer: Answer, what: string) => {
  expectSafe(answer, what)
  const isError = (message: any) => message?.error !== undefined || message?.result?.isError === true
  const refused = answer.status >= 400 || (Array.isArray(answer.body) ? answer.body.length > 0 && answer.body.every(isError) : isError(answer.body))
  expect(refused, `${what} was accepted: ${answer.text.slice(0, 300)}`).toBe(true)
}

const call = (name: unknown, args: unknown, id: unknown = 7) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })

const nested = (depth: number, leaf: unknown = "x") => {
  let value: unknown = leaf
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value }
  return value
}

describe("/mcp under malformed and hostile input", { timeout: 180_000 }, () => {
  it("answers malformed bodies and JSON-RPC envelopes with JSON-RPC errors", async () => {
    const raws = ["", "{", "nul", "[", "\"just a string\"", "42", "null", "true", "{\"jsonrpc\":\"2.0\"", `{"a":"${filler(2_000)}`, "\u0000", "[]", "[1,2,3]", "{}"]
    for (const raw of raws) expectRefused(await send(undefined, { raw }), `raw ${JSON.stringify(raw.slice(0, 40))}`)
    const envelopes: Array<unknown> = [
      { jsonrpc: "1.0", id: 1, method: "tools/list" },
      { id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "2.0", id: 1, method: 42 },
      { jsonrpc: "2.0", id: { nested: true }, method: "tools/list" },
      { jsonrpc: "2.0", id: 1, method: filler(5_000) },
      { jsonrpc: "2.0", id: filler(5_000), method: filler(5_000) },
      { jsonrpc: "2.0", id: 1, method: "tools/call" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: "nope" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 42 } },
      { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: filler(5_000) } },
      { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "x", arguments: { [filler(3_000)]: filler(3_000) } } },
      { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: `lore://documents/${filler(5_000)}` } },
      { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: filler(5_000) } },
      { jsonrpc: "2.0", id: 1, method: "resources/list", params: { cursor: filler(5_000) } },
      Array.from({ length: 3 }, (_, index) => ({ jsonrpc: "2.0", id: index, method: filler(1_000) }))
    ]
    for (const envelope of envelopes) expectRefused(await send(envelope), `envelope ${JSON.stringify(envelope).slice(0, 80)}`)
  })

  it("refuses unknown tools and arguments of the wrong type or shape as errors, naming no more than 200 bytes of them", async () => {
    const cases: Array<[string, unknown, unknown]> = [
      ["unknown tool", filler(5_000), {}],
      ["unknown tool, short", "no_such_tool", {}],
      ["query a number", "knowledge_search", { query: 5 }],
      ["query an object", "knowledge_search", { query: { text: filler(5_000) } }],
      ["query an array", "knowledge_search", { query: [filler(5_000), filler(5_000)] }],
      ["query empty", "knowledge_search", { query: "" }],
      ["query of 20 kB", "knowledge_search", { query: filler(20_000) }],
      ["limit a string", "knowledge_search", { query: "x", limit: filler(5_000) }],
      ["limit huge", "knowledge_search", { query: "x", limit: 1e308 }],
      ["offset negative", "knowledge_search", { query: "x", offset: -1 }],
      ["space ids not uuids", "knowledge_search", { query: "x", knowledgeSpaceIds: Array.from({ length: 40 }, () => filler(1_000)) }],
      ["too many space ids", "knowledge_search", { query: "x", knowledgeSpaceIds: Array.from({ length: 500 }, () => "00000000-0000-4000-8000-000000000000") }],
      ["an unexpected key", "knowledge_search", { query: "x", [filler(5_000)]: filler(5_000) }],
      ["arguments an array", "knowledge_search", [filler(5_000)]],
      ["arguments a string", "knowledge_search", filler(5_000)],
      ["citation id not a uuid", "citation_excerpt", { citationId: filler(5_000) }],
      ["asset id not a uuid", "asset_show", { assetId: filler(5_000) }],
      ["task too long", "assets_recommend", { task: filler(5_000) }],
      ["type unknown", "assets_list", { type: filler(5_000) }],
      ["variables not an object", "prompt_render", { assetId: "00000000-0000-4000-8000-000000000000", releaseId: "00000000-0000-4000-8000-000000000000", variables: filler(5_000) }],
      ["prototype keys", "assets_list", JSON.parse(`{"__proto__":{"polluted":"${filler(500)}"},"constructor":{"prototype":{"polluted":1}}}`)]
    ]
    for (const [what, name, args] of cases) {
      const answer = await send(call(name, args))
      expectRefused(answer, what)
      if (answer.body?.result?.isError) {
        expect(answer.body.result.structuredContent, what).toMatchObject({ code: expect.stringMatching(/^[A-Z_]+$/) })
        // A refusal is short, however large the input was.
        expect(answer.text.length, what).toBeLessThan(4_000)
      }
    }
    expect(({} as any).polluted).toBeUndefined()
    // The over-long query is named by its field and its rule, not repeated.
    const long = await send(call("knowledge_search", { query: filler(200_000) }))
    expect(long.status).toBe(200)
    expect(long.body.result).toMatchObject({ isError: true, structuredContent: { code: "VALIDATION_FAILED", errors: [{ path: "query", message: expect.stringContaining("10000") }] } })
    expect(long.text.length).toBeLessThan(1_000)
  })

  it("caps the size of a message and the nesting of its arguments: an MCP error, not an echo", async () => {
    // The 619 KB knowledge_search query of the finding: refused for its size, in a few hundred bytes.
    const huge = await send(call("knowledge_search", { query: filler(619_000) }))
    expectRefused(huge, "619 KB query")
    expect(huge.text.length).toBeLessThan(2_000)
    for (const depth of [40, 1_000]) {
      const deep = await send(call("knowledge_search", { query: "x", deep: nested(depth) }))
      expectRefused(deep, `arguments nested ${depth} deep`)
    }
    // Deeper than JSON.stringify goes: written by hand.
    const deepRaw = (depth: number) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge_search","arguments":{"query":"x","deep":${"[".repeat(depth)}1${"]".repeat(depth)}}}}`
    for (const depth of [50_000, 120_000]) expectRefused(await send(undefined, { raw: deepRaw(depth) }), `arguments nested ${depth} deep`)
    expectRefused(await send(undefined, { raw: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${"{\"a\":".repeat(50_000)}1${"}".repeat(50_000)}}` }), "params nested 50,000 deep")
    const wide = await send(call("knowledge_search", { query: "x", ...Object.fromEntries(Array.from({ length: 20_000 }, (_, index) => [`k${index}`, index])) }))
    expectRefused(wide, "20,000 unexpected keys")
    expect(wide.text.length).toBeLessThan(4_000)
    const batch = await send(Array.from({ length: 2_000 }, (_, index) => ({ jsonrpc: "2.0", id: index, method: "tools/list" })))
    expectRefused(batch, "a batch of 2,000 messages")
    // The server still answers.
    expect((await send({ jsonrpc: "2.0", id: 2, method: "tools/list" })).status).toBe(200)
  })

  it("answers bad session ids, methods and headers with 4xx", async () => {
    const list = { jsonrpc: "2.0", id: 3, method: "tools/list" }
    for (const id of ["not-a-session", filler(4_000), "00000000-0000-4000-8000-000000000000", "../../etc/passwd", "%00"]) {
      expectRefused(await send(list, { headers: { "mcp-session-id": id } }), `session id ${id.slice(0, 20)}`)
      expectSafe(await send(undefined, { method: "GET", headers: { "mcp-session-id": id } }), `GET with session id ${id.slice(0, 20)}`)
      expectSafe(await send(undefined, { method: "DELETE", headers: { "mcp-session-id": id } }), `DELETE with session id ${id.slice(0, 20)}`)
    }
    expectRefused(await send(undefined, { method: "GET" }), "GET without a session")
    expectRefused(await send(undefined, { method: "DELETE" }), "DELETE without a session")
    expectRefused(await send(list, { method: "PUT" }), "PUT")
    expectRefused(await send(list, { headers: { "content-type": "text/plain" } }), "text/plain")
    expectRefused(await send(list, { headers: { accept: "text/html" } }), "accepts only HTML")
    expectRefused(await send(list, { headers: { "mcp-session-id": sessionId, "mcp-protocol-version": filler(2_000) } }), "unknown protocol version")
    // A second initialize on a session, and the session still works afterwards.
    expectSafe(await send({ jsonrpc: "2.0", id: 9, method: "initialize", params: { protocolVersion: filler(3_000), capabilities: {}, clientInfo: { name: filler(3_000), version: "1" } } }, { headers: { "mcp-session-id": sessionId } }), "initialize again")
    const still = await send(list, { headers: { "mcp-session-id": sessionId } })
    expect(still.status, still.text).toBe(200)
    expect(still.body.result.tools.length).toBeGreaterThan(3)
  })
})
