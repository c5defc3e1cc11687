import { Effect, Layer } from "effect"
import { holds } from "../domain/Permissions"
import type { Principal } from "../domain/Principal"
import { AuditLabels, type AuditedResource, type AuditedResourceView } from "../platform/AuditLabels"
import { AccessEvaluator, admits, type ReadScope } from "./Evaluator"
import { type GovernedResource, ResourceResolvers, type ResourceType } from "./Resources"

/** The audit's names of the resource types the access model governs. */
const governedAuditTypes: Record<string, ResourceType> = {
  knowledge_space: "KNOWLEDGE_SPACE",
  knowledge_asset: "KNOWLEDGE_ASSET",
  source: "SOURCE",
  asset: "ASSET"
}

/**
 * Which labels of resources a caller may see. A label (a document's title) is content: holding
 * access.explain or audit.read does not make it readable. So a governed resource's label is shown only when
 * the caller may read the resource themselves, by the evaluator's rules; a knowledge space's name also to
 * whoever may list every space (spaces.read), since they see it there anyway.
 */
export class ResourceLabels extends Effect.Service<ResourceLabels>()("lore/ResourceLabels", {
  effect: Effect.gen(function* () {
    const evaluator = yield* AccessEvaluator
    const resolvers = yield* ResourceResolvers

    const spaceNameVisible = (caller: Principal, scope: ReadScope, spaceId: string) =>
      holds(caller, "spaces.read") || scope.spaceIds.includes(spaceId)

    const labelVisible = (caller: Principal, scope: ReadScope, resource: GovernedResource) =>
      resource.type === "KNOWLEDGE_SPACE" ? spaceNameVisible(caller, scope, resource.id) : admits(scope, resource)

    /** The labels for one caller, with their read scope computed once (and only if a governed resource needs it). */
    const forCaller = (caller: Principal) =>
      Effect.map(Effect.cached(evaluator.readScope(caller)), (scope) => ({
        labelVisible: (resource: GovernedResource) => Effect.map(scope, (s) => labelVisible(caller, s, resource)),
        spaceNameVisible: (spaceId: string) => Effect.map(scope, (s) => spaceNameVisible(caller, s, spaceId))
      }))

    /**
     * For the audit trail. A governed resource that is gone is withheld (nobody can tell any more whether the
     * reader could have read it), except a space's name from whoever may list every space.
     */
    const labelsFor = (caller: Principal, resources: ReadonlyArray<AuditedResource>) =>
      Effect.gen(function* () {
        const view = yield* forCaller(caller)
        const viewOf = (resourceType: string, resourceId: string): Effect.Effect<AuditedResourceView> => {
          const governed = governedAuditTypes[resourceType]
          if (!governed) return Effect.map(resolvers.label(resourceType, caller, resourceId), (label) => ({ label, withheld: false }))
          return Effect.gen(function* () {
            const resource = yield* resolvers.resolve(governed, caller.organizationId, resourceId)
            const visible = resource
              ? yield* view.labelVisible(resource)
              : governed === "KNOWLEDGE_SPACE" && holds(caller, "spaces.read")
            return { label: visible && resource ? resource.label : null, withheld: !visible }
          })
        }
        // One lookup per distinct resource: a page often holds many events of one resource.
        const distinct = new Map<string, Effect.Effect<AuditedResourceView>>()
        for (const { resourceType, resourceId } of resources) {
          const key = `${resourceType}:${resourceId}`
          if (resourceId !== null && !distinct.has(key)) distinct.set(key, yield* Effect.cached(viewOf(resourceType, resourceId)))
        }
        return yield* Effect.forEach(resources, ({ resourceType, resourceId }) =>
          resourceId === null ? Effect.succeed({ label: null, withheld: false }) : distinct.get(`${resourceType}:${resourceId}`)!)
      })

    return { forCaller, labelsFor }
  }),
  dependencies: [AccessEvaluator.Default, ResourceResolvers.Default]
}) {}

/** The audit trail's labels, from this area (platform/ declares the need, access fills it). */
export const AuditLabelsLive = Layer.effect(AuditLabels, Effect.map(ResourceLabels, (labels) => ({ labelsFor: labels.labelsFor })))
