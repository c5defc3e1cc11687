import { Effect } from "effect"
import { AccessEvaluator } from "../access/Evaluator"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import { AuthorizationGeneration } from "../access/Generation"
import type { Principal } from "../domain/Principal"
import type { GraphExplorer } from "./Api"
import { GraphExplorerRepo } from "./ExplorerRepo"

export type Explored = typeof GraphExplorer.Type

/** Relations returned per entity returned, at most (a hub does not turn one answer into megabytes). */
const RELATIONS_PER_ENTITY = 20

const evidence = (
  organizationId: string,
  row: { evidenceChunkId: string | null; evidenceAssetId: string | null; evidenceSourceId: string | null; evidenceAclGeneration: number | null },
  fallbackGeneration: number
) => ({
  organizationId,
  knowledgeAssetId: row.evidenceAssetId,
  sourceRevisionId: row.evidenceSourceId,
  chunkId: row.evidenceChunkId,
  aclSnapshotId: null,
  aclGeneration: row.evidenceAclGeneration ?? fallbackGeneration,
  chunk: row.evidenceChunkId !== null
})

/**
 * The permission-safe explorer: the caller's read scope becomes the chunk predicate of every statement; matching,
 * the breadth-first walk (a recursive CTE bounded by maxDepth and entityLimit) and the aggregation of
 * descriptions and citations all run in SQL, the aggregation only for what is returned.
 */
export class GraphExplorerService extends Effect.Service<GraphExplorerService>()("lore/GraphExplorer", {
  effect: Effect.gen(function* () {
    const repo = yield* GraphExplorerRepo
    const evaluator = yield* AccessEvaluator
    const generations = yield* AuthorizationGeneration

    /** The caller's chunk predicate for a space they may view (404 otherwise). */
    const spaceAccess = (caller: Principal, spaceId: string) =>
      Effect.gen(function* () {
        const scope = yield* evaluator.readScope(caller)
        if (!scope.spaceIds.includes(spaceId)) return yield* new KnowledgeSpaceNotFound({ detail: "No knowledge space with this id that you may see" })
        return (alias: string) => evaluator.visibleTo(scope, alias)
      })

    const canCurate = (caller: Principal, spaceId: string) =>
      Effect.map(evaluator.spacesWith(caller, "curator"), (spaces) => spaces.some((space) => space.id === spaceId))

    const explore = (caller: Principal, spaceId: string, input: { readonly q?: string | undefined; readonly entityLimit: number; readonly maxDepth: number }) =>
      Effect.gen(function* () {
        const visible = yield* spaceAccess(caller, spaceId)
        const generation = yield* generations.current(caller.organizationId)
        const walked = yield* repo.walk(spaceId, visible, input.q ?? "", input.maxDepth, input.entityLimit)
        const truncated = walked.length > input.entityLimit
        const kept = walked.slice(0, input.entityLimit)
        const ids = kept.map((row) => row.id)
        const [entityRows, relationRows] = ids.length === 0
          ? [[], []] as const
          : yield* Effect.all([repo.entityViews(ids, visible), repo.relationViews(ids, visible, ids.length * RELATIONS_PER_ENTITY + 1)])
        const byId = new Map(entityRows.map((row) => [row.id, row]))
        const entities = kept.flatMap(({ id, depth }) => {
          const row = byId.get(id)
          if (!row) return []
          return [{
            id: row.id,
            name: row.name,
            type: row.type,
            description: row.curatedDescription ?? (row.descriptions ?? []).join(" "),
            citationChunkIds: [...(row.chunkIds ?? [])].sort(),
            governingEvidence: evidence(caller.organizationId, row, generation),
            depth
          }]
        })
        const relationLimit = ids.length * RELATIONS_PER_ENTITY
        const relations = relationRows.slice(0, relationLimit).map((row) => ({
          id: row.id,
          sourceEntityId: row.sourceEntityId,
          targetEntityId: row.targetEntityId,
          type: row.type,
          description: row.curatedDescription ?? (row.descriptions ?? []).join(" "),
          weight: row.curatedWeight ?? row.weight ?? 1,
          keywords: row.curatedKeywords ?? row.keywords ?? [],
          citationChunkIds: [...(row.chunkIds ?? [])].sort(),
          governingEvidence: evidence(caller.organizationId, row, generation)
        }))
        return {
          knowledgeSpaceId: spaceId,
          authorizationGeneration: generation,
          canCurate: yield* canCurate(caller, spaceId),
          entities,
          relations,
          truncated: truncated || relationRows.length > relationLimit
        } satisfies Explored
      })

    return { explore, spaceAccess, canCurate }
  })
}) {}
