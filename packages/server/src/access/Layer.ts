import { Effect, Layer } from "effect"
import { AccessEvaluator } from "./Evaluator"
import { AccessExplainer } from "./Explain"
import { AuthorizationGeneration } from "./Generation"
import { ResourceResolvers } from "./Resources"
import { Spaces } from "./Spaces"

/** The explanation finds knowledge spaces through this area's resolver. */
const SpaceResolverLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const spaces = yield* Spaces
    yield* (yield* ResourceResolvers).register("KNOWLEDGE_SPACE", spaces.resolveSpace)
  })
)

/** The access area: knowledge spaces and grants, the one evaluator, and explanations. */
export const AccessLive = SpaceResolverLive.pipe(
  Layer.provideMerge(Layer.mergeAll(Spaces.Default, AccessExplainer.Default, AccessEvaluator.Default, ResourceResolvers.Default, AuthorizationGeneration.Default))
)
