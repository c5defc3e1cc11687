/**
 * Re-embedding throughput: a Lore server on embedded PGlite (in this process) with BENCH_REEMBED_CHUNKS chunks
 * embedded by one loopback OpenAI-compatible embedding server (LORE_EMBEDDING_*), then the DOCUMENT_EMBEDDING
 * route moved to a second one: the time from the route change until search switches to the new generation, as
 * chunks per second. The providers answer at once (no model runs), so this measures Lore's side: reading the
 * chunks, the wire (base64), storing the vectors batch by batch and the switch. Prints figures; asserts nothing.
 *
 * Settings (env): BENCH_REEMBED_CHUNKS=2000 BENCH_REEMBED_DIMENSIONS=768
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startServer } from "../packages/server/src/index"
import { startEmbeddingProvider } from "../packages/server/test/support/embeddingProvider"

export const description = "re-embedding after a DOCUMENT_EMBEDDING route change: chunks/s with loopback embedding servers (PGlite)"

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const CHUNKS = setting("BENCH_REEMBED_CHUNKS", 2000)
const DIMENSIONS = setting("BENCH_REEMBED_DIMENSIONS", 768)
const SECTIONS_PER_DOCUMENT = 50
const TOKEN = `lore_pat_bench${"x".repeat(32)}`

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const section = (document: number, i: number) =>
  `## Rule ${document}.${i}\n\n` +
  Array.from({ length: 4 }, (_, s) => `Sentence ${s + 1} of rule ${i} in handbook ${document} covers topic ${(document * 31 + i * 7 + s) % 997}.`).join(" ")

export default async () => {
  const first = await startEmbeddingProvider({ dimensions: DIMENSIONS })
  const second = await startEmbeddingProvider({ dimensions: DIMENSIONS })
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-reembed-"))
  const server = await startServer({
    port: 0, dataDir, bootstrapToken: TOKEN, logLevel: "error",
    embedding: { url: first.url, model: "bench-a", dimensions: DIMENSIONS }
  })
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
    return text ? JSON.parse(text) : undefined
  }
  try {
    const space = await call("POST", "/api/admin/knowledge-spaces", { key: "bench", name: "Bench" })
    const documents = Math.ceil(CHUNKS / SECTIONS_PER_DOCUMENT)
    const ids: Array<string> = []
    for (let d = 0; d < documents; d++) {
      const text = Array.from({ length: SECTIONS_PER_DOCUMENT }, (_, i) => section(d, i)).join("\n\n")
      const form = new FormData()
      form.append("file", new Blob([text], { type: "text/markdown" }), `handbook-${d}.md`)
      const response = await fetch(`${server.url}/api/sources?knowledgeSpaceId=${space.id}`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: form })
      if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`)
      ids.push((await response.json()).id)
    }
    for (const id of ids) {
      while ((await call("GET", `/api/sources/${id}`)).status === "PROCESSING") await sleep(50)
    }
    const before = await call("GET", "/api/admin/ai/index-settings")
    const gateway = await call("POST", "/api/admin/ai/gateways", { gatewayKey: "second", displayName: "Second", preset: "OPENAI_COMPATIBLE", baseUrl: second.url })
    const started = performance.now()
    await call("PUT", "/api/admin/ai/routes/DOCUMENT_EMBEDDING", { gatewayProfileId: gateway.id, modelId: "bench-b", dimensions: DIMENSIONS, version: 0 })
    let total = 0
    for (;;) {
      const settings = await call("GET", "/api/admin/ai/index-settings")
      if (settings.reembedding) total = settings.reembedding.chunksTotal
      if (settings.generation === before.generation + 1) break
      // Not too often: on PGlite the progress query shares the one connection with the job.
      await sleep(250)
    }
    const seconds = (performance.now() - started) / 1000
    const requests = second.requests.filter((request) => request.status === 200).length
    console.log(`chunks re-embedded   ${total} (${documents} documents, ${DIMENSIONS} dimensions, base64 wire)`)
    console.log(`provider requests    ${requests} (64 chunks each)`)
    console.log(`route change -> switch  ${seconds.toFixed(2)} s`)
    console.log(`throughput           ${(total / seconds).toFixed(0)} chunks/s`)
  } finally {
    await server.stop()
    await first.close()
    await second.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
