/**
 * Builds judged.json, the assistant bench's judged set (see README.md): for each question of
 * bench/quality/questions.json, the passage of its source document that answers it, taken as the line of the
 * document (a `Field: text` line) sharing the most stemmed words with the question, ties to the earlier line.
 * Run: npx tsx bench/assistant/build.ts (reads the committed corpus; writes bench/assistant/judged.json).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { stemmer } from "stemmer"

const here = dirname(fileURLToPath(import.meta.url))
const corpus = JSON.parse(readFileSync(join(here, "..", "quality", "corpus.json"), "utf8")) as { documents: ReadonlyArray<{ id: string; title: string; text: string }> }
const questions = JSON.parse(readFileSync(join(here, "..", "quality", "questions.json"), "utf8")) as ReadonlyArray<{ id: string; question: string; source: string }>
const byId = new Map(corpus.documents.map((document) => [document.id, document]))
const STOP = new Set("a an and are as at be by did do does for from has have how in is it its of on or that the this to was were what when where which who why with".split(" "))
const stems = (text: string) => new Set((text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((word) => !STOP.has(word)).map((word) => stemmer(word)))

const judged = questions.map((q) => {
  const document = byId.get(q.source)!
  const asked = stems(q.question)
  const lines = document.text.split("\n").filter((line) => line.trim().length > 0)
  let best = { line: lines[0]!, shared: -1 }
  for (const line of lines) {
    const words = stems(line)
    const shared = [...asked].filter((stem) => words.has(stem)).length
    if (shared > best.shared) best = { line, shared }
  }
  return { id: q.id, question: q.question, source: q.source, title: document.title, passage: best.line.trim(), sharedStems: best.shared }
})
writeFileSync(join(here, "judged.json"), `${JSON.stringify(judged, null, 1)}\n`)
console.log(`${judged.length} questions; passages sharing no word with their question: ${judged.filter((j) => j.sharedStems === 0).map((j) => j.id).join(", ") || "none"}`)
