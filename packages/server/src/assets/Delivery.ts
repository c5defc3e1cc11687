import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { transactional } from "../db/Sql"
import { classificationRank } from "../domain/Model"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { AssetReader } from "./AssetReader"
import { AssetsRepo, type ReleaseRow } from "./AssetsRepo"
import { DeliveryRepo } from "./DeliveryRepo"
import { InvalidVariables, PackItemInaccessible, PackItemNotFound, ReleaseNotFound, ReleaseWithdrawn, WrongAssetType } from "./Errors"
import { type PackItemSpec, storedBody } from "./Payloads"
import { renderPrompt } from "./Render"

type DeliveredType = "PROMPT_TEMPLATE" | "WORK_INSTRUCTION" | "CAPABILITY_PACK"

/**
 * Delivery of released versions to the people who use them: work instructions (and acknowledging them),
 * capability packs (definition, the caller's journey, progress), prompt rendering. The order of checks is
 * fixed: the asset and release must be visible (404), then of the right type (409), then available (410).
 */
export class Delivery extends Effect.Service<Delivery>()("lore/AssetDelivery", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const reader = yield* AssetReader
    const repo = yield* DeliveryRepo
    const assets = yield* AssetsRepo
    const audit = yield* Audit

    const deliverable = <T extends DeliveredType>(caller: Principal, assetId: string, releaseId: string, type: T) =>
      Effect.gen(function* () {
        const { parts, clearanceRank } = yield* reader.load(caller, assetId)
        const release = parts.releases.find((r) => r.id === releaseId && classificationRank[r.classification] <= clearanceRank)
        if (!release) return yield* new ReleaseNotFound({ detail: "The asset has no release with this id that you may see" })
        if (parts.asset.type !== type) return yield* new WrongAssetType({ detail: `This is a ${parts.asset.type}, not a ${type}` })
        if (release.availability !== "AVAILABLE") return yield* new ReleaseWithdrawn({ detail: `Release ${release.versionLabel} was withdrawn (${release.availability})` })
        return { asset: parts.asset, release, body: storedBody(type, release.schemaVersion, release.payload) }
      })

    const workInstruction = (caller: Principal, assetId: string, releaseId: string) =>
      Effect.gen(function* () {
        const { release, body } = yield* deliverable(caller, assetId, releaseId, "WORK_INSTRUCTION")
        const acknowledged = yield* repo.acknowledgement(release.id, caller.userId)
        return {
          assetId,
          releaseId: release.id,
          releaseDigest: release.digest,
          title: release.title,
          versionLabel: release.versionLabel,
          instruction: body,
          acknowledged: acknowledged !== undefined,
          acknowledgedAt: acknowledged?.acknowledgedAt ?? null
        }
      })

    const acknowledge = (caller: Principal, assetId: string, releaseId: string) =>
      Effect.gen(function* () {
        const { release } = yield* deliverable(caller, assetId, releaseId, "WORK_INSTRUCTION")
        yield* transaction(
          Effect.zipRight(
            repo.acknowledge(release.id, caller.userId),
            audit.record(caller, { action: "asset.work_instruction.acknowledge", resourceType: "asset", resourceId: assetId, details: { releaseId, versionLabel: release.versionLabel } })
          )
        )
        return yield* workInstruction(caller, assetId, releaseId)
      })

    /** Each item of a pack as the caller may use it: accessible only when they may read it and it is available. */
    const resolveItems = (caller: Principal, items: ReadonlyArray<PackItemSpec>, clearanceRank: number) =>
      Effect.gen(function* () {
        const visible = yield* reader.predicate(caller)
        const ordered = [...items].sort((a, b) => a.order - b.order || (a.itemKey < b.itemKey ? -1 : 1))
        return yield* Effect.forEach(ordered, (item) =>
          Effect.gen(function* () {
            const base = { key: item.itemKey, title: item.title, required: item.required, order: item.order, kind: item.kind }
            if (item.kind === "ASSET_RELEASE") {
              const found = yield* assets.visibleAsset(caller.organizationId, item.assetId!, visible).pipe(
                Effect.flatMap((asset) => (asset ? repo.itemRelease(caller.organizationId, item.assetId!, item.releaseId!, visible) : Effect.succeed(undefined)))
              )
              const readable = found !== undefined && classificationRank[found.classification] <= clearanceRank
              return {
                ...base,
                resourceId: item.assetId!,
                pinnedVersionId: item.releaseId ?? null,
                title: readable ? found.title : item.title,
                versionLabel: readable ? found.versionLabel : null,
                availability: readable ? found.availability : null,
                accessible: readable && found.availability === "AVAILABLE"
              }
            }
            const version = yield* repo.knowledgeVersion(caller.organizationId, item.knowledgeAssetId!, item.versionNumber!, visible)
            return {
              ...base,
              resourceId: item.knowledgeAssetId!,
              pinnedVersionId: version?.id ?? null,
              title: version ? version.title : item.title,
              versionLabel: version ? `v${version.versionNumber}` : null,
              availability: version ? (version.deletedAt === null ? "AVAILABLE" as const : "WITHDRAWN" as const) : null,
              accessible: version !== undefined && version.deletedAt === null
            }
          }), { concurrency: 1 })
      })

    const packHeader = (release: ReleaseRow, body: ReturnType<typeof storedBody<"CAPABILITY_PACK">>) => ({
      packAssetId: release.assetId,
      packReleaseId: release.id,
      releaseDigest: release.digest,
      title: release.title,
      versionLabel: release.versionLabel,
      purpose: body.purpose,
      audience: body.audience,
      expectedOutcome: body.expectedOutcome
    })

    const packDefinition = (caller: Principal, assetId: string, releaseId: string) =>
      Effect.gen(function* () {
        const { release, body } = yield* deliverable(caller, assetId, releaseId, "CAPABILITY_PACK")
        const { clearanceRank } = yield* reader.load(caller, assetId)
        const items = yield* resolveItems(caller, body.items, clearanceRank)
        const owner = yield* assets.user(caller.organizationId, body.ownerUserId)
        return {
          ...packHeader(release, body),
          prerequisites: body.prerequisites,
          completionCriteria: body.completionCriteria,
          reviewDate: body.reviewDate,
          owner: owner?.name ?? "",
          ownerUserId: body.ownerUserId,
          accessGap: items.some((item) => !item.accessible),
          items
        }
      })

    /** The caller's journey (started on first use): completion per item, COMPLETED once every required item is done. */
    const journeyOf = (caller: Principal, assetId: string, releaseId: string, change?: { itemKey: string; completed: boolean }) =>
      Effect.gen(function* () {
        const { release, body } = yield* deliverable(caller, assetId, releaseId, "CAPABILITY_PACK")
        const { clearanceRank } = yield* reader.load(caller, assetId)
        const items = yield* resolveItems(caller, body.items, clearanceRank)
        if (change) {
          const item = items.find((i) => i.key === change.itemKey)
          if (!item) return yield* new PackItemNotFound({ detail: "The pack has no item with this key" })
          if (!item.accessible) return yield* new PackItemInaccessible({ detail: "This item is withdrawn or not readable by you; it cannot be completed" })
        }
        return yield* transaction(
          Effect.gen(function* () {
            const journey = yield* repo.journey(release.id, caller.userId)
            if (change) {
              yield* change.completed ? repo.complete(journey.id, change.itemKey) : repo.uncomplete(journey.id, change.itemKey)
              yield* audit.record(caller, { action: "asset.pack.progress", resourceType: "asset", resourceId: assetId, details: { releaseId, itemKey: change.itemKey, completed: change.completed } })
            }
            const done = new Map((yield* repo.progress(journey.id)).map((p) => [p.itemKey, p.completedAt]))
            const complete = items.filter((i) => i.required).every((i) => i.accessible && done.has(i.key))
            if (complete !== (journey.completedAt !== null)) yield* repo.setJourneyCompleted(journey.id, complete)
            const completedAt = complete ? journey.completedAt ?? new Date() : null
            return {
              assignmentId: journey.id,
              ...packHeader(release, body),
              status: complete ? "COMPLETED" as const : "IN_PROGRESS" as const,
              accessGap: items.some((i) => !i.accessible),
              completedAccessibleItems: items.filter((i) => i.accessible && done.has(i.key)).length,
              items: items.map((i) => ({ ...i, completed: done.has(i.key), completedAt: done.get(i.key) ?? null })),
              startedAt: journey.startedAt,
              completedAt
            }
          })
        )
      })

    /** Renders a released prompt for the caller's variables; the audit records the input's shape, never a value. */
    const render = (caller: Principal, assetId: string, releaseId: string, variables: Readonly<Record<string, unknown>>) =>
      Effect.gen(function* () {
        const { release, body } = yield* deliverable(caller, assetId, releaseId, "PROMPT_TEMPLATE")
        const outcome = renderPrompt(body, release.digest, variables)
        if (!outcome.ok) return yield* new InvalidVariables({ detail: "The variables do not fit the template", errors: [...outcome.errors] })
        yield* audit.record(caller, {
          action: "asset.prompt.render",
          resourceType: "asset",
          resourceId: assetId,
          details: { releaseId, versionLabel: release.versionLabel, inputShapeDigest: outcome.inputShapeDigest, variableNames: Object.keys(variables).sort() }
        })
        return {
          assetId,
          releaseId,
          releaseDigest: release.digest,
          systemInstruction: outcome.systemInstruction,
          userPrompt: outcome.userPrompt,
          sensitiveVariables: [...outcome.sensitiveVariables],
          inputShapeDigest: outcome.inputShapeDigest
        }
      })

    return {
      deliverable,
      workInstruction,
      acknowledge,
      packDefinition,
      // Reading the journey changes no item, so the item errors cannot occur.
      packJourney: (caller: Principal, assetId: string, releaseId: string) =>
        journeyOf(caller, assetId, releaseId).pipe(Effect.catchTags({ PackItemNotFound: Effect.die, PackItemInaccessible: Effect.die })),
      packProgress: (caller: Principal, assetId: string, releaseId: string, itemKey: string, completed: boolean) => journeyOf(caller, assetId, releaseId, { itemKey, completed }),
      render
    }
  }),
  dependencies: [AssetReader.Default, DeliveryRepo.Default, AssetsRepo.Default, Audit.Default]
}) {}
