import { Effect, FiberRef } from "effect"
import { Embeddings } from "../ai/Embeddings"
import { AccessEvaluator, type ReadScope } from "../access/Evaluator"
import { type Classification, classificationRank } from "../domain/Model"
import { SEARCH_MAX_DEPTH } from "./Api"
import { CitationNotFound } from "./Errors"
import { CurrentRequestId } from "../domain/RequestId"
import type { Principal } from "../domain/Principal"
import { Settings } from "../Config"
import { CatalogRepo } from "./CatalogRepo"
import { EmbeddingIndex } from "./EmbeddingIndex"
import { type ChunkDetail, type KnowledgeFilters, type SearchAccess, SearchIndexReader } from "./SearchIndexReader"
import { type AccessPredicate, SourcesRepo } from "./SourcesRepo"

export interface SearchInput {
  readonly q: string
  readonly knowledgeSpaceId?: string | undefined
  /** Only these spaces (any of them); an empty list matches nothing. */
  readonly knowledgeSpaceIds?: ReadonlyArray<string> | undefined
  readonly classification?: Classification | undefined
  readonly limit?: number | undefined
  /** Skips this many of the best results (paging); offset + limit stops at SEARCH_MAX_DEPTH. */
  readonly offset?: number | undefined
  /** Only passages of these sources (versions), still through the caller's access (the assistant's evidence). */
  readonly sourceIds?: ReadonlyArray<string> | undefined
}

/** Reciprocal rank fusion constant (Cormack et al.). */
const RRF_K = 60
const CANDIDATES = 50
const EXCERPT_CHARS = 1600
/** Between the passage before, the cited one and the one after, in an excerpt. */
const PART_SEPARATOR = "\n\n"

const stopwords = new Set("a an and are as at be by for from has have how i in is it of on or that the this to was what when where which who why will with".split(" "))

/** The question's distinct words that say something: longer than two letters, not stopwords. */
const questionWords = (query: string) =>
  [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.filter((w) => w.length > 2 && !stopwords.has(w)))]

/**
 * From this many words (questionWords) a question goes to early termination first (SearchIndexReader.blocksFirst):
 * the terms of a pasted paragraph are almost never few enough to score whole, and asking first cost every such
 * search a statement (~2.2 ms of PostgreSQL at 100k chunks) and a round trip.
 */
const BLOCKS_FIRST_WORDS = 16

/**
 * Highlighting for one question: the words of a passage that begin like a query word (its first letters, all
 * but its last two, at least four), as written there. The prefixes are taken once per question, not per word of
 * every passage: a pasted paragraph's 50 words against 10 passages of 200 words each were 100k slices a search.
 */
const highlighter = (query: string) => {
  // Few enough words that a pasted paragraph does not make highlighting quadratic.
  const words = questionWords(query).slice(0, 100)
  const prefixes = [...new Set(words.map((w) => w.slice(0, Math.max(4, w.length - 2))))]
  return (content: string) => {
    if (prefixes.length === 0) return []
    const found = new Set<string>()
    for (const token of content.match(/[\p{L}\p{N}]+/gu) ?? []) {
      if (found.has(token)) continue
      const lower = token.toLowerCase()
      if (prefixes.some((prefix) => lower.startsWith(prefix))) found.add(token)
    }
    return [...found].slice(0, 20)
  }
}

const presentationKind = (mediaType: string) =>
  mediaType === "application/pdf" ? "PDF" as const
    : mediaType === "text/html" ? "HTML" as const
    : mediaType === "text/markdown" ? "MARKDOWN" as const
    : mediaType === "text/plain" ? "TEXT" as const
    : "DOCUMENT" as const

/** Search, catalog and citations: every query carries the caller's access predicate inside its SQL. */
export class KnowledgeSearch extends Effect.Service<KnowledgeSearch>()("lore/KnowledgeSearch", {
  effect: Effect.gen(function* () {
    const index = yield* SearchIndexReader
    const catalogRepo = yield* CatalogRepo
    const sources = yield* SourcesRepo
    const evaluator = yield* AccessEvaluator
    const embeddings = yield* Embeddings
    const embeddingIndex = yield* EmbeddingIndex
    const { search: ranking } = yield* Settings

    const filtersOf = (input: {
      knowledgeSpaceId?: string | undefined
      knowledgeSpaceIds?: ReadonlyArray<string> | undefined
      classification?: Classification | undefined
      sourceIds?: ReadonlyArray<string> | undefined
    }): KnowledgeFilters => ({
      knowledgeSpaceId: input.knowledgeSpaceId,
      knowledgeSpaceIds: input.knowledgeSpaceIds,
      classificationRank: input.classification === undefined ? undefined : classificationRank[input.classification],
      sourceIds: input.sourceIds
    })

    /** The caller's access predicates, as closures the repositories apply to their own aliases. */
    const visible = (scope: ReadScope): AccessPredicate => (alias) => evaluator.visibleTo(scope, alias)
    const accessOf = (scope: ReadScope): SearchAccess => ({
      partitions: (alias) => evaluator.grantAndClearance(scope, alias),
      visible: visible(scope)
    })

    /**
     * The best chunks by BM25. When the query's terms have at most `exhaustiveMaxPostings` postings, or no
     * more than early termination would read (WholeScoringGate), all are scored (exact, and cheaper); the full access predicate is checked
     * on a capped candidate list first, and the whole list is ranked only when that leaves fewer than `limit`
     * (source ACLs removed some). Past that, early termination (SearchIndexReader.lexicalPruned): exact when it
     * can prove so, else the best of its candidates scored exactly, within the tolerance measured in
     * docs/benchmarks.md; and when source ACLs leave fewer than `limit` of its candidates, the whole list.
     * A wordy question (BLOCKS_FIRST_WORDS) asks early termination first, whose statement answers the gate too.
     */
    const lexicalRanking = (organizationId: string, query: string, access: SearchAccess, filters: KnowledgeFilters, limit: number) =>
      Effect.gen(function* () {
        const cap = Math.max(limit * 5, CANDIDATES)
        const whole = Effect.map(index.lexical(organizationId, query, access, filters, limit, null), (all) => all.ranked)
        const candidates = Math.max(ranking.prunedCandidates, limit * 4)
        const gate = { maxPostings: ranking.exhaustiveMaxPostings, depth: ranking.prunedDepth, candidates }
        const wordy = questionWords(query).length >= BLOCKS_FIRST_WORDS
        const first = wordy ? yield* index.blocksFirst(organizationId, query, access, filters, limit, gate, ranking.blockPostings) : undefined
        if (first !== undefined && first !== "whole") return first.ranked.length >= limit || first.certain ? first.ranked : yield* whole
        const small = yield* index.lexical(organizationId, query, access, filters, limit, cap, gate)
        if (!small.skipped) return small.ranked.length >= limit || small.candidates < cap ? small.ranked : yield* whole
        // Blocks that could not serve a wordy question just now will not serve it now either: postings rows.
        const via = wordy && first === undefined ? "rows" as const : "any" as const
        const pruned = yield* index.lexicalPruned(organizationId, query, access, filters, limit, ranking.prunedDepth, candidates, ranking.blockPostings, via)
        return pruned.ranked.length >= limit || pruned.certain ? pruned.ranked : yield* whole
      })

    const search = (caller: Principal, input: SearchInput) =>
      Effect.gen(function* () {
        const requestId = yield* FiberRef.get(CurrentRequestId)
        const offset = Math.min(input.offset ?? 0, SEARCH_MAX_DEPTH)
        const limit = Math.min(input.limit ?? 10, SEARCH_MAX_DEPTH - offset)
        // One more than the page, to know whether a next page exists.
        const depth = Math.min(offset + limit + 1, SEARCH_MAX_DEPTH)
        const access = accessOf(yield* evaluator.readScope(caller))
        const filters = filtersOf(input)
        // Vectors of the active generation only, and a question embedded with that generation's model.
        const generation = yield* embeddingIndex.active(caller.organizationId)
        const queryProfile = generation && (yield* embeddings.queryProfile(caller.organizationId, generation.profile))
        const hybrid = generation !== undefined && queryProfile !== undefined
        const [lexical, nearest] = yield* Effect.all(
          [
            lexicalRanking(caller.organizationId, input.q, access, filters, hybrid ? Math.max(CANDIDATES, depth) : depth),
            hybrid
              ? embeddings.embed(caller.organizationId, "QUERY_EMBEDDING", queryProfile, [input.q], "query").pipe(
                Effect.flatMap(([query]) => index.nearest(caller.organizationId, generation.id, query!, access.visible, filters, Math.max(CANDIDATES, depth))),
                // A provider outage degrades search to lexical rather than failing it.
                Effect.catchAll((error) => Effect.as(Effect.logWarning("query embedding failed; lexical only", error), null))
              )
              : Effect.succeed(null)
          ],
          { concurrency: 1 }
        )
        const vector = nearest ?? []
        const mode = nearest === null ? "lexical" as const : "hybrid" as const
        const fused = new Map<string, { score: number; lexicalRank: number | null; vectorRank: number | null }>()
        lexical.forEach((hit, i) => fused.set(hit.id, { score: mode === "hybrid" ? 1 / (RRF_K + i + 1) : hit.score, lexicalRank: i + 1, vectorRank: null }))
        vector.forEach((hit, i) => {
          const entry = fused.get(hit.id) ?? { score: 0, lexicalRank: null, vectorRank: null }
          fused.set(hit.id, { ...entry, score: entry.score + 1 / (RRF_K + i + 1), vectorRank: i + 1 })
        })
        const all = [...fused.entries()].sort((a, b) => b[1].score - a[1].score)
        const ranked = all.slice(offset, offset + limit)
        const nextOffset = all.length > offset + limit && offset + limit < SEARCH_MAX_DEPTH ? offset + limit : null
        const details = new Map((yield* index.details(caller.organizationId, ranked.map(([id]) => id), access.visible)).map((d) => [d.id, d]))
        yield* Effect.logInfo("knowledge search").pipe(
          Effect.annotateLogs({ requestId, mode, lexical: lexical.length, vector: vector.length, offset, returned: ranked.length })
        )
        const highlights = highlighter(input.q)
        return {
          requestId,
          mode,
          nextOffset,
          evidence: ranked.flatMap(([id, rank]) => {
            const chunk = details.get(id)
            return chunk ? [toEvidence(chunk, rank, highlights)] : []
          })
        }
      })

    const toEvidence = (chunk: ChunkDetail, rank: { score: number; lexicalRank: number | null; vectorRank: number | null }, highlights: (content: string) => ReadonlyArray<string>) => ({
      citationId: chunk.id,
      knowledgeAssetId: chunk.knowledgeAssetId,
      knowledgeAssetVersionId: chunk.sourceId,
      knowledgeSpaceId: chunk.knowledgeSpaceId,
      title: chunk.title,
      content: chunk.content,
      highlights: highlights(chunk.content),
      sourceUri: `/api/sources/${chunk.sourceId}/content${chunk.startPage !== null && chunk.mediaType === "application/pdf" ? `#page=${chunk.startPage}` : ""}`,
      startPage: chunk.startPage,
      endPage: chunk.endPage,
      heading: chunk.heading,
      headingPath: chunk.headingPath,
      classification: chunk.classification as Classification,
      /** The document's media type (used by the assistant's source parts; not part of the search API's Evidence). */
      mediaType: chunk.mediaType,
      relevanceScore: Math.round(rank.score * 1e6) / 1e6,
      lexicalRank: rank.lexicalRank,
      vectorRank: rank.vectorRank
    })

    const catalog = (caller: Principal, input: { knowledgeSpaceId?: string | undefined; classification?: Classification | undefined }) =>
      Effect.flatMap(evaluator.readScope(caller), (scope) => catalogRepo.entries(caller.organizationId, visible(scope), filtersOf(input)))

    const citation = (caller: Principal, citationId: string) =>
      Effect.gen(function* () {
        const scope = yield* evaluator.readScope(caller)
        const [chunk] = yield* index.details(caller.organizationId, [citationId], visible(scope))
        if (!chunk) return yield* new CitationNotFound({ detail: "No citation with this id that you may see" })
        return chunk
      })

    const excerpt = (caller: Principal, citationId: string) =>
      Effect.gen(function* () {
        const chunk = yield* citation(caller, citationId)
        const around = yield* index.neighbours(chunk.sourceId, chunk.ordinal)
        const before = around.find((c) => c.ordinal === chunk.ordinal - 1)?.content ?? ""
        const after = around.find((c) => c.ordinal === chunk.ordinal + 1)?.content ?? ""
        const context = Math.max(0, Math.floor((EXCERPT_CHARS - chunk.content.length) / 2))
        const lead = before.length > context ? "…" + before.slice(before.length - context) : before
        const tail = after.length > context ? after.slice(0, context) + "…" : after
        const cited = chunk.content.slice(0, EXCERPT_CHARS)
        const passage = chunk.content.length > EXCERPT_CHARS ? cited + "…" : cited
        // Where the cited passage sits in the excerpt (context before it, then the passage), so a reader can mark it.
        const highlightStart = lead.length > 0 ? lead.length + PART_SEPARATOR.length : 0
        return {
          citationId,
          title: chunk.title,
          heading: chunk.heading,
          startPage: chunk.startPage,
          endPage: chunk.endPage,
          excerpt: [lead, passage, tail].filter((part) => part.length > 0).join(PART_SEPARATOR),
          highlightStart,
          highlightEnd: highlightStart + cited.length,
          truncated: lead.startsWith("…") || tail.endsWith("…") || passage.endsWith("…"),
          presentationKind: presentationKind(chunk.mediaType)
        }
      })

    const citationContent = (caller: Principal, citationId: string) =>
      Effect.gen(function* () {
        const chunk = yield* citation(caller, citationId)
        const source = yield* sources.load(chunk.sourceId)
        const bytes = source ? yield* sources.blob(source.contentDigest) : undefined
        if (!source || !bytes) return yield* new CitationNotFound({ detail: "The cited document is no longer stored" })
        return { source, bytes, startPage: chunk.startPage }
      })

    return { search, catalog, excerpt, citationContent }
  }),
  dependencies: [SearchIndexReader.Default, CatalogRepo.Default, SourcesRepo.Default, AccessEvaluator.Default, Embeddings.Default, EmbeddingIndex.Default]
}) {}
