import { Effect } from "effect"
import { AccessEvaluator, type ReadScope } from "../access/Evaluator"
import type { Classification } from "../domain/Model"
import type { Principal } from "../domain/Principal"
import { normalizeName } from "./Extraction"
import { GraphExplorerRepo } from "./ExplorerRepo"

/** Entity names of more words than this are not looked for in questions (extraction's names are a few words). */
export const MAX_ENTITY_NAME_WORDS = 8

/**
 * Every run of 1 to MAX_ENTITY_NAME_WORDS consecutive words of a normalized question, of 3 characters or more: the
 * names an entity may have to be named in it. Matching names by equality against these uses the entities' name
 * index; `question LIKE '% ' || name || ' %'` read every entity of the organization for every chat.
 */
export const questionPhrases = (normalizedQuestion: string): ReadonlyArray<string> => {
  const words = normalizedQuestion.split(" ").filter((word) => word.length > 0)
  const phrases = new Set<string>()
  for (let start = 0; start < words.length; start++) {
    let phrase = ""
    for (let end = start; end < Math.min(words.length, start + MAX_ENTITY_NAME_WORDS); end++) {
      phrase = end === start ? words[end]! : `${phrase} ${words[end]}`
      if (phrase.length >= 3) phrases.add(phrase)
    }
  }
  return [...phrases]
}

/**
 * The spaces graph retrieval reads for a caller: those of `asked` (all when none) that the caller views with graph
 * retrieval on, as the read scope says. None: no graph statement at all.
 */
export const graphSpaces = (scope: Pick<ReadScope, "graphRetrievalSpaceIds">, asked: ReadonlyArray<string> | undefined) => {
  if (!asked || asked.length === 0) return scope.graphRetrievalSpaceIds
  const wanted = new Set(asked)
  return scope.graphRetrievalSpaceIds.filter((id) => wanted.has(id))
}

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
        if (limit <= 0) return []
        const scope = yield* evaluator.readScope(caller)
        const spaces = graphSpaces(scope, spaceIds)
        if (spaces.length === 0) return []
        // The question's words, normalized like entity names, so "Who met Alice Johnson?" contains "alice johnson".
        const normalized = question.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()
        const phrases = normalized.length < 3 ? [] : questionPhrases(normalizeName(normalized))
        if (phrases.length === 0) return []
        const found = yield* repo.passagesForQuestion(caller.organizationId, phrases, (alias) => evaluator.visibleTo(scope, alias), spaces, limit)
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
