/**
 * Graph-aware retrieval against search alone (issue 15, point 6), on an evaluation set built here: people who
 * each appear in several short notes, and questions that name a person and ask for one fact in words the note
 * does not use ("Who does Alice Johnson report to?" for "Alice Johnson's manager is Bruno Silva."), so the
 * person's name is what both rankings have to go on. Each question has one relevant note.
 *
 * Through POST /api/assistant/tools/knowledge-search (the assistant's own retrieval), on embedded PGlite, LOCAL
 * extraction (compromise): for each question, whether the relevant note is among the passages and at which
 * rank, for
 *   - search alone with limit k,
 *   - search with limit k plus the graph's passages (graph retrieval on for the space: up to 3 more),
 *   - search alone with limit k + 3 (as many passages as the graph run may return, so extra passages alone
 *     are not mistaken for the graph's doing).
 * Prints Recall and MRR for each; never asserts.
 *
 * Settings (env): BENCH_GRAPH_RETRIEVAL_K=3
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { table } from "./lib/load"
import { startLore } from "./lib/search-ingest"

export const description = "graph-aware assistant retrieval vs search alone: Recall and MRR on entity questions (LOCAL extraction, embedded)"

const K = Number(process.env.BENCH_GRAPH_RETRIEVAL_K ?? 3)
/** What Retrieval adds at most from the graph (assistant/Retrieval.ts GRAPH_EXTRA_PASSAGES). */
const GRAPH_EXTRA = 3

const PEOPLE = ["Alice Johnson", "Bruno Silva", "Chen Wang", "Dana Novak", "Emeka Okafor", "Farah Haddad", "Goran Petrov", "Hana Sato", "Ivan Kowalski", "Julia Berg"]
const ORGS = ["Acme Corporation", "Globex Corporation", "Initech", "Stark Industries", "Wayne Enterprises", "Hooli"]
const CITIES = ["Paris", "Berlin", "Tokyo", "Madrid", "Oslo", "Lagos", "Toronto", "Sydney"]

/** A fact as the note states it, and the question that asks for it in other words. */
const FACTS: ReadonlyArray<{ readonly note: (p: string, q: string, o: string, c: string) => string; readonly question: (p: string) => string }> = [
  { note: (p, q) => `${p}'s manager is ${q}, who approves the weekly plan.`, question: (p) => `Who does ${p} report to?` },
  { note: (p, _q, o, c) => `${p} signed the supplier agreement with ${o} during the visit to ${c}.`, question: (p) => `Which vendor deal did ${p} close?` },
  { note: (p, q, _o, c) => `${p} presented the budget forecast to ${q} at the ${c} office.`, question: (p) => `Where did ${p} show the spending outlook?` },
  { note: (p, q) => `${p} mentors ${q} on security reviews every second Tuesday.`, question: (p) => `Whom is ${p} coaching?` },
  { note: (p, _q, o, c) => `${p} moved from ${c} to the ${o} team last spring.`, question: (p) => `Which group did ${p} transfer to?` }
]

/** Sentences every note carries, so notes are not one line each (and share common words, as real notes do). */
const FILLER = "The notes were shared with the team after the meeting. Actions are tracked in the planning sheet until the next review."

interface Note { readonly name: string; readonly text: string }
interface Question { readonly text: string; readonly note: string }

const evaluationSet = () => {
  const notes: Array<Note> = []
  const questions: Array<Question> = []
  PEOPLE.forEach((person, i) => {
    FACTS.forEach((fact, f) => {
      const other = PEOPLE[(i + f + 1) % PEOPLE.length]!
      const name = `note-${i}-${f}.txt`
      notes.push({ name, text: `Note ${i * FACTS.length + f + 1}\n\n${fact.note(person, other, ORGS[(i + f) % ORGS.length]!, CITIES[(i * 3 + f) % CITIES.length]!)} ${FILLER}\n` })
      questions.push({ text: fact.question(person), note: name })
    })
  })
  return { notes, questions }
}

export default async () => {
  const { notes, questions } = evaluationSet()
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-graph-retrieval-"))
  const token = `lore_pat_bench${randomBytes(16).toString("hex")}`
  const lore = await startLore(dataDir, token, undefined)
  const call = lore.call
  try {
    const space = await call("POST", "/api/admin/knowledge-spaces", { key: "people-notes", name: "People notes" })
    const assetOf = new Map<string, string>()
    for (const note of notes) {
      const form = new FormData()
      form.append("file", new Blob([note.text], { type: "text/plain" }), note.name)
      const response = await fetch(`${lore.child.url}/api/sources?knowledgeSpaceId=${space.id}&classification=INTERNAL&title=${note.name}`, { method: "POST", headers: lore.headers, body: form })
      if (!response.ok) throw new Error(`upload: ${response.status} ${await response.text()}`)
      assetOf.set((await response.json()).knowledgeAssetId, note.name)
    }
    for (;;) {
      const page = await call("GET", "/api/sources?pageSize=1")
      if (page.statusCounts.ready + page.statusCounts.attention >= notes.length) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const jobs = await Promise.all([...assetOf.keys()].map((asset) => call("POST", `/api/knowledge-assets/${asset}/graph-index`)))
    for (const job of jobs) {
      for (;;) {
        const current = await call("GET", `/api/knowledge-assets/graph-jobs/${job.id}`)
        if (current.status === "SUCCEEDED") break
        if (current.status === "FAILED" || current.status === "CANCELLED") throw new Error(`graph job ${job.id} ${current.status}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }

    /** Recall (the relevant note among the passages) and MRR over every question, for one retrieval setting. */
    const evaluate = async (limit: number) => {
      let found = 0
      let reciprocal = 0
      let passages = 0
      for (const question of questions) {
        const result = await call("POST", "/api/assistant/tools/knowledge-search", { query: question.text, knowledgeSpaceIds: [space.id], limit })
        const ranked: Array<string> = result.citations.map((citation: { knowledgeAssetId: string }) => assetOf.get(citation.knowledgeAssetId))
        passages += ranked.length
        const rank = ranked.indexOf(question.note)
        if (rank >= 0) {
          found++
          reciprocal += 1 / (rank + 1)
        }
      }
      return { recall: found / questions.length, mrr: reciprocal / questions.length, passages: passages / questions.length }
    }

    const searchAlone = await evaluate(K)
    const searchMore = await evaluate(K + GRAPH_EXTRA)
    await call("PUT", `/api/knowledge-spaces/${space.id}/graph/settings`, { retrievalEnabled: true })
    const withGraph = await evaluate(K)
    const row = (name: string, r: { recall: number; mrr: number; passages: number }) => [name, r.recall.toFixed(3), r.mrr.toFixed(3), r.passages.toFixed(1)]
    console.log(`${notes.length} notes about ${PEOPLE.length} people, ${questions.length} questions (one relevant note each), k = ${K}`)
    console.log(table(["retrieval", "Recall", "MRR", "passages/question"], [
      row(`search alone, limit ${K}`, searchAlone),
      row(`search, limit ${K}, + graph (<= ${GRAPH_EXTRA})`, withGraph),
      row(`search alone, limit ${K + GRAPH_EXTRA}`, searchMore)
    ]))
  } finally {
    await lore.child.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
