import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { AuthorizationGeneration } from "../access/Generation"
import { transactional } from "../db/Sql"
import { actingUserId, type Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import type { Curation } from "./Api"
import { GraphCurationConflict, GraphCurationNotFound, GraphTargetNotFound, NotAGraphCurator, StaleAuthorizationGeneration } from "./Errors"
import { GraphExplorerService } from "./Explorer"
import { normalizeName, normalizeType } from "./Extraction"
import { type CurationRow, GraphRepo, type NewCuration } from "./Repo"

/** The access model's identity in a curation's provenance (the generation is recorded beside it). */
export const AUTHORIZATION_MODEL_ID = "lore-access-1"

export const describeCuration = (row: CurationRow): typeof Curation.Type => ({
  id: row.id,
  namespace: { organizationId: row.organizationId, workspace: row.spaceKey, collection: "knowledge-graph" },
  curationKind: row.curationKind,
  entity: { kind: row.targetKind, id: row.targetId },
  intoEntityId: row.intoEntityId,
  name: row.name,
  type: row.type,
  description: row.description,
  governingEvidence: {
    organizationId: row.organizationId, knowledgeAssetId: null, sourceRevisionId: null, chunkId: null, aclSnapshotId: null,
    aclGeneration: row.aclGeneration, chunk: false
  },
  provenance: { actorUserId: row.actorUserId, authorizationModelId: row.authorizationModelId, aclGeneration: row.aclGeneration, curatedAt: row.curatedAt, reason: row.reason },
  dangling: row.dangling
})

type Draft = Omit<NewCuration, "organizationId" | "knowledgeSpaceId" | "actorUserId" | "authorizationModelId" | "aclGeneration" | "reason">

/**
 * Curation: an overlay of corrections, additions, merges and suppressions, kept apart from what extraction
 * writes and applied again after every projection (GraphRepo.applyOverlay), so no re-extraction loses or
 * duplicates it. Curators act only on entities and relations they can see; every change is audited.
 */
export class GraphCurations extends Effect.Service<GraphCurations>()("lore/GraphCurations", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* GraphRepo
    const explorer = yield* GraphExplorerService
    const generations = yield* AuthorizationGeneration
    const audit = yield* Audit

    const asCurator = (caller: Principal, spaceId: string) =>
      Effect.gen(function* () {
        const visible = yield* explorer.spaceAccess(caller, spaceId)
        if (!(yield* explorer.canCurate(caller, spaceId))) {
          return yield* new NotAGraphCurator({ detail: "Curating this knowledge space's graph needs the curator relation on it" })
        }
        return visible
      })

    const notFound = (what: string) => new GraphTargetNotFound({ detail: `No ${what} with this id in the space's graph that you may see` })

    const record = (caller: Principal, spaceId: string, reason: string | undefined, draft: Draft) =>
      transaction(Effect.gen(function* () {
        yield* repo.lockSpace(caller.organizationId, spaceId)
        const generation = yield* generations.current(caller.organizationId)
        const inserted = yield* repo.insertCuration({
          ...draft, organizationId: caller.organizationId, knowledgeSpaceId: spaceId, actorUserId: actingUserId(caller),
          authorizationModelId: AUTHORIZATION_MODEL_ID, aclGeneration: generation, reason: reason ?? ""
        })
        yield* repo.applyOverlay(spaceId)
        yield* audit.record(caller, {
          action: "graph.curation.create", resourceType: "graph_curation", resourceId: inserted.id,
          details: { knowledgeSpaceId: spaceId, curationKind: draft.curationKind, targetKind: draft.targetKind, targetId: draft.targetId, reason: reason ?? "" }
        })
        return describeCuration((yield* repo.curations(spaceId, inserted.id))[0]!)
      }))

    const entity = (caller: Principal, spaceId: string, input: { entityId?: string | undefined; name: string; type: string; description?: string | undefined; reason?: string | undefined }) =>
      Effect.gen(function* () {
        const visible = yield* asCurator(caller, spaceId)
        const type = normalizeType(input.type)
        const fields = { name: input.name, type, description: input.description ?? null, keywords: null, weight: null, intoEntityId: null }
        if (input.entityId !== undefined) {
          const target = yield* repo.entitySeenBy(spaceId, input.entityId, visible)
          if (!target) return yield* notFound("entity")
          return yield* record(caller, spaceId, input.reason, { ...fields, curationKind: "ENTITY", targetKind: "ENTITY", targetId: target.id, createsTarget: false })
        }
        const existing = yield* repo.entityByKey(spaceId, normalizeName(input.name), type)
        const seen = existing ? yield* repo.entitySeenBy(spaceId, existing.id, visible) : undefined
        if (seen) return yield* record(caller, spaceId, input.reason, { ...fields, curationKind: "ENTITY", targetKind: "ENTITY", targetId: seen.id, createsTarget: false })
        const created = yield* repo.createEntity(caller.organizationId, spaceId, normalizeName(input.name), type, input.name)
        return yield* record(caller, spaceId, input.reason, { ...fields, curationKind: "ENTITY", targetKind: "ENTITY", targetId: created.id, createsTarget: true })
      })

    const relation = (
      caller: Principal,
      spaceId: string,
      input: { relationId?: string | undefined; sourceEntityId: string; targetEntityId: string; type: string; description?: string | undefined; keywords?: ReadonlyArray<string> | undefined; weight?: number | undefined; reason?: string | undefined }
    ) =>
      Effect.gen(function* () {
        const visible = yield* asCurator(caller, spaceId)
        const type = normalizeType(input.type)
        const fields = { name: null, type, description: input.description ?? null, keywords: input.keywords ?? null, weight: input.weight ?? null, intoEntityId: null }
        if (input.relationId !== undefined) {
          const target = yield* repo.relationSeenBy(spaceId, input.relationId, visible)
          if (!target) return yield* notFound("relation")
          return yield* record(caller, spaceId, input.reason, { ...fields, curationKind: "RELATION", targetKind: "RELATION", targetId: target.id, createsTarget: false })
        }
        if (input.sourceEntityId === input.targetEntityId) return yield* new GraphCurationConflict({ detail: "A relation connects two different entities" })
        const [source, target] = yield* Effect.all([repo.entitySeenBy(spaceId, input.sourceEntityId, visible), repo.entitySeenBy(spaceId, input.targetEntityId, visible)])
        if (!source || !target) return yield* notFound("entity")
        const stored = yield* repo.ensureRelation(caller.organizationId, spaceId, source.id, target.id, type)
        const seen = yield* repo.relationSeenBy(spaceId, stored.id, visible)
        return yield* record(caller, spaceId, input.reason, { ...fields, curationKind: "RELATION", targetKind: "RELATION", targetId: stored.id, createsTarget: !seen })
      })

    const alias = (caller: Principal, spaceId: string, input: { entityId: string; intoEntityId: string; reason?: string | undefined }) =>
      Effect.gen(function* () {
        const visible = yield* asCurator(caller, spaceId)
        if (input.entityId === input.intoEntityId) return yield* new GraphCurationConflict({ detail: "An entity cannot be merged into itself" })
        const [merged, into] = yield* Effect.all([repo.entitySeenBy(spaceId, input.entityId, visible), repo.entitySeenBy(spaceId, input.intoEntityId, visible)])
        if (!merged || !into) return yield* notFound("entity")
        const [mergedState, intoState] = yield* Effect.all([repo.aliasState(spaceId, merged.id), repo.aliasState(spaceId, into.id)])
        if (intoState?.mergedAway) return yield* new GraphCurationConflict({ detail: "The target entity is itself merged into another; merge into that one" })
        if (mergedState?.hasAliases) return yield* new GraphCurationConflict({ detail: "Other entities are merged into this one; merge those into the target directly first" })
        return yield* record(caller, spaceId, input.reason, {
          curationKind: "ALIAS", targetKind: "ENTITY", targetId: merged.id, createsTarget: false, intoEntityId: into.id,
          name: merged.name, type: merged.type, description: null, keywords: null, weight: null
        })
      })

    const suppress = (caller: Principal, spaceId: string, input: { kind: "ENTITY" | "RELATION"; id: string; reason?: string | undefined }) =>
      Effect.gen(function* () {
        const visible = yield* asCurator(caller, spaceId)
        const target = input.kind === "ENTITY" ? yield* repo.entitySeenBy(spaceId, input.id, visible) : yield* repo.relationSeenBy(spaceId, input.id, visible)
        if (!target) return yield* notFound(input.kind === "ENTITY" ? "entity" : "relation")
        return yield* record(caller, spaceId, input.reason, {
          curationKind: "SUPPRESSION", targetKind: input.kind, targetId: target.id, createsTarget: false, intoEntityId: null,
          name: "name" in target ? target.name : null, type: target.type, description: null, keywords: null, weight: null
        })
      })

    const remove = (caller: Principal, spaceId: string, curationId: string, input: { authorizationGeneration: number; reason: string }) =>
      Effect.gen(function* () {
        yield* asCurator(caller, spaceId)
        yield* transaction(Effect.gen(function* () {
          yield* repo.lockSpace(caller.organizationId, spaceId)
          const current = yield* generations.current(caller.organizationId)
          if (current !== input.authorizationGeneration) {
            return yield* new StaleAuthorizationGeneration({ detail: `The authorization generation is ${current}, not ${input.authorizationGeneration}: reload and decide again` })
          }
          if (!(yield* repo.deleteCuration(spaceId, curationId, actingUserId(caller), input.reason))) {
            return yield* new GraphCurationNotFound({ detail: "No active curation with this id in this knowledge space" })
          }
          yield* repo.applyOverlay(spaceId)
          yield* audit.record(caller, {
            action: "graph.curation.delete", resourceType: "graph_curation", resourceId: curationId,
            details: { knowledgeSpaceId: spaceId, reason: input.reason, authorizationGeneration: current }
          })
        }))
      })

    const list = (caller: Principal, spaceId: string) =>
      Effect.gen(function* () {
        yield* asCurator(caller, spaceId)
        return (yield* repo.curations(spaceId, null)).map(describeCuration)
      })

    return { entity, relation, alias, suppress, remove, list }
  })
}) {}
