import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { Principal } from "../domain/Principal"
import { AccessEvaluator, sharingReadScopes } from "../access/Evaluator"
import { graphSpaces, GraphRetrieval } from "../graph/Retrieval"
import { KnowledgeSearch } from "../knowledge/Search"

export type Evidence = Effect.Effect.Success<ReturnType<KnowledgeSearch["search"]>>["evidence"][number]

/** Passages the graph adds beyond search's (entities named in the question, their relations' chunks). */
export const GRAPH_EXTRA_PASSAGES = 3

/**
 * The assistant's retrieval: knowledge search (every passage filtered by the access evaluator inside its SQL),
 * across everything the caller may read or the best passages of each named space; then, for spaces whose graph
 * retrieval is on, up to GRAPH_EXTRA_PASSAGES passages behind the relations of entities the question names
 * (access-filtered the same way), after search's and without duplicates.
 */
export class Retrieval extends Effect.Service<Retrieval>()("lore/AssistantRetrieval", {
  effect: Effect.gen(function* () {
    const knowledge = yield* KnowledgeSearch
    const graph = yield* GraphRetrieval
    const evaluator = yield* AccessEvaluator

    const passages = (caller: Principal, query: string, spaceIds: ReadonlyArray<string> | undefined, limit: number) =>
      sharingReadScopes(Effect.gen(function* () {
        // The read scope first (search needs it too): without a space of graph retrieval, search alone, no fiber forked.
        if (graphSpaces(yield* evaluator.readScope(caller), spaceIds).length === 0) return yield* searchPassages(caller, query, spaceIds, limit)
        // Search and graph retrieval do not wait for each other (they share one read scope).
        const [searched, extra] = yield* Effect.all([searchPassages(caller, query, spaceIds, limit), graph.passages(caller, query, spaceIds, GRAPH_EXTRA_PASSAGES + limit)], { concurrency: 2 })
        const seen = new Set(searched.evidence.map((evidence) => evidence.citationId))
        const added = extra.filter((evidence) => !seen.has(evidence.citationId)).slice(0, GRAPH_EXTRA_PASSAGES)
        return added.length === 0 ? searched : { ...searched, evidence: [...searched.evidence, ...added] }
      }))

    const searchPassages = (caller: Principal, query: string, spaceIds: ReadonlyArray<string> | undefined, limit: number) =>
      Effect.gen(function* () {
        if (!spaceIds || spaceIds.length === 0) return yield* knowledge.search(caller, { q: query, limit })
        const perSpace = yield* Effect.forEach([...new Set(spaceIds)], (knowledgeSpaceId) => knowledge.search(caller, { q: query, knowledgeSpaceId, limit }))
        return {
          requestId: perSpace[0]!.requestId,
          evidence: perSpace.flatMap((result) => result.evidence).sort((a, b) => b.relevanceScore - a.relevanceScore).slice(0, limit)
        }
      })

    return {
      passages,

      /** The knowledge-search tool: passages as ToolCitations, under a trace id that is logged with the call. */
      tool: (caller: Principal, input: { readonly query: string; readonly knowledgeSpaceIds?: ReadonlyArray<string> | undefined; readonly limit?: number | undefined }) =>
        Effect.gen(function* () {
          const traceId = randomUUID()
          const result = yield* passages(caller, input.query, input.knowledgeSpaceIds, input.limit ?? 8)
          yield* Effect.logInfo("assistant tool knowledge-search").pipe(
            Effect.annotateLogs({ traceId, requestId: result.requestId, userId: caller.userId, returned: result.evidence.length })
          )
          return {
            traceId,
            requestId: result.requestId,
            citations: result.evidence.map((evidence) => ({
              chunkId: evidence.citationId, knowledgeAssetId: evidence.knowledgeAssetId, sourceRevisionId: evidence.knowledgeAssetVersionId,
              title: evidence.title, startPage: evidence.startPage, endPage: evidence.endPage, heading: evidence.heading, content: evidence.content
            }))
          }
        })
    }
  })
}) {}
