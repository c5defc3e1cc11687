import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { KnowledgeSpaceNotFound } from "../../access/Errors"
import { Classification } from "../../domain/Model"
import { Body, created, IntegerParam, Query } from "../../domain/Schemas"
import { FieldError, PayloadTooLarge, ValidationFailed } from "../../domain/Errors"
import { authenticated } from "../../domain/Security"
import { ClassificationAboveClearance, NotAContributor } from "../../knowledge/Errors"
import { Asset, PublicationMode, ReleaseBody } from "../Api"
import {
  AssetNotFound, AssetRoleRequired, AssetSlugTaken, InvalidSkillPackage, InvalidVersionLabel, LockVersionConflict, ReleaseNotAvailable, ReleaseNotFound,
  ReleaseWithdrawn, RepositoryFetchFailed, RepositoryRefused, RevisionAlreadyReleased, RevisionNotApproved, RevisionNotFound, VersionNotGreater, WrongAssetType
} from "../Errors"

export const SkillFile = Schema.Struct({
  path: Schema.String.annotations({ description: "Relative to the skill's folder (SKILL.md, scripts/run.py)" }),
  size: Schema.Int,
  sha256: Schema.String.annotations({ description: "Lowercase hex sha256 of the file's bytes" })
}).annotations({ identifier: "SkillFile" })

const skillFields = {
  name: Schema.String,
  description: Schema.String,
  license: Schema.NullOr(Schema.String),
  compatibility: Schema.NullOr(Schema.String),
  allowedTools: Schema.NullOr(Schema.String).annotations({ description: "The frontmatter's allowed-tools, as written" }),
  metadata: Schema.Record({ key: Schema.String, value: Schema.String })
}

export const SkillInspection = Schema.Struct({
  ...skillFields,
  instructions: Schema.String.annotations({ description: "SKILL.md after its frontmatter" }),
  sha256: Schema.String.annotations({ description: "sha256: + hex of the canonical package Lore would store (the same files always give the same digest)" }),
  contentLength: Schema.Int.annotations({ description: "Bytes of the canonical package" }),
  files: Schema.Array(SkillFile)
}).annotations({ identifier: "SkillInspection" })

export const SkillManifest = Schema.Struct({
  assetId: Schema.UUID,
  releaseId: Schema.UUID,
  namespace: Schema.String,
  slug: Schema.String,
  coordinate: Schema.String.annotations({ description: "namespace/slug@version" }),
  version: Schema.String,
  publicationMode: PublicationMode,
  title: Schema.String,
  description: Schema.String,
  releaseDigest: Schema.String,
  packageDigest: Schema.String.annotations({ description: "sha256: + hex of the package's bytes (the skill-package download's ETag)" }),
  packageLength: Schema.Int,
  mediaType: Schema.String,
  license: Schema.NullOr(Schema.String),
  compatibility: Schema.NullOr(Schema.String),
  allowedTools: Schema.NullOr(Schema.String),
  metadata: Schema.Record({ key: Schema.String, value: Schema.String }),
  files: Schema.Array(SkillFile)
}).annotations({ identifier: "SkillManifest" })

export const SkillActivation = Schema.Struct({
  assetId: Schema.UUID,
  enabled: Schema.Boolean.annotations({ description: "Whether the caller has the skill turned on" })
}).annotations({ identifier: "SkillActivation" })

export const RepoVisibility = Schema.Literal("PUBLIC", "PRIVATE").annotations({ identifier: "RepoVisibility", description: "PRIVATE when fetched with a credential" })

export const RepoPreviewSkill = Schema.Struct({
  path: Schema.String.annotations({ description: "The skill's folder relative to the repository root (skills/pdf); '.' for the root" }),
  importable: Schema.Boolean,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  fileCount: Schema.Int,
  errorCode: Schema.NullOr(Schema.String).annotations({ description: "The first broken rule's code (as in INVALID_SKILL_PACKAGE's errors[])" }),
  errorMessage: Schema.NullOr(Schema.String),
  errors: Schema.Array(FieldError).annotations({ description: "Every broken rule, each with its code" })
}).annotations({ identifier: "RepoPreviewSkill" })

export const RepoPreview = Schema.Struct({
  repository: Schema.String,
  revision: Schema.String.annotations({ description: "The commit id that was read" }),
  visibility: RepoVisibility,
  skills: Schema.Array(RepoPreviewSkill)
}).annotations({ identifier: "RepoPreview" })

export const RepoImportSkill = Schema.Struct({
  path: Schema.String,
  imported: Schema.Boolean.annotations({ description: "An asset was created or its draft replaced" }),
  asset: Schema.NullOr(Asset).annotations({ description: "The asset (also when UNCHANGED); null when the path could not be imported" }),
  errorCode: Schema.NullOr(Schema.String).annotations({ description: "UNCHANGED when the draft holds this package already; else why the path was not imported" }),
  errorMessage: Schema.NullOr(Schema.String)
}).annotations({ identifier: "RepoImportSkill" })

export const RepoImport = Schema.Struct({
  repository: Schema.String,
  revision: Schema.String,
  visibility: RepoVisibility,
  skills: Schema.Array(RepoImportSkill)
}).annotations({ identifier: "RepoImport" })

const Repository = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000)).annotations({ description: "https://host/owner/repo(.git), or file:///path where allowed" })
const Revision = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)).annotations({ description: "A branch, tag or commit; default the remote's HEAD" })
export const RepositoryCredential = Schema.Struct({
  username: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  token: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4000)).annotations({ description: "Write-only: used for this fetch, never stored, logged or echoed" })
}).annotations({ identifier: "RepositoryCredential" })

export const RepoPreviewBody = Body({
  repository: Repository,
  knowledgeSpaceId: Schema.UUID,
  revision: Schema.optional(Revision),
  credential: Schema.optional(RepositoryCredential)
}).annotations({ identifier: "RepoPreviewInput" })

const Namespace = Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9._-]{0,62}$/, { message: () => "must be lower-case letters, digits, '.', '_' or '-' (at most 63), starting with a letter or digit" }))

const DefaultSpace = "default: the caller's only upload target (400 naming knowledgeSpaceId when they have none or several)"
const DefaultNamespace = "default: the knowledge space's key"

export const RepoImportBody = Body({
  source: Schema.Struct({
    repository: Repository,
    knowledgeSpaceId: Schema.optional(Schema.UUID.annotations({ description: `The space the skills are created in; ${DefaultSpace}` })),
    revision: Schema.optional(Revision),
    credential: Schema.optional(RepositoryCredential)
  }).annotations({ identifier: "RepoSource" }),
  paths: Schema.optional(
    Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))).pipe(Schema.minItems(1), Schema.maxItems(200)).annotations({
      description: "The skill folders to import; default every folder holding a SKILL.md, the ones that break a rule reported with imported false and their errorCode"
    })
  ),
  namespace: Schema.optional(Namespace.annotations({ description: DefaultNamespace })),
  classification: Schema.optionalWith(Classification, { default: () => "INTERNAL" as const })
}).annotations({ identifier: "RepoImportInput" })

export const SkillUploadQuery = Query({
  namespace: Schema.optional(Namespace.annotations({ description: DefaultNamespace })),
  knowledgeSpaceId: Schema.optional(Schema.UUID.annotations({ description: `The space the skill is created in; ${DefaultSpace}` })),
  classification: Schema.optionalWith(Classification, { default: () => "INTERNAL" as const })
})
const DraftQuery = Query({ expectedLockVersion: Schema.optional(IntegerParam(1, Number.MAX_SAFE_INTEGER)) })
export const ActivationBody = Body({ enabled: Schema.Boolean }).annotations({ identifier: "SkillActivationInput" })

const SkillUpload = HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema }))
const PackageContent = HttpApiSchema.withEncoding(Schema.Uint8ArrayFromSelf, { kind: "Uint8Array", contentType: "application/zip" })
const AssetPath = Schema.Struct({ assetId: Schema.UUID })
const ReleasePath = Schema.Struct({ assetId: Schema.UUID, releaseId: Schema.UUID })

export class SkillsApi extends HttpApiGroup.make("skills")
  .add(
    HttpApiEndpoint.post("inspectSkill", "/assets/skills/inspections")
      .setPayload(SkillUpload)
      .addSuccess(SkillInspection)
      .addError(InvalidSkillPackage)
      .addError(PayloadTooLarge)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("createSkill", "/assets/skills")
      .setUrlParams(SkillUploadQuery)
      .setPayload(SkillUpload)
      .addSuccess(created(Asset))
      .addError(InvalidSkillPackage)
      .addError(PayloadTooLarge)
      .addError(KnowledgeSpaceNotFound)
      .addError(NotAContributor)
      .addError(ClassificationAboveClearance)
      .addError(AssetSlugTaken)
      .addError(AssetNotFound)
      .addError(ValidationFailed)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.put("updateSkillDraft", "/assets/:assetId/skill-draft")
      .setPath(AssetPath)
      .setUrlParams(DraftQuery)
      .setPayload(SkillUpload)
      .addSuccess(Asset)
      .addError(AssetNotFound)
      .addError(WrongAssetType)
      .addError(AssetRoleRequired)
      .addError(ClassificationAboveClearance)
      .addError(LockVersionConflict)
      .addError(InvalidSkillPackage)
      .addError(PayloadTooLarge)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("releaseSkill", "/assets/:assetId/skill-releases")
      .setPath(AssetPath)
      .setPayload(ReleaseBody)
      .addSuccess(created(Asset))
      .addError(AssetNotFound)
      .addError(WrongAssetType)
      .addError(RevisionNotFound)
      .addError(AssetRoleRequired)
      .addError(InvalidVersionLabel)
      .addError(RevisionNotApproved)
      .addError(RevisionAlreadyReleased)
      .addError(VersionNotGreater)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getSkillManifest", "/assets/:assetId/releases/:releaseId/skill-manifest")
      .setPath(ReleasePath)
      .addSuccess(SkillManifest)
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(WrongAssetType)
      .addError(ReleaseWithdrawn)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getSkillPackage", "/assets/:assetId/releases/:releaseId/skill-package")
      .setPath(ReleasePath)
      .addSuccess(PackageContent.annotations({ description: "The canonical package (application/zip); ETag is the quoted packageDigest" }))
      .addError(AssetNotFound)
      .addError(ReleaseNotFound)
      .addError(WrongAssetType)
      .addError(ReleaseWithdrawn)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getSkillActivation", "/assets/:assetId/skill-activation")
      .setPath(AssetPath)
      .addSuccess(SkillActivation)
      .addError(AssetNotFound)
      .addError(WrongAssetType)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.put("setSkillActivation", "/assets/:assetId/skill-activation")
      .setPath(AssetPath)
      .setPayload(ActivationBody)
      .addSuccess(SkillActivation)
      .addError(AssetNotFound)
      .addError(WrongAssetType)
      .addError(ReleaseNotAvailable)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("previewSkillRepository", "/assets/skills/repo/preview")
      .setPayload(RepoPreviewBody)
      .addSuccess(RepoPreview)
      .addError(KnowledgeSpaceNotFound)
      .addError(RepositoryRefused)
      .addError(RepositoryFetchFailed)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("importSkillRepository", "/assets/skills/repo/import")
      .setPayload(RepoImportBody)
      .addSuccess(RepoImport)
      .addError(ValidationFailed)
      .addError(KnowledgeSpaceNotFound)
      .addError(NotAContributor)
      .addError(RepositoryRefused)
      .addError(RepositoryFetchFailed)
      .pipe(authenticated)
  )
  .annotate(OpenApi.Title, "Skills")
  .annotate(OpenApi.Description, "Agent Skills packages as governed assets: inspection, upload, drafts, reviewed releases, manifests and packages, activation, import from git repositories") {}
