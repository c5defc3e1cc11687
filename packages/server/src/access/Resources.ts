import { Effect } from "effect"
import type { Classification } from "../domain/Model"
import type { Principal } from "../domain/Principal"

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
  /** Key sets the caller must each satisfy as well (an intersection); null or absent when none. */
  readonly aclAll?: ReadonlyArray<string> | null | undefined
}

export type Resolver = (organizationId: string, id: string) => Effect.Effect<GovernedResource | undefined>

/**
 * The label of a resource outside the access model (a user, a department), as `caller` may see it: the
 * registering area decides who may (typically by a permission), and answers null for anyone else or for a
 * resource that is gone.
 */
export type LabelResolver = (caller: Principal, id: string) => Effect.Effect<string | null>

/**
 * Where the explanation and the audit find resources. Each area registers its own resolvers when its
 * layer starts (spaces here; knowledge assets and sources in knowledge/; users and departments in identity/).
 * Governed resources are keyed by the explanation's ResourceType; other labels by the audit's resource type.
 */
export class ResourceResolvers extends Effect.Service<ResourceResolvers>()("lore/ResourceResolvers", {
  sync: () => {
    const resolvers = new Map<ResourceType, Resolver>()
    const labels = new Map<string, LabelResolver>()
    return {
      register: (type: ResourceType, resolver: Resolver) => Effect.sync(() => void resolvers.set(type, resolver)),
      resolve: (type: ResourceType, organizationId: string, id: string) => {
        const resolver = resolvers.get(type)
        return resolver ? resolver(organizationId, id) : Effect.succeed(undefined)
      },
      registerLabel: (auditType: string, resolver: LabelResolver) => Effect.sync(() => void labels.set(auditType, resolver)),
      label: (auditType: string, caller: Principal, id: string) => {
        const resolver = labels.get(auditType)
        return resolver ? resolver(caller, id) : Effect.succeed(null)
      }
    }
  }
}) {}
