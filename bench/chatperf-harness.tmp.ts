// TEMPORARY harness (not committed): serial chats vs searches on a persistent PostgreSQL database.
import pg from "pg"
import { salientTerms } from "../packages/server/src/ai/LocalModel"
import { documents, QUESTIONS } from "./lib/corpus"
import { percentile } from "./lib/latency"
import { ingestOverHttp, startLore, takeChunks } from "./lib/search-ingest"

const mode = process.argv[2] ?? "run"
const NAME = "lore_chatperf_harness"
const TOKEN = "lore_pat_benchchatperf0123456789abcdef0123456789"
const url = new URL("postgres://postgres@127.0.0.1:5432/test"); url.pathname = `/${NAME}`
if (mode === "setup") {
  const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" }); await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`); await admin.query(`CREATE DATABASE ${NAME}`); await admin.end()
}
const lore = await startLore("/tmp/chatperf/data", TOKEN, url.toString())
try {
  if (mode === "setup") {
    const [space] = await lore.api<Array<{ id: string }>>("/api/knowledge-spaces/visible")
    const ingested = await ingestOverHttp(lore, space!.id, await takeChunks(documents({ seed: 20240611, minPages: 1, maxPages: 3 }), 600), 4)
    console.log(ingested)
  } else {
    const questions = QUESTIONS.slice(0, 20)
    const chat = async (q: string) => {
      const started = performance.now()
      const response = await fetch(`${lore.child.url}/api/assistant/chat`, { method: "POST", headers: { ...lore.headers, "content-type": "application/json" }, body: JSON.stringify({ message: q }) })
      const reader = response.body!.getReader(); const decoder = new TextDecoder(); let text = ""; let first = NaN
      for (;;) { const { done, value } = await reader.read(); if (done) break; text += decoder.decode(value, { stream: true }); if (Number.isNaN(first) && text.includes('"type":"text-delta"')) first = performance.now() - started }
      return { first, total: performance.now() - started }
    }
    const search = async (q: string) => {
      const started = performance.now()
      const r = await fetch(`${lore.child.url}/api/knowledge/search?q=${encodeURIComponent(salientTerms(q).join(" "))}&limit=6`, { headers: lore.headers }); await r.arrayBuffer()
      return performance.now() - started
    }
    for (const q of questions) { await chat(q); await search(q) }
    const level = Number(process.argv[3] ?? 1)
    const rounds = Number(process.argv[4] ?? 3)
    const f: number[] = [], t: number[] = [], s: number[] = []
    for (let round = 0; round < rounds; round++) {
      if (level === 1) {
        for (const q of questions) { s.push(await search(q)); const c = await chat(q); f.push(c.first); t.push(c.total) }
      } else {
        const cs = await Promise.all(Array.from({ length: level }, (_, i) => chat(questions[(i + round) % 20]!)))
        f.push(...cs.map((c) => c.first)); t.push(...cs.map((c) => c.total))
        s.push(...await Promise.all(Array.from({ length: level }, (_, i) => search(questions[(i + round) % 20]!))))
      }
    }
    const st = (v: number[]) => { const x = v.filter((n) => !Number.isNaN(n)).sort((a, b) => a - b); return `p50 ${percentile(x, 0.5).toFixed(1)} p95 ${percentile(x, 0.95).toFixed(1)} n ${x.length}` }
    console.log(`level ${level}: chat first ${st(f)} | chat total ${st(t)} | search ${st(s)}`)
  }
} finally { await lore.child.stop() }
