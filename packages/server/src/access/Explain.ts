import { Effect } from "effect"
import { UserNotFound } from "../domain/Errors"
import { ResourceNotFound } from "./Errors"
import { AccessRepo } from "./AccessRepo"
import type { Principal } from "../domain/Principal"
import { SpacesRepo } from "./SpacesRepo"
import { AccessEvaluator, decide, type AccessFacts } from "./Evaluator"
import { AuthorizationGeneration, policyVersion } from "./Generation"
import { clearanceCeiling, type SpaceRelation } from "../domain/Model"
import { ResourceResolvers, type ResourceType } from "./Resources"

export interface ExplainInput {
  readonly userId: string
  readonly resourceType: ResourceType
  readonly resourceId: string
  readonly relation: SpaceRelation
}

/**
 * Why a user may or may not reach a resource: the same facts and the same decision function the
 * evaluator uses, reported branch by branch.
 */
export class AccessExplainer extends Effect.Service<AccessExplainer>()("lore/AccessExplainer", {
  effect: Effect.gen(function* () {
    const evaluator = yield* AccessEvaluator
    const repo = yield* AccessRepo
    const spaces = yield* SpacesRepo
    const resolvers = yield* ResourceResolvers
    const generation = yield* AuthorizationGeneration

    const explain = (actor: Principal, input: ExplainInput) =>
      Effect.gen(function* () {
        const user = yield* repo.subject(actor.organizationId, input.userId)
        if (!user) return yield* new UserNotFound({ detail: "No user with this id in your organization" })
        const resource = yield* resolvers.resolve(input.resourceType, actor.organizationId, input.resourceId)
        if (!resource) return yield* new ResourceNotFound({ detail: `No ${input.resourceType} with this id in your organization` })
        const space = yield* spaces.space(actor.organizationId, resource.knowledgeSpaceId)
        const keys = yield* evaluator.keysFor({ ...user, userId: user.id })
        const grants = yield* evaluator.matchingGrants(resource.knowledgeSpaceId, keys)
        const principalKeys = [`LORE_USER:${user.id}`]
        const facts: AccessFacts = {
          userActive: user.active,
          spaceActive: space?.active ?? false,
          grants,
          classification: resource.classification,
          clearanceCeiling: clearanceCeiling[user.clearance],
          sourceAcl: resource.aclKeys === null
            ? null
            : resource.aclKeys.some((key) => principalKeys.includes(key))
              ? { allowed: true, reason: "The user maps to a principal in the source ACL" }
              : { allowed: false, reason: "The user maps to no principal allowed by the item's source ACL" }
        }
        const decision = decide(facts, input.relation)
        const relationship = decide({ ...facts, classification: null, sourceAcl: null }, input.relation)
        const contentBlocked = !decision.allowed && (decision.branch === "CLASSIFICATION" || decision.branch === "SOURCE_ACL")
        const current = yield* generation.current(actor.organizationId)
        const now = new Date()
        return {
          state: decision.allowed ? "ALLOWED" as const : "DENIED" as const,
          reasonCode: decision.reasonCode,
          path: decision.allowed
            ? [{
              object: `knowledge_space:${resource.knowledgeSpaceId}`,
              objectType: "KNOWLEDGE_SPACE",
              objectLabel: space?.name ?? "",
              relation: decision.grant.relation,
              kind: decision.grant.kind
            }, ...(resource.type === "KNOWLEDGE_SPACE" ? [] : [{
              object: `${resource.type.toLowerCase()}:${resource.id}`,
              objectType: resource.type,
              objectLabel: resource.label,
              relation: "viewer",
              kind: "CONTAINED_IN_SPACE"
            }])]
            : [],
          blockedBy: decision.allowed ? [] : [{ branch: decision.branch, kind: decision.kind, detail: decision.detail }],
          provenance: { authority: "lore", origin: resource.aclKeys === null ? "space_grants" : "space_grants+source_acl", generation: current, capturedAt: now, expired: false },
          evaluationKind: "DIRECT",
          relationshipState: relationship.allowed ? "ALLOWED" as const : "DENIED" as const,
          relationshipReasonCode: relationship.reasonCode,
          contentPolicyState: contentBlocked ? "DENIED" as const : "ALLOWED" as const,
          contentPolicyReasonCode: contentBlocked && !decision.allowed ? decision.reasonCode : "WITHIN_POLICY",
          resource: {
            id: resource.id,
            type: resource.type,
            label: resource.label,
            contextLabel: resource.contextLabel,
            classification: resource.classification
          },
          policyVersion: policyVersion(current),
          evaluatedAt: now
        }
      })

    return { explain }
  }),
  dependencies: [AccessEvaluator.Default, AccessRepo.Default, SpacesRepo.Default, ResourceResolvers.Default, AuthorizationGeneration.Default]
}) {}
