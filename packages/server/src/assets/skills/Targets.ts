import { Effect } from "effect"
import { AccessEvaluator } from "../../access/Evaluator"
import { KnowledgeSpaceNotFound } from "../../access/Errors"
import { ValidationFailed } from "../../domain/Errors"
import type { Principal } from "../../domain/Principal"

/** Where uploaded or imported skills go, as the caller named it (either may be left out). */
export interface SkillTargetInput {
  readonly knowledgeSpaceId?: string | undefined
  readonly namespace?: string | undefined
}

/** At most this many space keys are named in the 400 that asks for a knowledgeSpaceId. */
const NAMED_SPACES = 10

/**
 * The defaults of skill uploads and repository imports (issue 33.10): the knowledge space is the caller's only
 * upload target (with none or several, 400 naming `knowledgeSpaceId` and the spaces they may choose from), and
 * the namespace is that space's key. Whether the caller may add assets to a space they named is still decided
 * where the asset is created.
 */
export class SkillTargets extends Effect.Service<SkillTargets>()("lore/SkillTargets", {
  effect: Effect.gen(function* () {
    const evaluator = yield* AccessEvaluator

    const resolve = (caller: Principal, input: SkillTargetInput) =>
      Effect.gen(function* () {
        if (input.knowledgeSpaceId !== undefined && input.namespace !== undefined) {
          return { knowledgeSpaceId: input.knowledgeSpaceId, namespace: input.namespace }
        }
        if (input.knowledgeSpaceId !== undefined) {
          const visible = yield* evaluator.spacesWith(caller, "viewer")
          const space = visible.find((candidate) => candidate.id === input.knowledgeSpaceId)
          if (!space) return yield* new KnowledgeSpaceNotFound({ detail: "No knowledge space with this id that you may see" })
          return { knowledgeSpaceId: space.id, namespace: input.namespace ?? space.key }
        }
        const targets = yield* evaluator.spacesWith(caller, "contributor")
        if (targets.length === 1) return { knowledgeSpaceId: targets[0]!.id, namespace: input.namespace ?? targets[0]!.key }
        const keys = targets.slice(0, NAMED_SPACES).map((space) => space.key).join(", ") + (targets.length > NAMED_SPACES ? ", ..." : "")
        const message = targets.length === 0
          ? "is required: you may add assets to no knowledge space (ask a space manager for contributor access)"
          : `is required: you may add assets to ${targets.length} knowledge spaces (${keys}); name one`
        return yield* new ValidationFailed({ detail: `Name the knowledge space: knowledgeSpaceId ${message}`, errors: [{ path: "knowledgeSpaceId", message }] })
      })

    return { resolve }
  }),
  dependencies: [AccessEvaluator.Default]
}) {}
