import { type Classification, classificationValues, type Evidence, type SearchResult } from "@lore/sdk"
import { nonEmpty, oneOf, parseCount, resolveSpace } from "../arguments"
import { defineCommand } from "../command"
import { highlightSegments, snippet } from "../output/highlight"
import { present } from "../output/present"
import { type Block, plural, type Span, type View } from "../output/view"
import { pagesLabel } from "../views/sources"

/** Scores are BM25 or reciprocal-rank fusion values: three significant digits tell them apart. */
const formatScore = (score: number) => (score === 0 ? "0" : Math.abs(score) >= 100 ? score.toFixed(0) : score.toPrecision(3))

const evidenceBlocks = (evidence: Evidence, rank: number): ReadonlyArray<Block> => {
  const section = evidence.headingPath.length > 0 ? evidence.headingPath.join(" › ") : evidence.heading
  const pages = pagesLabel(evidence.startPage, evidence.endPage)
  const title: Array<Span> = [{ text: `${rank}. ` }, { text: evidence.title, bold: true }]
  if (section) title.push({ text: " › " }, { text: section, tone: "accent" })
  const facts = [pages, `score ${formatScore(evidence.relevanceScore)}`, evidence.classification].filter((fact) => fact !== undefined)
  title.push({ text: `  (${facts.join(", ")})`, tone: "muted" })
  const excerpt = snippet(evidence.content, evidence.highlights)
  return [
    { kind: "line", spans: title },
    { kind: "line", spans: [{ text: "   citation ", tone: "muted" }, { text: evidence.citationId, tone: "muted" }] },
    { kind: "passage", segments: highlightSegments(excerpt, evidence.highlights), indent: 3 }
  ]
}

export const searchView = (query: string, offset = 0) => (result: SearchResult): View => {
  if (result.evidence.length === 0) return [{ kind: "message", text: `No passages you can see match "${query}".` }]
  const blocks: Array<Block> = [{ kind: "line", spans: [{ text: `${plural(result.evidence.length, "result")} for "${query}" (${result.mode} search)`, tone: "muted" }] }]
  result.evidence.forEach((evidence, index) => blocks.push({ kind: "blank" }, ...evidenceBlocks(evidence, offset + index + 1)))
  if (result.nextOffset !== null) blocks.push({ kind: "blank" }, { kind: "line", spans: [{ text: `More results: add --offset ${result.nextOffset}`, tone: "muted" }] })
  return blocks
}

export default defineCommand({
  description: "search the knowledge you may read; results carry citation ids for 'lore cite'",
  helpGroup: "Knowledge",
  examples: [
    "lore search \"how many vacation days do I get?\"",
    "lore search \"per diem Lisbon\" --space general --limit 5",
    "lore search \"per diem Lisbon\" --limit 5 --offset 5",
    "lore --json search \"expense policy\" | jq -r '.evidence[0].citationId'"
  ],
  configure: (command) =>
    command
      .argument("<query>", "a question or keywords (quote it)")
      .option("--space <key|id>", "only this knowledge space")
      .option("--classification <level>", `only passages of this classification: ${classificationValues.join(", ")}`, oneOf(classificationValues))
      .option("--limit <n>", "at most this many results (1-100, default: the server's)", parseCount(1, 100))
      .option("--offset <n>", "skip this many of the best results (the next page; results stop at rank 500)", parseCount(0, 499)),
  run: async (runtime, command) => {
    const [query] = command.processedArgs as [string]
    const q = nonEmpty(query, "the query")
    const flags = command.opts<{ space?: string; classification?: Classification; limit?: number; offset?: number }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Searching",
      run: async () => {
        const space = flags.space ? await resolveSpace(lore, flags.space, "read") : undefined
        return lore.knowledge.search({ q, knowledgeSpaceId: space?.id, classification: flags.classification, limit: flags.limit, offset: flags.offset })
      },
      view: searchView(q, flags.offset)
    })
  }
})
