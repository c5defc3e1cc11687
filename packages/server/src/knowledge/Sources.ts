import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import { AccessEvaluator } from "../access/Evaluator"
import { type Classification, classificationRank, clearanceCeiling, type SpaceRelation } from "../domain/Model"
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
import { mayDelete, sourceDeletion } from "./Policy"
import { SearchIndexWriter } from "./SearchIndexWriter"
import { type AccessPredicate, type SourceFilter, type SourceRow, SourcesRepo } from "./SourcesRepo"
import { serveCurrentVersion } from "./Versions"

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
    const index = yield* SearchIndexWriter
    const evaluator = yield* AccessEvaluator
    const queue = yield* JobQueue
    const audit = yield* Audit
    const settings = yield* Settings

    /** The access predicate of the caller, by closure, for the repository to apply to the aliases it needs. */
    const visibleTo = (caller: Principal) =>
      Effect.map(evaluator.readScope(caller), (scope): AccessPredicate => (alias) => evaluator.visibleTo(scope, alias))

    /** The caller's strongest relation on each space they see (viewer for every visible one not listed). */
    const relations = (caller: Principal) =>
      Effect.map(
        Effect.all([evaluator.spacesWith(caller, "contributor"), evaluator.spacesWith(caller, "curator")], { concurrency: 1 }),
        ([contributing, curating]) => {
          const curator = new Set(curating.map((space) => space.id))
          const contributor = new Set(contributing.map((space) => space.id))
          return (knowledgeSpaceId: string): SpaceRelation =>
            curator.has(knowledgeSpaceId) ? "curator" : contributor.has(knowledgeSpaceId) ? "contributor" : "viewer"
        }
      )

    const describe = (row: SourceRow, caller: Principal, relationOn: (spaceId: string) => SpaceRelation) => ({
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
      deletionAllowed: mayDelete({ callerId: caller.userId, uploadedBy: row.uploadedBy, relation: relationOn(row.knowledgeSpaceId) }),
      pageCount: row.pageCount,
      chunkCount: row.chunkCount,
      embeddingProfileKey: row.embeddingProfileKey,
      embeddingProvider: row.embeddingProvider,
      embeddingModel: row.embeddingModel,
      embeddingDimensions: row.embeddingDimensions,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt
    })

    const visibleSource = (caller: Principal, sourceId: string) =>
      Effect.gen(function* () {
        const row = yield* repo.byId(caller.organizationId, sourceId, yield* visibleTo(caller))
        if (!row) return yield* sourceNotFound
        return row
      })

    const get = (caller: Principal, sourceId: string) =>
      Effect.gen(function* () {
        const row = yield* visibleSource(caller, sourceId)
        return describe(row, caller, yield* relations(caller))
      })

    /** The spaces the caller may write to, or why not: 404 when they cannot even see it. */
    const requireContributor = (caller: Principal, knowledgeSpaceId: string) =>
      Effect.gen(function* () {
        const writable = yield* evaluator.spacesWith(caller, "contributor")
        const space = writable.find((s) => s.id === knowledgeSpaceId)
        if (space) return space
        const viewable = yield* evaluator.spacesWith(caller, "viewer")
        if (viewable.some((s) => s.id === knowledgeSpaceId)) {
          return yield* new NotAContributor({ detail: "You may read this knowledge space but not add to it" })
        }
        return yield* new KnowledgeSpaceNotFound({ detail: "No knowledge space with this id that you may see" })
      })

    const upload = (caller: Principal, input: { knowledgeSpaceId: string; classification: Classification; title?: string | undefined }, file: UploadedFile) =>
      Effect.gen(function* () {
        const space = yield* requireContributor(caller, input.knowledgeSpaceId)
        if (classificationRank[input.classification] > classificationRank[clearanceCeiling[caller.clearance]]) {
          return yield* new ClassificationAboveClearance({
            detail: `You cannot classify content ${input.classification}: your clearance reaches ${clearanceCeiling[caller.clearance]}`
          })
        }
        const bytes = new Uint8Array(yield* Effect.promise(() => readFile(file.path)))
        if (bytes.byteLength > settings.maxUploadBytes) {
          return yield* new PayloadTooLarge({ detail: `Uploads are limited to ${settings.maxUploadBytes} bytes` })
        }
        const detected = detectMediaType(bytes, file.name, file.contentType)
        if (detected._tag === "Empty") return yield* new EmptyFile({ detail: detected.detail })
        if (detected._tag === "Unsupported") return yield* new UnsupportedMediaType({ detail: detected.detail })
        const digest = createHash("sha256").update(bytes).digest("hex")
        const title = input.title ?? titleFromFileName(file.name)
        const visible = yield* visibleTo(caller)

        const sourceId = yield* transaction(
          Effect.gen(function* () {
            // Uploads of one title wait for each other, so concurrent first uploads make one asset, not two.
            yield* repo.lockTitle(input.knowledgeSpaceId, title)
            yield* repo.lockAssetsTitled(input.knowledgeSpaceId, title)
            // A new version only of an asset whose current version the uploader may read: an asset they cannot
            // see is neither revealed nor superseded by their upload, which starts an asset of its own.
            const existing = yield* repo.readableAssetTitled(input.knowledgeSpaceId, title, caller.userId, visible)
            const assetId = existing?.id ?? (yield* repo.insertAsset(caller.organizationId, input.knowledgeSpaceId, title))
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
            // A first version is current at once (nothing is READY yet); a later one when it becomes READY.
            yield* repo.refreshCurrentVersion(assetId)
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
        const source = yield* get(caller, sourceId)
        return { ...source, audience: yield* evaluator.audience(caller.organizationId, space, source.classification) }
      })

    const list = (caller: Principal, filter: SourceFilter & { cursor?: string | undefined; pageSize?: number | undefined }) =>
      Effect.gen(function* () {
        const pageSize = filter.pageSize ?? 25
        const after = yield* decodeCursor(filter.cursor)
        const visible = yield* visibleTo(caller)
        const [rows, counts, relationOn] = yield* Effect.all([
          repo.page(caller.organizationId, visible, filter, after, pageSize + 1),
          repo.counts(caller.organizationId, visible, filter),
          relations(caller)
        ])
        const { items, nextCursor } = page(rows, pageSize, (row) => ({ at: row.cursorAt, id: row.id }))
        const count = (status: string) => counts.find((c) => c.status === status)?.count ?? 0
        const statusCounts = { processing: count("PROCESSING"), ready: count("READY"), attention: count("ATTENTION") }
        return {
          items: items.map((row) => describe(row, caller, relationOn)),
          nextCursor,
          pageSize,
          total: filter.status ? count(filter.status) : counts.reduce((sum, c) => sum + c.count, 0),
          statusCounts
        }
      })

    const content = (caller: Principal, sourceId: string) =>
      Effect.gen(function* () {
        const row = yield* visibleSource(caller, sourceId)
        const bytes = yield* repo.blob(row.contentDigest)
        if (!bytes) return yield* sourceNotFound
        return { row, bytes }
      })

    /** Deletion hides the source from every read path at once; a job purges what it leaves behind. */
    const remove = (caller: Principal, sourceId: string) =>
      Effect.gen(function* () {
        const row = yield* visibleSource(caller, sourceId)
        const relationOn = yield* relations(caller)
        yield* sourceDeletion({ callerId: caller.userId, uploadedBy: row.uploadedBy, relation: relationOn(row.knowledgeSpaceId) })
        yield* transaction(
          Effect.gen(function* () {
            // Serializes version switching with ingestions of the same asset (see SourcesRepo.lockAsset).
            yield* repo.lockAsset(row.knowledgeAssetId)
            yield* repo.markDeleted(sourceId)
            // If the deleted version was current, the one the rule picks now takes over (in search too).
            yield* serveCurrentVersion(repo, index, queue, row.knowledgeAssetId, caller.organizationId)
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

    /**
     * The explanation's view of a source or knowledge asset, by the rule of SourcesRepo.seenVersion: an asset
     * is judged by its current version; a version by its own classification and its asset's current one,
     * whichever is higher (both are in the same space; uploads carry no source ACL).
     */
    const resolveForAccess = (type: "SOURCE" | "KNOWLEDGE_ASSET") => (organizationId: string, id: string) =>
      Effect.gen(function* () {
        const version = type === "SOURCE" ? yield* repo.load(id) : undefined
        if (type === "SOURCE" && !version) return undefined
        const current = yield* repo.currentOf(version?.knowledgeAssetId ?? id)
        const row = version ?? current
        if (!row || !current || row.organizationId !== organizationId || row.deletedAt !== null) return undefined
        const governing = classificationRank[current.classification] > classificationRank[row.classification] ? current : row
        return {
          id,
          type,
          label: row.title,
          contextLabel: row.knowledgeSpaceName,
          knowledgeSpaceId: row.knowledgeSpaceId,
          classification: governing.classification,
          aclKeys: row.aclKeys,
          aclAll: row.aclAll
        }
      })

    return { upload, list, get, content, remove, resolveForAccess }
  }),
  dependencies: [SourcesRepo.Default, SearchIndexWriter.Default, AccessEvaluator.Default, Audit.Default]
}) {}
