import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type Classification, classificationRank } from "../domain/Model"
import { JobQueue } from "../jobs/JobQueue"
import { IngestSource, PurgeSource } from "./Jobs"
import { SearchIndexWriter } from "./SearchIndexWriter"
import { SourcesRepo } from "./SourcesRepo"
import { serveCurrentVersion } from "./Versions"

export interface ExternalVersion {
  readonly organizationId: string
  readonly knowledgeSpaceId: string
  readonly knowledgeAssetId: string
  readonly title: string
  readonly classification: Classification
  readonly fileName: string
  readonly mediaType: string
  readonly bytes: Uint8Array
  readonly contentDigest: string
  readonly uploadedBy: string | null
  readonly sourceSystem: string
  /** Null: the source has no ACL of its own (a public site); the space's grants alone decide, as for uploads. */
  readonly aclKeys: ReadonlyArray<string> | null
  /** Key sets a reader must each satisfy too (an intersection, such as Confluence's page restrictions); null when none. */
  readonly aclAll?: ReadonlyArray<string> | null | undefined
}

/**
 * Sources that come from outside (connectors): the same assets, versions, blobs and ingestion job as uploads,
 * with the source system, aclAuthority SOURCE and the ACL's keys on the version and its chunks (LORE and no keys
 * for a source without an ACL of its own). Callers run
 * these inside their own transaction, under `lockAsset`.
 */
export class ExternalSources extends Effect.Service<ExternalSources>()("lore/ExternalSources", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* SourcesRepo
    const index = yield* SearchIndexWriter
    const queue = yield* JobQueue

    /** A new version, queued for ingestion; the asset's current version is set by the one rule. */
    const addVersion = (version: ExternalVersion) =>
      Effect.gen(function* () {
        yield* repo.putBlob(version.contentDigest, version.bytes)
        const id = yield* repo.insertSource({
          organizationId: version.organizationId,
          knowledgeSpaceId: version.knowledgeSpaceId,
          knowledgeAssetId: version.knowledgeAssetId,
          versionNumber: yield* repo.nextVersionNumber(version.knowledgeAssetId),
          title: version.title,
          classification: version.classification,
          classificationRank: classificationRank[version.classification],
          fileName: version.fileName,
          mediaType: version.mediaType,
          contentLength: version.bytes.byteLength,
          contentDigest: version.contentDigest,
          uploadedBy: version.uploadedBy,
          sourceSystem: version.sourceSystem,
          aclAuthority: version.aclKeys === null ? "LORE" : "SOURCE",
          aclKeys: version.aclKeys,
          aclAll: version.aclAll ?? null
        })
        yield* repo.refreshCurrentVersion(version.knowledgeAssetId)
        yield* queue.enqueue(IngestSource.kind, { sourceId: id }, { dedupeKey: `ingest:${id}`, maxAttempts: 5 })
        return id
      })

    /** Rewrites only the ACL keys of an asset's live versions and their chunks: nothing is parsed or embedded again. */
    const setAcl = (knowledgeAssetId: string, aclKeys: ReadonlyArray<string> | null, aclAll: ReadonlyArray<string> | null = null) =>
      Effect.gen(function* () {
        const keys = aclKeys as Array<string> | null
        const all = aclAll as Array<string> | null
        yield* sql`UPDATE sources SET acl_keys = ${keys}::text[], acl_all = ${all}::text[], acl_authority = ${aclKeys === null ? "LORE" : "SOURCE"},
          updated_at = clock_timestamp() WHERE knowledge_asset_id = ${knowledgeAssetId} AND deleted_at IS NULL`
        yield* sql`UPDATE chunks SET acl_keys = ${keys}::text[], acl_all = ${all}::text[] WHERE knowledge_asset_id = ${knowledgeAssetId}`
      }).pipe(Effect.orDie)

    /** Deletes every live version (hidden from every read path at once, purged by a job) and retires the asset. */
    const retire = (knowledgeAssetId: string, organizationId: string) =>
      Effect.gen(function* () {
        const live = yield* sql<{ id: string }>`SELECT id FROM sources WHERE knowledge_asset_id = ${knowledgeAssetId} AND deleted_at IS NULL`.pipe(Effect.orDie)
        for (const { id } of live) {
          yield* repo.markDeleted(id)
          yield* queue.enqueue(PurgeSource.kind, { sourceId: id }, { dedupeKey: `purge:${id}` })
        }
        yield* serveCurrentVersion(repo, index, queue, knowledgeAssetId, organizationId)
        yield* repo.retireAssetIfEmpty(knowledgeAssetId)
      })

    return {
      lockAsset: repo.lockAsset,
      latestVersion: repo.latestVersion,
      createAsset: repo.insertAsset,
      addVersion,
      setAcl,
      retire
    }
  }),
  dependencies: [SourcesRepo.Default, SearchIndexWriter.Default]
}) {}
