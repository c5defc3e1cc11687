import { Effect } from "effect"
import { AccessEvaluator } from "../access/Evaluator"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { AssetsRepo } from "./AssetsRepo"
import { AssetRoleRequired, LockVersionConflict } from "./Errors"
import { mayManagePolicy } from "./Policy"
import { AssetReader } from "./AssetReader"

/** The policy a space's assets follow when it has none of its own: one approval, no direct releases. */
export const defaultPolicy = { requiredApprovals: 1, directReleaseAllowed: false, version: 0 }

/** `policyVersion` as reviews record it: which space policy, at which version, applied. */
const policyVersionOf = (spaceId: string, version: number) => (version === 0 ? "default" : `${spaceId}@${version}`)

/** Per-space asset policies: how many approvals a review needs, whether direct releases are allowed. */
export class SpacePolicies extends Effect.Service<SpacePolicies>()("lore/SpacePolicies", {
  effect: Effect.gen(function* () {
    const repo = yield* AssetsRepo
    const evaluator = yield* AccessEvaluator
    const reader = yield* AssetReader
    const audit = yield* Audit

    const effective = (spaceId: string) =>
      Effect.map(repo.policy(spaceId), (row) => {
        const policy = row ?? defaultPolicy
        return {
          knowledgeSpaceId: spaceId,
          requiredApprovals: policy.requiredApprovals,
          directReleaseAllowed: policy.directReleaseAllowed,
          version: policy.version,
          policyVersion: policyVersionOf(spaceId, policy.version)
        }
      })

    const visibleSpace = (caller: Principal, spaceId: string) =>
      Effect.gen(function* () {
        const viewable = yield* evaluator.spacesWith(caller, "viewer")
        if (!viewable.some((space) => space.id === spaceId)) return yield* new KnowledgeSpaceNotFound({ detail: "No knowledge space with this id that you may see" })
      })

    return {
      effective,
      get: (caller: Principal, spaceId: string) => Effect.zipRight(visibleSpace(caller, spaceId), effective(spaceId)),
      set: (caller: Principal, spaceId: string, input: { requiredApprovals: number; directReleaseAllowed: boolean; version: number }) =>
        Effect.gen(function* () {
          yield* visibleSpace(caller, spaceId)
          if (!mayManagePolicy(yield* reader.relationOn(caller, spaceId))) {
            return yield* new AssetRoleRequired({ detail: "Only managers of the knowledge space change its asset policy" })
          }
          const written = yield* repo.setPolicy(spaceId, input.requiredApprovals, input.directReleaseAllowed, input.version, caller.userId)
          if (!written) return yield* new LockVersionConflict({ detail: "The policy changed since the version you sent; read it again" })
          yield* audit.record(caller, {
            action: "asset_policy.update",
            resourceType: "knowledge_space",
            resourceId: spaceId,
            details: { requiredApprovals: input.requiredApprovals, directReleaseAllowed: input.directReleaseAllowed, version: written.version }
          })
          return yield* effective(spaceId)
        })
    }
  }),
  dependencies: [AssetsRepo.Default, AccessEvaluator.Default, AssetReader.Default, Audit.Default]
}) {}
