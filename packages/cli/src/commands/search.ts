import type { Classification, Evidence, SearchResult } from "@lore/sdk"
import type { Command } from "commander"
import { type CommandModule, handler } from "../command"
import type { LoreClient } from "../context"
import { usageError } from "../errors"
import { snippet } from "../output/highlight"
import { presentRich, type RichBlock, type RichView, type Span } from "../output/rich"
import { parseClassification, parseCount, resolveSpace } from "./sources"

export interface SearchInput {
  readonly q: string
  /** A space key or id; resolved among the spaces the caller can see. */
  readonly space?: string | undefined
  readonly classification?: Classification | undefined
  readonly limit?: number | undefined
}

/** Ranked passages the caller may read, each with the citation id that `lore cite` opens. */
export const search = async (lore: LoreClient, input: SearchInput): Promise<SearchResult> => {
  const space = input.space ? await resolveSpace(lore, input.space, "read") : undefined
  return lore.knowledge.search({ q: input.q, knowledgeSpaceId: space?.id, classification: input.classification, limit: input.limit })
}

/** `p. 3`, `pp. 3-5`, or nothing for documents without pages. */
export const pagesLabel = (startPage: number | null, endPage: number | null): string | undefined => {
  if (startPage === null) return undefined
  return endPage === null || endPage === startPage ? `p. ${startPage}` : `pp. ${startPage}-${endPage}`
}

/** Scores are BM25 or reciprocal-rank fusion values: three significant digits tell them apart. */
const formatScore = (score: number) => (score === 0 ? "0" : Math.abs(score) >= 100 ? score.toFixed(0) : score.toPrecision(3))

const evidenceBlocks = (evidence: Evidence, rank: number): ReadonlyArray<RichBlock> => {
  const section = evidence.headingPath.length > 0 ? evidence.headingPath.join(" › ") : evidence.heading
  const pages = pagesLabel(evidence.startPage, evidence.endPage)
  const title: Array<Span> = [{ text: `${rank}. ` }, { text: evidence.title, bold: true }]
  if (section) title.push({ text: " › " }, { text: section, tone: "accent" })
  const facts = [pages, `score ${formatScore(evidence.relevanceScore)}`, evidence.classification].filter((fact) => fact !== undefined)
  title.push({ text: `  (${facts.join(", ")})`, tone: "muted" })
  return [
    { kind: "line", spans: title },
    { kind: "line", spans: [{ text: "   citation " , tone: "muted" }, { text: evidence.citationId, tone: "muted" }] },
    { kind: "highlighted", text: snippet(evidence.content, evidence.highlights), highlights: evidence.highlights, indent: 3 }
  ]
}

export const searchView = (query: string) => (result: SearchResult): RichView => {
  if (result.evidence.length === 0) return [{ kind: "message", text: `No passages you can see match "${query}".` }]
  const count = `${result.evidence.length} result${result.evidence.length === 1 ? "" : "s"}`
  const blocks: Array<RichBlock> = [{ kind: "line", spans: [{ text: `${count} for "${query}" (${result.mode} search)`, tone: "muted" }] }]
  result.evidence.forEach((evidence, index) => blocks.push({ kind: "blank" }, ...evidenceBlocks(evidence, index + 1)))
  return blocks
}

export const searchCommand: CommandModule = {
  register: (program: Command) => {
    program
      .command("search")
      .description("search the knowledge you may read; results carry citation ids for 'lore cite'")
      .argument("<query>", "a question or keywords (quote it)")
      .option("--space <key|id>", "only this knowledge space")
      .option("--classification <level>", "only passages of this classification", parseClassification)
      .option("--limit <n>", "at most this many results (1-50, default: the server's)", parseCount(1, 50))
      .action(
        handler(async (runtime, command) => {
          const [query] = command.processedArgs as [string]
          const q = query.trim()
          if (q === "") throw usageError("the query is empty")
          const flags = command.opts<{ space?: string; classification?: Classification; limit?: number }>()
          const lore = runtime.client({ requireToken: true })
          await presentRich(runtime, { progress: "Searching", run: () => search(lore, { q, ...flags }), view: searchView(q) })
        })
      )
  }
}
