import { Effect, Layer } from "effect"
import { AccessEvaluator } from "./Evaluator"
import { AccessExplainer } from "./Explain"
import { AuthorizationGeneration } from "./Generation"
import { AuditLabelsLive, ResourceLabels } from "./Labels"
import { ResourceResolvers } from "./Resources"
import { Spaces } from "./Spaces"

/** The explanation and the audit find knowledge spaces through this area's resolver. */
const SpaceResolverLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const spaces = yield* Spaces
    yield* (yield* ResourceResolvers).register("KNOWLEDGE_SPACE", spaces.resolveSpace)
  })
)

/**
 * The access area: knowledge spaces and grants, the one evaluator, explanations, and the labels of resources
 * as each caller may see them (also for the audit trail: AuditLabels).
 */
export const AccessLive = Layer.mergeAll(SpaceResolverLive, AuditLabelsLive).pipe(
  Layer.provideMerge(Layer.mergeAll(
    Spaces.Default, AccessExplainer.Default, AccessEvaluator.Default, ResourceResolvers.Default, ResourceLabels.Default, AuthorizationGeneration.Default
  ))
)
