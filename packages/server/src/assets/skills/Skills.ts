import { Effect } from "effect"
import { readFile, stat } from "node:fs/promises"
import { Settings } from "../../Config"
import { classificationRank, type Classification } from "../../domain/Model"
import { PayloadTooLarge } from "../../domain/Errors"
import type { Principal } from "../../domain/Principal"
import { Audit } from "../../platform/Audit"
import { AssetReader } from "../AssetReader"
import { Assets, roleRequired } from "../Assets"
import { AssetsRepo, type DraftContent, type ReleaseRow } from "../AssetsRepo"
import { InvalidSkillPackage, LockVersionConflict, ReleaseNotAvailable, ReleaseNotFound, ReleaseWithdrawn, WrongAssetType } from "../Errors"
import { Governance } from "../Governance"
import { mayEdit } from "../Policy"
import type { SkillProblem } from "./Archive"
import { ParsePool } from "../../parsing-pool/ParsePool"
import { inspectSkillZipOffThread } from "./Parsing"
import type { SkillInspection, ValidSkill } from "./Format"
import { SkillsRepo } from "./Repo"

export interface UploadedPackage {
  readonly path: string
}

/** Where an imported skill came from (kept in its payload). */
export interface SkillSource {
  readonly repository: string
  readonly path: string
  readonly revision: string
}

/** What a SKILL draft's payload holds: the inspection, and the repository it came from when imported. */
export interface SkillPayload extends SkillInspection {
  readonly source?: SkillSource | undefined
}

export const SKILL_SCHEMA_VERSION = "1"
export const SKILL_MEDIA_TYPE = "application/zip"

export const invalidPackage = (problems: ReadonlyArray<SkillProblem>) =>
  new InvalidSkillPackage({
    detail: `The skill package breaks ${problems.length} rule${problems.length === 1 ? "" : "s"}: ${problems.slice(0, 3).map((p) => p.code).join(", ")}${problems.length > 3 ? ", …" : ""}`,
    errors: problems.map((p) => ({ path: p.path, message: p.message, code: p.code }))
  })

/** A SKILL draft's content, from a validated package. */
export const skillDraft = (inspection: SkillInspection, classification: Classification, source?: SkillSource): DraftContent => ({
  title: inspection.name,
  summary: [...inspection.description].slice(0, 2000).join(""),
  classification,
  schemaVersion: SKILL_SCHEMA_VERSION,
  payload: JSON.stringify(source ? { ...inspection, source } : inspection)
})

export const skillPayload = (payload: string): SkillPayload => JSON.parse(payload) as SkillPayload

/**
 * Skills: Agent Skills packages as SKILL assets. Uploads are inspected (nothing stored), create an asset with
 * its draft or replace the draft; releases go through the same review policy as every asset; released versions
 * are delivered as a manifest and the canonical package, whose digest clients verify.
 */
export class Skills extends Effect.Service<Skills>()("lore/Skills", {
  effect: Effect.gen(function* () {
    const settings = yield* Settings
    const reader = yield* AssetReader
    const assets = yield* Assets
    const assetsRepo = yield* AssetsRepo
    const governance = yield* Governance
    const repo = yield* SkillsRepo
    const audit = yield* Audit
    const parsePool = yield* ParsePool
    const limits = settings.skillLimits
    const maxUploadBytes = settings.maxUploadBytes

    /**
     * Reads an uploaded package and validates it in a parse worker (off the event loop, under LORE_PARSE_TIMEOUT);
     * 413 over the upload limit, 422 with every broken rule (PARSE_TIMEOUT among them when the parse overran).
     */
    const validUpload = (file: UploadedPackage) =>
      Effect.gen(function* () {
        const size = (yield* Effect.promise(() => stat(file.path))).size
        if (size > maxUploadBytes) return yield* new PayloadTooLarge({ detail: `Skill packages are limited to ${maxUploadBytes} bytes` })
        const bytes = new Uint8Array(yield* Effect.promise(() => readFile(file.path)))
        const checked = yield* inspectSkillZipOffThread(parsePool, bytes, limits)
        if (!checked.ok) return yield* invalidPackage(checked.problems)
        return checked.skill
      })

    const inspect = (_caller: Principal, file: UploadedPackage) => Effect.map(validUpload(file), (skill) => skill.inspection)

    const store = (skill: ValidSkill) => repo.insertPackage(skill.inspection.sha256, skill.packageBytes)

    /** A new SKILL asset `namespace/<name>` with the package as its draft. */
    const createFrom = (caller: Principal, input: { namespace: string; knowledgeSpaceId: string; classification: Classification }, skill: ValidSkill, source?: SkillSource) =>
      Effect.gen(function* () {
        yield* store(skill)
        return yield* assets.create(
          caller,
          { type: "SKILL", namespace: input.namespace, slug: skill.inspection.name, knowledgeSpaceId: input.knowledgeSpaceId, draft: skillDraft(skill.inspection, input.classification, source) },
          null,
          true
        ).pipe(Effect.catchTag("InvalidAssetContent", Effect.die))
      })

    const create = (caller: Principal, input: { namespace: string; knowledgeSpaceId: string; classification: Classification }, file: UploadedPackage) =>
      Effect.flatMap(validUpload(file), (skill) => createFrom(caller, input, skill))

    /** Replaces a SKILL draft with a package of the same name; `expectedLockVersion` guards against lost updates. */
    const replaceDraft = (caller: Principal, assetId: string, expectedLockVersion: number | undefined, skill: ValidSkill, source?: SkillSource) =>
      Effect.gen(function* () {
        const { parts, standing } = yield* reader.load(caller, assetId)
        if (parts.asset.type !== "SKILL") return yield* new WrongAssetType({ detail: `This is a ${parts.asset.type}, not a SKILL` })
        if (!mayEdit(standing)) return yield* roleRequired("Editing a draft takes EDITOR, OWNER or BACKUP_OWNER on the asset and contributor on its space")
        if (skill.inspection.name !== parts.asset.slug) {
          return yield* invalidPackage([{ code: "NAME_SLUG_MISMATCH", path: "SKILL.md#name", message: `name must stay ${parts.asset.slug}, the asset's slug` }])
        }
        const classification = parts.asset.classification
        yield* assets.withinClearance(caller, classification)
        yield* store(skill)
        const content = skillDraft(skill.inspection, classification, source)
        yield* assets.transaction(
          Effect.gen(function* () {
            const lockVersion = expectedLockVersion ?? parts.asset.lockVersion
            const updated = yield* assetsRepo.updateDraft(assetId, lockVersion, content, classificationRank[classification], caller.userId)
            if (!updated) return yield* new LockVersionConflict({ detail: "The draft changed since the lockVersion you sent; read it again" })
            yield* audit.record(caller, {
              action: "asset.skill.draft.update",
              resourceType: "asset",
              resourceId: assetId,
              details: { lockVersion: updated.lockVersion, packageDigest: skill.inspection.sha256, ...(source ? { source } : {}) }
            })
          })
        )
        return yield* assets.present(caller, assetId)
      })

    const updateDraft = (caller: Principal, assetId: string, expectedLockVersion: number | undefined, file: UploadedPackage) =>
      Effect.gen(function* () {
        // Who may see and edit the asset is decided before the upload is looked at.
        const { parts } = yield* reader.load(caller, assetId)
        if (parts.asset.type !== "SKILL") return yield* new WrongAssetType({ detail: `This is a ${parts.asset.type}, not a SKILL` })
        return yield* replaceDraft(caller, assetId, expectedLockVersion, yield* validUpload(file))
      })

    /** Releases an approved revision of a SKILL (the asset review policy applies, as for every asset). */
    const release = (caller: Principal, assetId: string, input: { revisionId: string; versionLabel: string }) =>
      Effect.gen(function* () {
        const { parts } = yield* reader.load(caller, assetId)
        if (parts.asset.type !== "SKILL") return yield* new WrongAssetType({ detail: `This is a ${parts.asset.type}, not a SKILL` })
        return yield* governance.release(caller, assetId, input)
      })

    /** A released version the caller may see, of a SKILL, still available: 404, 409, 410 in that order. */
    const released = (caller: Principal, assetId: string, releaseId: string) =>
      Effect.gen(function* () {
        const { parts, clearanceRank } = yield* reader.load(caller, assetId)
        const found: ReleaseRow | undefined = parts.releases.find((r) => r.id === releaseId && classificationRank[r.classification] <= clearanceRank)
        if (!found) return yield* new ReleaseNotFound({ detail: "The asset has no release with this id that you may see" })
        if (parts.asset.type !== "SKILL") return yield* new WrongAssetType({ detail: `This is a ${parts.asset.type}, not a SKILL` })
        if (found.availability !== "AVAILABLE") return yield* new ReleaseWithdrawn({ detail: `Release ${found.versionLabel} was withdrawn (${found.availability})` })
        return { asset: parts.asset, release: found, payload: skillPayload(found.payload) }
      })

    const manifest = (caller: Principal, assetId: string, releaseId: string) =>
      Effect.map(released(caller, assetId, releaseId), ({ asset, release, payload }) => ({
        assetId,
        releaseId,
        namespace: asset.namespace,
        slug: asset.slug,
        coordinate: `${asset.namespace}/${asset.slug}@${release.versionLabel}`,
        version: release.versionLabel,
        publicationMode: release.publicationMode,
        title: release.title,
        description: payload.description,
        releaseDigest: release.digest,
        packageDigest: payload.sha256,
        packageLength: payload.contentLength,
        mediaType: SKILL_MEDIA_TYPE,
        license: payload.license,
        compatibility: payload.compatibility,
        allowedTools: payload.allowedTools,
        metadata: payload.metadata,
        files: payload.files
      }))

    /** The released package's bytes (the canonical zip the manifest's packageDigest names). */
    const packageOf = (caller: Principal, assetId: string, releaseId: string) =>
      Effect.gen(function* () {
        const { asset, release, payload } = yield* released(caller, assetId, releaseId)
        const stored = yield* repo.packageBytes(payload.sha256)
        if (!stored) return yield* Effect.dieMessage(`skill package ${payload.sha256} of release ${release.id} is missing`)
        yield* audit.record(caller, { action: "asset.skill.download", resourceType: "asset", resourceId: assetId, details: { releaseId, versionLabel: release.versionLabel, packageDigest: payload.sha256 } })
        return { bytes: stored.content, digest: payload.sha256, fileName: `${asset.slug}-${release.versionLabel}.zip` }
      })

    /** The caller's own activation of a skill they may see (off until they turn it on). */
    const activation = (caller: Principal, assetId: string) =>
      Effect.gen(function* () {
        const { parts } = yield* reader.load(caller, assetId)
        if (parts.asset.type !== "SKILL") return yield* new WrongAssetType({ detail: `This is a ${parts.asset.type}, not a SKILL` })
        const found = yield* repo.activation(assetId, caller.userId)
        return { assetId, enabled: found?.enabled ?? false }
      })

    /** Turns the skill on or off for the caller; turning it on needs an available release they may read. */
    const setActivation = (caller: Principal, assetId: string, enabled: boolean) =>
      Effect.gen(function* () {
        const { parts, clearanceRank } = yield* reader.load(caller, assetId)
        if (parts.asset.type !== "SKILL") return yield* new WrongAssetType({ detail: `This is a ${parts.asset.type}, not a SKILL` })
        if (enabled && !parts.releases.some((r) => r.availability === "AVAILABLE" && classificationRank[r.classification] <= clearanceRank)) {
          return yield* new ReleaseNotAvailable({ detail: "The skill has no available release to activate" })
        }
        yield* assets.transaction(
          Effect.zipRight(
            repo.setActivation(assetId, caller.userId, enabled),
            audit.record(caller, { action: enabled ? "asset.skill.activate" : "asset.skill.deactivate", resourceType: "asset", resourceId: assetId })
          )
        )
        return { assetId, enabled }
      })

    return { inspect, create, createFrom, updateDraft, replaceDraft, release, manifest, packageOf, activation, setActivation, store }
  }),
  dependencies: [AssetReader.Default, Assets.Default, AssetsRepo.Default, Governance.Default, SkillsRepo.Default, Audit.Default, ParsePool.Default]
}) {}
