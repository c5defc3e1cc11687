/**
 * Measured answers (bench/assistant/README.md): the share of the judged questions whose answering passage the
 * assistant's answer cites, one-shot retrieval against the tool loop, with the LOCAL planner and answerer and
 * with a scripted loopback model that follows a fixed plan.
 *
 * Lore runs embedded in a child process; the judged questions' source documents and every k-th other document
 * of bench/quality/corpus.json (BENCH_ASSISTANT_DOCUMENTS in all, default 600) are uploaded. Each question is
 * asked once per answerer in a new conversation; an answer counts when one of its saved citations is a chunk
 * holding the answering passage (its first or last 80 characters, whitespace folded). "Shown" counts the
 * questions whose passage was among what the answerer was given (the prompt's passages or the tool outputs).
 *
 * Answerers:
 * - LOCAL one-shot: the server restarted with LORE_ASSISTANT_MAX_STEPS=2 (one planned search, then the answer).
 * - LOCAL loop: the default limits (the planner searches a second time when the first finds too little).
 * - scripted one-shot: an assistant model without tool calling, given the planned search's passages.
 * - scripted loop: the same model with tool calling: it searches once more with the question (limit 10).
 * The scripted model cites, among all the passages it was given, the three sharing the most words with the
 * question: the same choice in both modes, so the difference is what the loop found.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { lastUserText, modelCalls, type ScriptedRequest, startScriptedModel, toolResults, toolsOffered } from "../packages/server/test/support/scriptedModel"
import { table } from "./lib/load"
import { type Lore, startLore } from "./lib/search-ingest"

export const description = "assistant answers on a judged set: share of questions whose answering passage is cited, one-shot vs the tool loop (LOCAL, scripted model)"

interface Judged {
  readonly id: string
  readonly question: string
  readonly source: string
  readonly passage: string
}

const here = dirname(fileURLToPath(import.meta.url))
const corpus = JSON.parse(readFileSync(join(here, "quality", "corpus.json"), "utf8")) as { documents: ReadonlyArray<{ id: string; title: string; text: string }> }
const judged = JSON.parse(readFileSync(join(here, "assistant", "judged.json"), "utf8")) as ReadonlyArray<Judged>
const DOCUMENTS = Number(process.env.BENCH_ASSISTANT_DOCUMENTS ?? 600)
const KEY = "sk-bench-assistant"

const fold = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase()
const holds = (chunk: string, passage: string) => {
  const c = fold(chunk)
  const p = fold(passage)
  return c.includes(p.slice(0, 80)) || c.includes(p.slice(-80))
}

const STOP = new Set("a an and are as at be by did do does for from has have how in is it its of on or that the this to was were what when where which who why with".split(" "))
const words = (text: string) => new Set((text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((word) => !STOP.has(word) && word.length > 2))

/** The passages a request shows the model: numbered in the system prompt (one-shot) or in tool outputs (loop). */
const shownPassages = (request: ScriptedRequest): ReadonlyArray<{ readonly number: number; readonly text: string }> => {
  const fromTools = toolResults(request).flatMap(({ output }) => (Array.isArray(output?.hits) ? output.hits : []))
    .filter((hit: any) => typeof hit.passage === "number").map((hit: any) => ({ number: hit.passage as number, text: `${hit.title} ${hit.content}` }))
  if (fromTools.length > 0) return fromTools
  const system = request.messages.find((message) => message.role === "system")?.content ?? ""
  return [...system.matchAll(/\n\[(\d+)\] ([^\n]*)\n([\s\S]*?)(?=\n\n\[\d+\] |$)/g)].map((match) => ({ number: Number(match[1]), text: `${match[2]} ${match[3]}` }))
}

/** The fixed plan: with tools, search once with the question; then cite the three passages sharing most words with it. */
const plan = (request: ScriptedRequest) => {
  const question = lastUserText(request)
  if (toolsOffered(request) && modelCalls(request).length === 0) return { toolCalls: [{ name: "knowledge_search", arguments: JSON.stringify({ query: question, limit: 10 }) }] }
  const asked = words(question)
  const best = [...new Map(shownPassages(request).map((p) => [p.number, p])).values()]
    .map((p) => ({ number: p.number, shared: [...words(p.text)].filter((word) => asked.has(word)).length }))
    .sort((a, b) => b.shared - a.shared || a.number - b.number)
    .slice(0, 3)
  return { text: best.length === 0 ? ["Nothing relevant was found."] : [`From the passages: ${best.map((p) => `[${p.number}]`).join(" ")}.`] }
}

/** Uploads the judged questions' sources and every k-th other document until `DOCUMENTS`; waits until READY. */
const ingest = async (lore: Lore) => {
  const [space] = await lore.api<Array<{ id: string }>>("/api/knowledge-spaces/upload-targets")
  const sources = new Set(judged.map((j) => j.source))
  const others = corpus.documents.filter((d) => !sources.has(d.id))
  const step = Math.max(1, Math.floor(others.length / Math.max(1, DOCUMENTS - sources.size)))
  const chosen = [...corpus.documents.filter((d) => sources.has(d.id)), ...others.filter((_, index) => index % step === 0)].slice(0, Math.max(DOCUMENTS, sources.size))
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < chosen.length) {
      const document = chosen[next++]!
      const form = new FormData()
      form.append("file", new Blob([document.text], { type: "text/plain" }), `${document.id}.txt`)
      const query = new URLSearchParams({ knowledgeSpaceId: space!.id, classification: "INTERNAL", title: document.title })
      const response = await fetch(`${lore.child.url}/api/sources?${query}`, { method: "POST", headers: lore.headers, body: form })
      if (!response.ok) throw new Error(`upload ${document.id}: ${response.status} ${await response.text()}`)
    }
  }))
  for (;;) {
    const page = await lore.api<{ statusCounts: { ready: number; attention: number } }>("/api/sources?pageSize=1")
    if (page.statusCounts.ready + page.statusCounts.attention >= chosen.length) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  console.log(`${chosen.length} documents READY in ${((performance.now() - started) / 1000).toFixed(0)} s`)
}

interface Outcome {
  readonly cited: boolean
  readonly shown: boolean
  readonly steps: number
}

/** One chat: the answer's citations checked against the passage; what it was shown from the stream's tool outputs or the model's prompt. */
const ask = async (lore: Lore, item: Judged, modelActivationId: string | undefined, lastPrompt: () => ScriptedRequest | undefined): Promise<Outcome> => {
  const response = await fetch(`${lore.child.url}/api/assistant/chat`, {
    method: "POST", headers: { ...lore.headers, "content-type": "application/json" },
    body: JSON.stringify({ message: item.question, ...(modelActivationId ? { modelActivationId } : {}) })
  })
  const raw = await response.text()
  const chunks = raw.split("\n\n").filter((event) => event.startsWith("data: {")).map((event) => JSON.parse(event.slice(6)))
  const citations: Array<{ citationId: string }> = chunks.find((chunk) => chunk.type === "data-citations")?.data?.citations ?? []
  let cited = false
  for (const citation of citations) {
    const excerpt = await lore.api<{ excerpt: string; highlightStart?: number; highlightEnd?: number }>(`/api/citations/${citation.citationId}/excerpt`)
    const passage = excerpt.highlightStart !== undefined ? excerpt.excerpt.slice(excerpt.highlightStart, excerpt.highlightEnd) : excerpt.excerpt
    if (holds(passage, item.passage)) cited = true
  }
  const toolTexts = chunks.filter((chunk) => chunk.type === "tool-output-available").flatMap((chunk) => chunk.output?.hits ?? []).map((hit: any) => String(hit.content))
  const prompt = modelActivationId ? lastPrompt() : undefined
  const promptText = prompt ? prompt.messages.map((message) => message.content ?? "").join("\n") : ""
  const shown = toolTexts.some((text) => holds(text, item.passage)) || (promptText !== "" && holds(promptText, item.passage))
  return { cited, shown, steps: chunks.filter((chunk) => chunk.type === "start-step").length }
}

const percent = (outcomes: ReadonlyArray<Outcome>, pick: (o: Outcome) => boolean) => `${((100 * outcomes.filter(pick).length) / outcomes.length).toFixed(1)}%`

export default async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-assistant-"))
  const token = `lore_pat_bench${randomBytes(16).toString("hex")}`
  const model = await startScriptedModel({ apiKey: KEY, plan, gapMs: 0 })
  const rows: Array<Array<string>> = []
  const run = async (lore: Lore, name: string, activation: string | undefined) => {
    const outcomes: Array<Outcome> = []
    for (const item of judged) outcomes.push(await ask(lore, item, activation, () => model.requests.at(-1)))
    rows.push([name, String(outcomes.length), percent(outcomes, (o) => o.cited), percent(outcomes, (o) => o.shown), (outcomes.reduce((sum, o) => sum + o.steps, 0) / outcomes.length).toFixed(2)])
    console.log(`  ${name}: ${rows.at(-1)![2]} cited`)
  }
  try {
    const previous = process.env.LORE_ASSISTANT_MAX_STEPS
    process.env.LORE_ASSISTANT_MAX_STEPS = "2"
    let lore = await startLore(dataDir, token, undefined)
    try {
      await ingest(lore)
      await run(lore, "LOCAL one-shot (max steps 2)", undefined)
    } finally {
      await lore.child.stop()
      if (previous === undefined) delete process.env.LORE_ASSISTANT_MAX_STEPS
      else process.env.LORE_ASSISTANT_MAX_STEPS = previous
    }
    lore = await startLore(dataDir, token, undefined)
    try {
      await run(lore, "LOCAL loop", undefined)
      const gateway = await lore.call("POST", "/api/admin/ai/gateways", { gatewayKey: "scripted", displayName: "Scripted", preset: "OPENAI_COMPATIBLE", baseUrl: `${model.url}/v1`, requestTimeoutSeconds: 30 })
      await lore.call("PUT", `/api/admin/ai/gateways/${gateway.id}/credential`, { apiKey: KEY })
      const [oneShot, loop] = await lore.call("PUT", `/api/admin/ai/gateways/${gateway.id}/assistant-models`, [
        { modelId: "scripted-one-shot", displayName: "one-shot", toolCalling: false },
        { modelId: "scripted-loop", displayName: "loop", toolCalling: true }
      ])
      await run(lore, "scripted one-shot", oneShot.id)
      await run(lore, "scripted loop", loop.id)
    } finally {
      await lore.child.stop()
    }
    console.log(`\n${judged.length} judged questions (bench/assistant/judged.json)`)
    console.log(table(["answerer", "questions", "passage cited", "passage shown", "steps per answer"], rows))
  } finally {
    await model.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
