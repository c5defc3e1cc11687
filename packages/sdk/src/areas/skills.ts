import type { LoreFetchClient } from "../fetchClient"
import { download } from "../download"
import { LoreApiError } from "../errors"
import type { UploadProgress, UploadSource } from "../multipart"
import { encodedUpload } from "../upload"
import { unwrap } from "../response"
import type { Asset, Classification, ReleaseInput, RepoImport, RepoImportInput, RepoPreview, RepoPreviewInput, SkillActivation, SkillInspection, SkillManifest } from "../generated/openapi"
import type { Operation } from "../operations"

/** A skill package to send: a zip (SKILL.md at its root, or in one top folder named like the skill). */
export interface SkillPackageUpload {
  readonly file: UploadSource
  /** Default `skill.zip`. */
  readonly fileName?: string | undefined
  readonly size?: number | undefined
  readonly onProgress?: UploadProgress | undefined
  readonly signal?: AbortSignal | undefined
}

export interface SkillCreateOptions extends SkillPackageUpload {
  /** Default: the knowledge space's key. */
  readonly namespace?: string | undefined
  /** Default: the caller's only upload target (400 VALIDATION_FAILED naming knowledgeSpaceId when they have none or several). */
  readonly knowledgeSpaceId?: string | undefined
  /** Default INTERNAL. */
  readonly classification?: Classification | undefined
}

export interface SkillDraftOptions extends SkillPackageUpload {
  /** The draft's lockVersion you read; 409 LOCK_VERSION_CONFLICT when it moved on. Omitted: no check. */
  readonly expectedLockVersion?: number | undefined
}

/** A released package, checked against its manifest's digest. */
export interface SkillPackage {
  readonly bytes: Uint8Array
  /** `sha256:` + hex, computed here from the bytes received. */
  readonly digest: string
  /** The ETag the server sent (the quoted packageDigest). */
  readonly etag: string | null
}

type UploadPayload = NonNullable<Operation<"inspectSkill">["requestBody"]>["content"]["multipart/form-data"]

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("")

/** `sha256:` + hex of the bytes (Web Crypto: browsers and Node alike). */
export const packageDigest = async (bytes: Uint8Array): Promise<string> =>
  `sha256:${hex(await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>))}`

/**
 * Agent Skills (`lore.assets.skills`): inspect a package (nothing stored), create a SKILL asset from one, replace
 * its draft, release an approved revision, read a release's manifest, download its package (digest verified),
 * turn a skill on or off for yourself, and preview or import skills from a git repository.
 */
export class SkillsArea {
  constructor(private readonly client: LoreFetchClient) {}

  private upload(options: SkillPackageUpload) {
    return encodedUpload<UploadPayload>("lore.assets.skills", { ...options, fileName: options.fileName ?? "skill.zip", mediaType: "application/zip" })
  }

  /** Validates a package: its inspection, or 422 INVALID_SKILL_PACKAGE with one errors[] entry (and code) per broken rule. */
  async inspect(options: SkillPackageUpload): Promise<SkillInspection> {
    const { init, sent } = await this.upload(options)
    return sent(await unwrap(this.client.POST("/api/assets/skills/inspections", init)))
  }

  /** A new SKILL asset `namespace/<name>` whose draft is the package. */
  async create(options: SkillCreateOptions): Promise<Asset> {
    const { init, sent } = await this.upload(options)
    const query = {
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.knowledgeSpaceId ? { knowledgeSpaceId: options.knowledgeSpaceId } : {}),
      classification: options.classification
    }
    return sent(await unwrap(this.client.POST("/api/assets/skills", { params: { query }, ...init })))
  }

  /** Replaces the draft with a package of the same name. */
  async updateDraft(assetId: string, options: SkillDraftOptions): Promise<Asset> {
    const { init, sent } = await this.upload(options)
    const query = options.expectedLockVersion === undefined ? {} : { expectedLockVersion: options.expectedLockVersion }
    return sent(await unwrap(this.client.PUT("/api/assets/{assetId}/skill-draft", { params: { path: { assetId }, query }, ...init })))
  }

  /** Releases an approved revision (the asset review policy applies). */
  release(assetId: string, input: ReleaseInput): Promise<Asset> {
    return unwrap(this.client.POST("/api/assets/{assetId}/skill-releases", { params: { path: { assetId } }, body: input }))
  }

  manifest(assetId: string, releaseId: string): Promise<SkillManifest> {
    return unwrap(this.client.GET("/api/assets/{assetId}/releases/{releaseId}/skill-manifest", { params: { path: { assetId, releaseId } } }))
  }

  /**
   * Downloads a released package. With `expectedDigest` (the manifest's packageDigest), rejects with a
   * LoreApiError of code DIGEST_MISMATCH unless the bytes received hash to it.
   */
  async package(assetId: string, releaseId: string, expectedDigest?: string): Promise<SkillPackage> {
    const { bytes, response } = await download(
      this.client.GET("/api/assets/{assetId}/releases/{releaseId}/skill-package", { params: { path: { assetId, releaseId } }, parseAs: "arrayBuffer", headers: { accept: "*/*" } })
    )
    const digest = await packageDigest(bytes)
    if (expectedDigest !== undefined && digest !== expectedDigest) {
      throw LoreApiError.client("DIGEST_MISMATCH", "Digest mismatch", `The package received hashes to ${digest}, not ${expectedDigest}`)
    }
    return { bytes, digest, etag: response.headers.get("etag") }
  }

  /** Whether the caller has the skill turned on. */
  activation(assetId: string): Promise<SkillActivation> {
    return unwrap(this.client.GET("/api/assets/{assetId}/skill-activation", { params: { path: { assetId } } }))
  }

  /** Turns the skill on (it needs an available release) or off, for the caller. */
  setActivation(assetId: string, enabled: boolean): Promise<SkillActivation> {
    return unwrap(this.client.PUT("/api/assets/{assetId}/skill-activation", { params: { path: { assetId } }, body: { enabled } }))
  }

  /** Every SKILL.md of a repository revision, importable or not (with errorCode and errorMessage). */
  previewRepository(input: RepoPreviewInput): Promise<RepoPreview> {
    return unwrap(this.client.POST("/api/assets/skills/repo/preview", { body: input }))
  }

  /** Imports the chosen folders as drafts; unchanged ones answer imported false, errorCode UNCHANGED. */
  importRepository(input: RepoImportInput): Promise<RepoImport> {
    return unwrap(this.client.POST("/api/assets/skills/repo/import", { body: input }))
  }
}
