import { Effect, Layer } from "effect"
import { ResourceResolvers } from "../access/Resources"
import { Assets } from "./Assets"
import { AssetsRepo } from "./AssetsRepo"
import { Delivery } from "./Delivery"
import { AssetTools } from "./Tools"
import { Governance } from "./Governance"
import { SkillImports } from "./skills/Imports"
import { Skills } from "./skills/Skills"
import { SkillTargets } from "./skills/Targets"
import { AssetDeletion } from "./Deletion"
import { AssetFeedback } from "./Feedback"
import { SpacePolicies } from "./SpacePolicies"

/** The explanation and the audit trail's labels find assets through this resolver. */
const AssetResolversLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const assets = yield* Assets
    const resolvers = yield* ResourceResolvers
    yield* resolvers.register("ASSET", assets.resolveForAccess)
  })
)

/** The governed assets area: drafts, the lifecycle, ownership, policies and delivery. */
export const AssetsLive = AssetResolversLive.pipe(
  Layer.provideMerge(Layer.mergeAll(Assets.Default, Governance.Default, SpacePolicies.Default, Delivery.Default, AssetTools.Default, Skills.Default, SkillImports.Default, SkillTargets.Default, AssetDeletion.Default, AssetFeedback.Default)),
  Layer.provide(Layer.mergeAll(ResourceResolvers.Default, AssetsRepo.Default))
)
