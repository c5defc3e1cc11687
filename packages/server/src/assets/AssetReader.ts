import { Effect } from "effect"
import { AccessEvaluator, decide } from "../access/Evaluator"
import { classificationRank, clearanceCeiling, SpaceRelation, type SpaceRelation as Relation } from "../domain/Model"
import { holds } from "../domain/Permissions"
import type { Principal } from "../domain/Principal"
import { type AccessPredicate, type AssetRow, AssetsRepo } from "./AssetsRepo"
import { AssetNotFound } from "./Errors"
import { inWindow, seesGovernance, type Standing } from "./Policy"
import type { AssetParts } from "./Views"

const notFound = new AssetNotFound({ detail: "No asset with this id that you may see" })

/**
 * How every asset read starts: the access evaluator decides whether the caller sees the asset (a grant on its
 * knowledge space, the draft's classification within their clearance); 404 otherwise, before anything about the
 * asset's type, state or the request's body is looked at. A caller who sees only released versions does not see
 * an asset that has none.
 */
export class AssetReader extends Effect.Service<AssetReader>()("lore/AssetReader", {
  effect: Effect.gen(function* () {
    const repo = yield* AssetsRepo
    const evaluator = yield* AccessEvaluator

    const predicate = (caller: Principal) =>
      Effect.map(evaluator.readScope(caller), (scope): AccessPredicate => (alias) => evaluator.visibleTo(scope, alias))

    /** The caller's strongest relation on a space, by the evaluator's decision; null when they have none. */
    const relationOn = (caller: Principal, knowledgeSpaceId: string) =>
      Effect.map(evaluator.factsFor({ ...caller, active: true }, { knowledgeSpaceId, classification: null, aclKeys: null }), (facts): Relation | null =>
        [...SpaceRelation.literals].reverse().find((relation) => decide(facts, relation).allowed) ?? null)

    const loadParts = (asset: AssetRow) =>
      Effect.map(
        Effect.all([repo.revisions(asset.id), repo.reviews(asset.id), repo.decisions(asset.id), repo.releases(asset.id), repo.availabilityHistory(asset.id), repo.assignments(asset.id)]),
        ([revisions, reviews, decisions, releases, history, assignments]): AssetParts => ({ asset, revisions, reviews, decisions, releases, history, assignments })
      )

    const standingOf = (caller: Principal, parts: AssetParts) =>
      Effect.map(relationOn(caller, parts.asset.knowledgeSpaceId), (relation): Standing => {
        const now = new Date()
        return {
          relation: relation ?? "viewer",
          roles: new Set(parts.assignments.filter((a) => a.principalId === caller.userId && inWindow(a, now)).map((a) => a.role)),
          assetReviewer: holds(caller, "assets.review")
        }
      })

    /** The asset, everything about it, and the caller's standing; 404 when they may not see it. */
    const load = (caller: Principal, assetId: string) =>
      Effect.gen(function* () {
        const asset = yield* repo.visibleAsset(caller.organizationId, assetId, yield* predicate(caller))
        if (!asset) return yield* notFound
        const parts = yield* loadParts(asset)
        const standing = yield* standingOf(caller, parts)
        if (!seesGovernance(standing) && parts.releases.length === 0) return yield* notFound
        return { parts, standing, clearanceRank: classificationRank[clearanceCeiling[caller.clearance]] }
      })

    return { predicate, relationOn, loadParts, standingOf, load }
  }),
  dependencies: [AssetsRepo.Default, AccessEvaluator.Default]
}) {}
