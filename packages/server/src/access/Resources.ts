import { Effect } from "effect"
import type { Classification } from "../domain/Model"

export type ResourceType = "KNOWLEDGE_SPACE" | "KNOWLEDGE_ASSET" | "SOURCE" | "ASSET"

/** A resource as the access model sees it: which space governs it, how sensitive it is, its source ACL. */
export interface GovernedResource {
  readonly id: string
  readonly type: ResourceType
  readonly label: string
  readonly contextLabel: string
  readonly knowledgeSpaceId: string
  readonly classification: Classification | null
  /** Source-principal keys allowed by the item's source ACL; null when it came without one. */
  readonly aclKeys: ReadonlyArray<string> | null
}

export type Resolver = (organizationId: string, id: string) => Effect.Effect<GovernedResource | undefined>

/**
 * Where the explanation finds resources of each type. Each area registers its own resolver when its
 * layer starts (spaces here; knowledge assets and sources in knowledge/; assets in assets/).
 */
export class ResourceResolvers extends Effect.Service<ResourceResolvers>()("lore/ResourceResolvers", {
  sync: () => {
    const resolvers = new Map<ResourceType, Resolver>()
    return {
      register: (type: ResourceType, resolver: Resolver) => Effect.sync(() => void resolvers.set(type, resolver)),
      resolve: (type: ResourceType, organizationId: string, id: string) => {
        const resolver = resolvers.get(type)
        return resolver ? resolver(organizationId, id) : Effect.succeed(undefined)
      }
    }
  }
}) {}
