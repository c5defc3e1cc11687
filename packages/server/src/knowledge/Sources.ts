import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import { AccessEvaluator } from "../access/Evaluator"
import { type Classification, classificationRank, clearanceCeiling } from "../domain/Model"
import { transactional } from "../db/Sql"
import { PayloadTooLarge } from "../domain/Errors"
import { decodeCursor, page } from "../db/Cursor"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import { ClassificationAboveClearance, EmptyFile, NotAContributor, SourceNotFound, UnsupportedMediaType } from "./Errors"
import type { Principal } from "../domain/Principal"
import { JobQueue } from "../jobs/JobQueue"
import { Audit } from "../platform/Audit"
import { Settings } from "../Config"
import { IngestSource, PurgeSource } from "./Jobs"
import { detectMediaType } from "./parsing"
import { SearchIndex } from "./SearchIndex"
import { type SourceFilter, type SourceRow, SourcesRepo } from "./SourcesRepo"

export interface UploadedFile {
  readonly path: string
  readonly name: string
  readonly contentType: string
}

const sourceNotFound = new SourceNotFound({ detail: "No source with this id that you may see" })


const titleFromFileName = (name: string) => name.replace(/\.[A-Za-z0-9]{1,8}$/, "").replace(/[_]+/g, " ").trim() || name

/** Uploaded documents: storing, versioning, listing and deleting them, always through the evaluator. */
export class Sources extends Effect.Service<Sources>()("lore/Sources", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = transactional(sql)
    const repo = yield* SourcesRepo
    const index = yield* SearchIndex
    const evaluator = yield* AccessEvaluator
    const queue = yield* JobQueue
    const audit = yield* Audit
    const settings = yield* Settings

    const visibleTo = (caller: Principal) => Effect.map(evaluator.readScope(caller), (scope) => evaluator.visibleTo(scope, "s"))
    const contributorSpaces = (caller: Principal) =>
      Effect.map(evaluator.spacesWith(caller, "contributor"), (spaces) => new Set(spaces.map((space) => space.id)))

    const describe = (row: SourceRow, contributorOf: ReadonlySet<string>) => ({
      id: row.id,
      title: row.title,
      sourceSystem: row.sourceSystem,
      aclAuthority: row.aclAuthority,
      status: row.status,
      classification: row.classification,
      fileName: row.fileName,
      mediaType: row.mediaType,
      contentLength: row.contentLength,
      failureCode: row.failureCode,
      failureMessage: row.failureMessage,
      knowledgeAssetId: row.knowledgeAssetId,
      knowledgeAssetVersionId: row.id,
      versionNumber: row.versionNumber,
      contentDigest: row.contentDigest,
      knowledgeSpaceId: row.knowledgeSpaceId,
      knowledgeSpaceKey: row.knowledgeSpaceKey,
      knowledgeSpaceName: row.knowledgeSpaceName,
      owningDepartmentName: row.owningDepartmentName,
      uploadedByName: row.uploadedByName,
      publicationComplete: row.status === "READY",
      contentAvailable: row.deletedAt === null,
      deletionAllowed: contributorOf.has(row.knowledgeSpaceId),
      pageCount: row.pageCount,
      chunkCount: row.chunkCount,
      embeddingProfileKey: row.embeddingProfileKey,
      embeddingProvider: row.embeddingProvider,
      embeddingModel: row.embeddingModel,
      embeddingDimensions: row.embeddingDimensions,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt
    })

    const get = (caller: Principal, sourceId: string) =>
      Effect.gen(function* () {
        const row = yield* repo.byId(caller.organizationId, sourceId, yield* visibleTo(caller))
        if (!row) return yield* sourceNotFound
        return describe(row, yield* contributorSpaces(caller))
      })

    /** The spaces the caller may write to, or why not: 404 when they cannot even see it. */
    const requireContributor = (caller: Principal, knowledgeSpaceId: string) =>
      Effect.gen(function* () {
        if ((yield* contributorSpaces(caller)).has(knowledgeSpaceId)) return
        const viewable = yield* evaluator.spacesWith(caller, "viewer")
        if (viewable.some((space) => space.id === knowledgeSpaceId)) {
          return yield* new NotAContributor({ detail: "You may read this knowledge space but not add to it" })
        }
        return yield* new KnowledgeSpaceNotFound({ detail: "No knowledge space with this id that you may see" })
      })

    const upload = (caller: Principal, input: { knowledgeSpaceId: string; classification: Classification; title?: string | undefined }, file: UploadedFile) =>
      Effect.gen(function* () {
        yield* requireContributor(caller, input.knowledgeSpaceId)
        if (classificationRank[input.classification] > classificationRank[clearanceCeiling[caller.clearance]]) {
          return yield* new ClassificationAboveClearance({
            detail: `You cannot classify content ${input.classification}: your clearance reaches ${clearanceCeiling[caller.clearance]}`
          })
        }
        const bytes = new Uint8Array(yield* Effect.orDie(Effect.promise(() => readFile(file.path))))
        if (bytes.byteLength > settings.maxUploadBytes) {
          return yield* new PayloadTooLarge({ detail: `Uploads are limited to ${settings.maxUploadBytes} bytes` })
        }
        const detected = detectMediaType(bytes, file.name, file.contentType)
        if (detected._tag === "Empty") return yield* new EmptyFile({ detail: detected.detail })
        if (detected._tag === "Unsupported") return yield* new UnsupportedMediaType({ detail: detected.detail })
        const digest = createHash("sha256").update(bytes).digest("hex")
        const title = input.title ?? titleFromFileName(file.name)

        const sourceId = yield* transaction(
          Effect.gen(function* () {
            let existing = yield* repo.assetForUpdate(input.knowledgeSpaceId, title)
            let assetId = existing?.id ?? (yield* repo.insertAsset(caller.organizationId, input.knowledgeSpaceId, title))
            if (!assetId) {
              // A concurrent upload of the same title created the asset first (and has committed): add to it.
              existing = yield* repo.assetForUpdate(input.knowledgeSpaceId, title)
              if (!existing) return yield* Effect.dieMessage(`knowledge asset "${title}" neither inserted nor found`)
              assetId = existing.id
            }
            if (existing) {
              const latest = yield* repo.latestVersion(assetId)
              // The same bytes again (same classification) are the same version: nothing to add. If that version
              // ended in ATTENTION, ingest it again: its failure message asks for exactly this once the cause is fixed.
              if (latest && latest.contentDigest === digest && latest.classification === input.classification) {
                if (latest.status === "ATTENTION" && (yield* repo.markProcessing(latest.id))) {
                  yield* queue.enqueue(IngestSource.kind, { sourceId: latest.id }, { dedupeKey: `ingest:${latest.id}`, maxAttempts: 5 })
                }
                return latest.id
              }
            }
            yield* repo.putBlob(digest, bytes)
            const id = yield* repo.insertSource({
              organizationId: caller.organizationId,
              knowledgeSpaceId: input.knowledgeSpaceId,
              knowledgeAssetId: assetId,
              versionNumber: yield* repo.nextVersionNumber(assetId),
              title,
              classification: input.classification,
              classificationRank: classificationRank[input.classification],
              fileName: file.name,
              mediaType: detected.mediaType,
              contentLength: bytes.byteLength,
              contentDigest: digest,
              uploadedBy: caller.userId
            })
            yield* queue.enqueue(IngestSource.kind, { sourceId: id }, { dedupeKey: `ingest:${id}`, maxAttempts: 5 })
            yield* audit.record(caller, {
              action: "source.upload",
              resourceType: "source",
              resourceId: id,
              details: { title, fileName: file.name, digest, classification: input.classification }
            })
            return id
          })
        )
        return yield* get(caller, sourceId)
      })

    const list = (caller: Principal, filter: SourceFilter & { cursor?: string | undefined; pageSize?: number | undefined }) =>
      Effect.gen(function* () {
        const pageSize = filter.pageSize ?? 25
        const after = yield* decodeCursor(filter.cursor)
        const visible = yield* visibleTo(caller)
        const [rows, counts, contributorOf] = yield* Effect.all([
          repo.page(caller.organizationId, visible, filter, after, pageSize + 1),
          repo.counts(caller.organizationId, visible, filter),
          contributorSpaces(caller)
        ])
        const { items, nextCursor } = page(rows, pageSize, (row) => ({ at: row.cursorAt, id: row.id }))
        const count = (status: string) => counts.find((c) => c.status === status)?.count ?? 0
        const statusCounts = { processing: count("PROCESSING"), ready: count("READY"), attention: count("ATTENTION") }
        return {
          items: items.map((row) => describe(row, contributorOf)),
          nextCursor,
          pageSize,
          total: filter.status ? count(filter.status) : counts.reduce((sum, c) => sum + c.count, 0),
          statusCounts
        }
      })

    const content = (caller: Principal, sourceId: string) =>
      Effect.gen(function* () {
        const row = yield* repo.byId(caller.organizationId, sourceId, yield* visibleTo(caller))
        if (!row) return yield* sourceNotFound
        const bytes = yield* repo.blob(row.contentDigest)
        if (!bytes) return yield* sourceNotFound
        return { row, bytes }
      })

    /** Deletion hides the source from every read path at once; a job purges what it leaves behind. */
    const remove = (caller: Principal, sourceId: string) =>
      Effect.gen(function* () {
        const row = yield* repo.byId(caller.organizationId, sourceId, yield* visibleTo(caller))
        if (!row) return yield* sourceNotFound
        yield* requireContributor(caller, row.knowledgeSpaceId)
        yield* transaction(
          Effect.gen(function* () {
            // Serializes version switching with ingestions of the same asset (see SourcesRepo.lockAsset).
            yield* repo.lockAsset(row.knowledgeAssetId)
            yield* repo.markDeleted(sourceId)
            yield* index.makeUnsearchable(sourceId, caller.organizationId)
            // If the deleted version was the one served, the newest remaining ready version takes over.
            const fallback = yield* repo.newestReadyVersion(row.knowledgeAssetId)
            if (fallback) yield* index.makeSearchable(fallback, caller.organizationId)
            yield* repo.retireAssetIfEmpty(row.knowledgeAssetId)
            yield* queue.enqueue(PurgeSource.kind, { sourceId }, { dedupeKey: `purge:${sourceId}` })
            yield* audit.record(caller, { action: "source.delete", resourceType: "source", resourceId: sourceId, details: { title: row.title } })
          })
        )
        return {
          knowledgeAssetId: row.knowledgeAssetId,
          knowledgeAssetVersionId: row.id,
          normalizedRecordId: row.id,
          rawSourceObjectId: row.id,
          sourceAclSnapshotId: null,
          status: "PENDING" as const
        }
      })

    /** The explanation's view of a source or knowledge asset (newest live version). */
    const resolveForAccess = (type: "SOURCE" | "KNOWLEDGE_ASSET") => (organizationId: string, id: string) =>
      Effect.gen(function* () {
        const row = type === "SOURCE"
          ? yield* repo.load(id)
          : yield* Effect.gen(function* () {
            // The version the catalog and search serve: the newest READY one, else the newest at all.
            const versionId = (yield* repo.newestReadyVersion(id)) ?? (yield* repo.latestVersion(id))?.id
            return versionId ? yield* repo.load(versionId) : undefined
          })
        if (!row || row.organizationId !== organizationId || row.deletedAt !== null) return undefined
        return {
          id,
          type,
          label: row.title,
          contextLabel: row.knowledgeSpaceName,
          knowledgeSpaceId: row.knowledgeSpaceId,
          classification: row.classification,
          aclKeys: null
        }
      })

    return { upload, list, get, content, remove, resolveForAccess }
  }),
  dependencies: [SourcesRepo.Default, SearchIndex.Default, AccessEvaluator.Default, Audit.Default]
}) {}
