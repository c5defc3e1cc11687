import { Effect } from "effect"
import { AccessEvaluator } from "../access/Evaluator"
import type { Classification } from "../domain/Model"
import type { Principal } from "../domain/Principal"
import { normalizeName } from "./Extraction"
import { GraphExplorerRepo } from "./ExplorerRepo"

/**
 * Graph-aware retrieval for the assistant: the entities a question names (in spaces whose graph retrieval is on)
 * bring the chunks behind their relations as extra evidence, filtered by the same access predicate as search.
 * The passages have knowledge search's evidence shape, so the assistant merges them with its other passages.
 */
export class GraphRetrieval extends Effect.Service<GraphRetrieval>()("lore/GraphRetrieval", {
  effect: Effect.gen(function* () {
    const repo = yield* GraphExplorerRepo
    const evaluator = yield* AccessEvaluator

    const passages = (caller: Principal, question: string, spaceIds: ReadonlyArray<string> | undefined, limit: number) =>
      Effect.gen(function* () {
        // The question's words, normalized like entity names, so "Who met Alice Johnson?" contains "alice johnson".
        const normalized = question.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()
        if (normalized.length < 3 || limit <= 0) return []
        const scope = yield* evaluator.readScope(caller)
        const found = yield* repo.passagesForQuestion(
          caller.organizationId,
          normalizeName(normalized),
          (alias) => evaluator.visibleTo(scope, alias),
          spaceIds && spaceIds.length > 0 ? [...spaceIds] : null,
          limit
        )
        return found.map((row) => ({
          citationId: row.citationId,
          knowledgeAssetId: row.knowledgeAssetId,
          knowledgeAssetVersionId: row.knowledgeAssetVersionId,
          knowledgeSpaceId: row.knowledgeSpaceId,
          title: row.title,
          content: row.content,
          mediaType: row.mediaType,
          highlights: [] as Array<string>,
          sourceUri: `/api/sources/${row.sourceId}/content${row.startPage !== null && row.mediaType === "application/pdf" ? `#page=${row.startPage}` : ""}`,
          startPage: row.startPage,
          endPage: row.endPage,
          heading: row.heading,
          headingPath: row.headingPath,
          classification: row.classification as Classification,
          relevanceScore: 0,
          lexicalRank: null,
          vectorRank: null
        }))
      })

    return { passages }
  })
}) {}
