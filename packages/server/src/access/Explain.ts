import { Effect } from "effect"
import { UserNotFound } from "../domain/Errors"
import type { SpaceRelation } from "../domain/Model"
import type { Principal } from "../domain/Principal"
import { AccessRepo } from "./AccessRepo"
import { ResourceNotFound } from "./Errors"
import { AccessEvaluator, decide } from "./Evaluator"
import { AuthorizationGeneration, policyVersion } from "./Generation"
import { ResourceLabels } from "./Labels"
import { ResourceResolvers, type ResourceType } from "./Resources"
import { SpacesRepo } from "./SpacesRepo"

export interface ExplainInput {
  readonly userId: string
  readonly resourceType: ResourceType
  readonly resourceId: string
  readonly relation: SpaceRelation
}

/** What the explanation says instead of a label the caller may not see. */
export const HIDDEN_LABEL = "(hidden)"

/**
 * Why a user may or may not reach a resource: the same facts and the same decision function the
 * evaluator uses, reported branch by branch. Labels (a document's title, a space's name) appear only where
 * the caller may see them (ResourceLabels): explaining access is not reading.
 */
export class AccessExplainer extends Effect.Service<AccessExplainer>()("lore/AccessExplainer", {
  effect: Effect.gen(function* () {
    const evaluator = yield* AccessEvaluator
    const repo = yield* AccessRepo
    const spaces = yield* SpacesRepo
    const resolvers = yield* ResourceResolvers
    const labels = yield* ResourceLabels
    const generation = yield* AuthorizationGeneration

    /**
     * The SOURCE_ACL branch as path steps: the source principal the user is mapped to (kind: the mapping's method),
     * each source group it is a member of up to the one the item's ACL allows, and the ACL itself. A user named in
     * the ACL as a Lore user or a provisioned group needs no mapping: one step says which.
     */
    const sourceAclSteps = (userId: string, resource: { readonly type: string; readonly id: string; readonly aclKeys: ReadonlyArray<string> | null }) =>
      Effect.gen(function* () {
        const aclStep = { object: `${resource.type.toLowerCase()}:${resource.id}`, objectType: resource.type, relation: "reader", kind: "SOURCE_ACL" }
        const chain = yield* evaluator.sourcePath(userId, resource.aclKeys ?? [])
        if (chain.length === 0) return [aclStep]
        return [
          ...chain.map((step, index) => ({
            object: `source_principal:${step.principalId}`,
            objectType: step.kind,
            objectLabel: `${step.sourceSystem}/${step.connectionKey}: ${step.displayName ?? step.nativePrincipalId} (${step.nativePrincipalId})`,
            relation: index === 0 ? "mapped_user" : "member",
            kind: index === 0 ? `MAPPING_${step.method}` : "SOURCE_GROUP_MEMBERSHIP"
          })),
          aclStep
        ]
      })

    const explain = (actor: Principal, input: ExplainInput) =>
      Effect.gen(function* () {
        const user = yield* repo.subject(actor.organizationId, input.userId)
        if (!user) return yield* new UserNotFound({ detail: "No user with this id in your organization" })
        const resource = yield* resolvers.resolve(input.resourceType, actor.organizationId, input.resourceId)
        if (!resource) return yield* new ResourceNotFound({ detail: `No ${input.resourceType} with this id in your organization` })
        const space = yield* spaces.space(actor.organizationId, resource.knowledgeSpaceId)
        const evaluated = yield* evaluator.factsFor({ ...user, userId: user.id }, resource)
        // A connector document whose permissions the source would not give has an empty ACL: say so rather than "not
        // mapped"; and a connection past its permissionMaxAgeSeconds fails closed, which provenance.expired reports.
        const aclState = resource.aclKeys !== null && (resource.type === "SOURCE" || resource.type === "KNOWLEDGE_ASSET")
          ? yield* repo.sourceAclState(resource.id)
          : undefined
        const facts = evaluated.sourceAcl === null || evaluated.sourceAcl.allowed || !aclState
          ? evaluated
          : {
            ...evaluated,
            sourceAcl: aclState.unresolved
              ? { allowed: false, reasonCode: "SOURCE_ACL_UNRESOLVED", reason: "The source's permissions of this item could not be read: it admits nobody until a permission sync reads them" }
              : aclState.expired
                ? { allowed: false, reason: "The connection's permissions have not been synced within its permissionMaxAgeSeconds: its items admit nobody until a permission sync succeeds" }
                : evaluated.sourceAcl
          }
        const decision = decide(facts, input.relation)
        const sourceSteps = decision.allowed && resource.aclKeys !== null ? yield* sourceAclSteps(user.id, resource) : []
        const relationship = decide({ ...facts, classification: null, sourceAcl: null }, input.relation)
        const contentBlocked = !decision.allowed && (decision.branch === "CLASSIFICATION" || decision.branch === "SOURCE_ACL")
        const current = yield* generation.current(actor.organizationId)
        const view = yield* labels.forCaller(actor)
        const labelVisible = yield* view.labelVisible(resource)
        const spaceNameVisible = yield* view.spaceNameVisible(resource.knowledgeSpaceId)
        const now = new Date()
        return {
          state: decision.allowed ? "ALLOWED" as const : "DENIED" as const,
          reasonCode: decision.reasonCode,
          path: decision.allowed
            ? [{
              object: `knowledge_space:${resource.knowledgeSpaceId}`,
              objectType: "KNOWLEDGE_SPACE",
              ...(spaceNameVisible ? { objectLabel: space?.name ?? "" } : {}),
              relation: decision.grant.relation,
              kind: decision.grant.kind
            }, ...(resource.type === "KNOWLEDGE_SPACE" ? [] : [{
              object: `${resource.type.toLowerCase()}:${resource.id}`,
              objectType: resource.type,
              ...(labelVisible ? { objectLabel: resource.label } : {}),
              relation: "viewer",
              kind: "CONTAINED_IN_SPACE"
            }]), ...sourceSteps]
            : [],
          blockedBy: decision.allowed ? [] : [{ branch: decision.branch, kind: decision.kind, detail: decision.detail }],
          provenance: { authority: "lore", origin: resource.aclKeys === null ? "space_grants" : "space_grants+source_acl", generation: current, capturedAt: now, expired: aclState?.expired ?? false },
          evaluationKind: "DIRECT",
          relationshipState: relationship.allowed ? "ALLOWED" as const : "DENIED" as const,
          relationshipReasonCode: relationship.reasonCode,
          contentPolicyState: contentBlocked ? "DENIED" as const : "ALLOWED" as const,
          contentPolicyReasonCode: contentBlocked && !decision.allowed ? decision.reasonCode : "WITHIN_POLICY",
          resource: {
            id: resource.id,
            type: resource.type,
            label: labelVisible ? resource.label : HIDDEN_LABEL,
            labelHidden: !labelVisible,
            contextLabel: spaceNameVisible ? resource.contextLabel : HIDDEN_LABEL,
            classification: resource.classification
          },
          policyVersion: policyVersion(current),
          evaluatedAt: now
        }
      })

    return { explain }
  }),
  dependencies: [AccessEvaluator.Default, AccessRepo.Default, SpacesRepo.Default, ResourceResolvers.Default, ResourceLabels.Default, AuthorizationGeneration.Default]
}) {}
