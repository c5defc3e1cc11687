/**
 * The MCP search tool beside the REST search on the same data: Lore in a child process (embedded PGlite, as
 * bench/search.ts runs it), a synthetic corpus uploaded through POST /api/sources, then every question of
 * bench/lib/corpus.ts as GET /api/knowledge/search and as a `knowledge_search` tools/call over Streamable HTTP
 * (the MCP SDK's own Client, one session; and one-off stateless POSTs without a session, sent with fetch, beside the
 * REST call sent with fetch too). Sequential passes,
 * the same questions in the same order. Prints p50/p95 and the ratio to REST; never asserts on timing.
 *
 * Settings (env): BENCH_MCP_CHUNKS=2000  BENCH_MCP_ROUNDS=2  BENCH_MCP_MAX_SECONDS=15 (time cap of each timed run)
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { documents, QUESTIONS } from "./lib/corpus"
import { httpGetter, type Latency, measureLatency } from "./lib/latency"
import { table } from "./lib/load"
import { ingestOverHttp, startLore, takeChunks } from "./lib/search-ingest"

export const description = "knowledge_search over MCP (Streamable HTTP, session and one-off) beside GET /api/knowledge/search: p50/p95 and ratio"

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const settings = { chunks: number("BENCH_MCP_CHUNKS", 2000), rounds: number("BENCH_MCP_ROUNDS", 2), maxSeconds: number("BENCH_MCP_MAX_SECONDS", 15) }

export default async () => {
  const token = `lore_pat_bench${randomBytes(24).toString("base64url")}`
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-mcp-"))
  const lore = await startLore(dataDir, token, undefined)
  const http = httpGetter(1)
  let client: Client | undefined
  try {
    const [space] = await lore.api<Array<{ id: string }>>("/api/knowledge-spaces/upload-targets")
    const docs = await takeChunks(documents({ seed: 20240611 })[Symbol.iterator](), settings.chunks)
    const ingested = await ingestOverHttp(lore, space!.id, docs, 4)
    console.log(`  corpus: ${ingested.documents} documents, ${ingested.chunks} chunks (uploaded in ${ingested.seconds.toFixed(1)} s)`)
    const options = { rounds: settings.rounds, concurrency: 1, maxSeconds: settings.maxSeconds }

    const rest = await measureLatency(QUESTIONS.map((q) => async () => {
      const response = await http.get(`${lore.child.url}/api/knowledge/search?q=${encodeURIComponent(q)}&limit=10`, lore.headers)
      return response.status === 200
    }), options)

    // The same REST call through fetch, the client the one-off MCP POSTs use: what the client alone adds.
    const restFetch = await measureLatency(QUESTIONS.map((q) => async () => {
      const response = await fetch(`${lore.child.url}/api/knowledge/search?q=${encodeURIComponent(q)}&limit=10`, { headers: lore.headers })
      await response.arrayBuffer()
      return response.status === 200
    }), options)

    client = new Client({ name: "lore-bench", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${lore.child.url}/mcp`), { requestInit: { headers: lore.headers } }))
    const session = await measureLatency(QUESTIONS.map((q) => async () => {
      const result = (await client!.callTool({ name: "knowledge_search", arguments: { query: q, limit: 10 } })) as { isError?: boolean; structuredContent?: { hits?: unknown[] } }
      return !result.isError && Array.isArray(result.structuredContent?.hits)
    }), options)

    let id = 0
    const oneOff = await measureLatency(QUESTIONS.map((q) => async () => {
      const response = await fetch(`${lore.child.url}/mcp`, {
        method: "POST",
        headers: { ...lore.headers, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "knowledge_search", arguments: { query: q, limit: 10 } } })
      })
      const body = (await response.json()) as { result?: { isError?: boolean } }
      return response.status === 200 && body.result !== undefined && !body.result.isError
    }), options)

    const row = (label: string, latency: Latency) => [
      label, String(latency.count), latency.p50Ms.toFixed(1), latency.p95Ms.toFixed(1),
      (latency.p50Ms / rest.p50Ms).toFixed(2) + "x", (latency.p95Ms / rest.p95Ms).toFixed(2) + "x", String(latency.failures)
    ]
    console.log(table(["search over", "calls", "p50 ms", "p95 ms", "p50 vs REST", "p95 vs REST", "failures"], [
      row("GET /api/knowledge/search", rest),
      row("GET /api/knowledge/search (fetch)", restFetch),
      row("MCP tools/call (session)", session),
      row("MCP tools/call (one-off POST)", oneOff)
    ]))
    console.log(`  machine: ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(2)).join(" ")}; sequential, ${settings.rounds} timed passes over ${QUESTIONS.length} questions (cap ${settings.maxSeconds} s)`)
  } finally {
    await client?.close().catch(() => undefined)
    http.close()
    await lore.child.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
