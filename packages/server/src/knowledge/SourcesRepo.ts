import { SqlClient, type Statement } from "@effect/sql"
import { Effect } from "effect"
import type { Classification } from "../domain/Model"
import { MICROSECOND_TEXT, type CursorPosition } from "../db/Cursor"

export interface SourceRow {
  readonly id: string
  readonly organizationId: string
  readonly knowledgeSpaceId: string
  readonly knowledgeAssetId: string
  readonly versionNumber: number
  readonly title: string
  readonly sourceSystem: string
  readonly aclAuthority: string
  readonly status: string
  readonly classification: Classification
  readonly fileName: string
  readonly mediaType: string
  readonly contentLength: number
  readonly contentDigest: string
  readonly language: string
  readonly pageCount: number | null
  readonly chunkCount: number | null
  readonly failureCode: string | null
  readonly failureMessage: string | null
  readonly embeddingProfileKey: string | null
  readonly embeddingProvider: string | null
  readonly embeddingModel: string | null
  readonly embeddingDimensions: number | null
  readonly createdAt: Date
  /** created_at as ISO 8601 UTC to the microsecond, for paging cursors. */
  readonly cursorAt: string
  readonly updatedAt: Date
  readonly deletedAt: Date | null
  readonly knowledgeSpaceKey: string
  readonly knowledgeSpaceName: string
  readonly owningDepartmentName: string | null
  readonly uploadedByName: string | null
}

export interface SourceFilter {
  readonly knowledgeSpaceId?: string | undefined
  readonly classification?: Classification | undefined
  readonly status?: string | undefined
  readonly q?: string | undefined
}

export interface NewSource {
  readonly organizationId: string
  readonly knowledgeSpaceId: string
  readonly knowledgeAssetId: string
  readonly versionNumber: number
  readonly title: string
  readonly classification: Classification
  readonly classificationRank: number
  readonly fileName: string
  readonly mediaType: string
  readonly contentLength: number
  readonly contentDigest: string
  readonly uploadedBy: string
}

/** SQL for sources (uploaded document versions), their knowledge assets and blobs. */
export class SourcesRepo extends Effect.Service<SourcesRepo>()("lore/SourcesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const select = sql`
      SELECT s.id, s.organization_id, s.knowledge_space_id, s.knowledge_asset_id, s.version_number, s.title, s.source_system,
        s.acl_authority, s.status, s.classification, s.file_name, s.media_type, s.content_length::int AS content_length,
        s.content_digest, s.language, s.page_count, s.chunk_count, s.failure_code, s.failure_message, s.embedding_profile_key,
        s.embedding_provider, s.embedding_model, s.embedding_dimensions, s.created_at, s.updated_at, s.deleted_at,
        to_char(s.created_at AT TIME ZONE 'UTC', ${MICROSECOND_TEXT}) AS cursor_at,
        ks.key AS knowledge_space_key, ks.name AS knowledge_space_name, d.name AS owning_department_name, u.name AS uploaded_by_name
      FROM sources s
      JOIN knowledge_spaces ks ON ks.id = s.knowledge_space_id
      LEFT JOIN departments d ON d.id = ks.department_id
      LEFT JOIN users u ON u.id = s.uploaded_by`
    const filtered = (organizationId: string, visible: Statement.Fragment, filter: SourceFilter) => sql`
      s.organization_id = ${organizationId} AND s.deleted_at IS NULL AND ${visible}
      ${filter.knowledgeSpaceId ? sql`AND s.knowledge_space_id = ${filter.knowledgeSpaceId}` : sql``}
      ${filter.classification ? sql`AND s.classification = ${filter.classification}` : sql``}
      ${filter.status ? sql`AND s.status = ${filter.status}` : sql``}
      ${filter.q ? sql`AND (s.title ILIKE ${"%" + filter.q + "%"} OR s.file_name ILIKE ${"%" + filter.q + "%"})` : sql``}`
    const first = <A>(rows: ReadonlyArray<A>) => rows[0]

    return {
      /** A page, newest first, after the keyset cursor; `visible` is the access predicate on alias s. */
      page: (organizationId: string, visible: Statement.Fragment, filter: SourceFilter, after: CursorPosition | undefined, limit: number) =>
        sql<SourceRow>`
          ${select} WHERE ${filtered(organizationId, visible, filter)}
          ${after ? sql`AND (s.created_at, s.id) < (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
          ORDER BY s.created_at DESC, s.id DESC LIMIT ${limit}`.pipe(Effect.orDie),
      counts: (organizationId: string, visible: Statement.Fragment, filter: SourceFilter) =>
        sql<{ status: string; count: number }>`
          SELECT s.status, count(*)::int AS count FROM sources s WHERE ${filtered(organizationId, visible, { ...filter, status: undefined })}
          GROUP BY s.status`.pipe(Effect.orDie),
      byId: (organizationId: string, sourceId: string, visible: Statement.Fragment) =>
        sql<SourceRow>`${select} WHERE s.organization_id = ${organizationId} AND s.id = ${sourceId} AND s.deleted_at IS NULL AND ${visible}`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      /** A source regardless of access or deletion: for jobs. */
      load: (sourceId: string) => sql<SourceRow>`${select} WHERE s.id = ${sourceId}`.pipe(Effect.map(first), Effect.orDie),

      assetForUpdate: (knowledgeSpaceId: string, title: string) =>
        sql<{ id: string }>`
          SELECT id FROM knowledge_assets WHERE knowledge_space_id = ${knowledgeSpaceId} AND lower(title) = lower(${title}) AND deleted_at IS NULL
          FOR UPDATE`.pipe(Effect.map(first), Effect.orDie),
      /** The new asset's id, or undefined when a live asset with this title exists (e.g. a concurrent upload made it). */
      insertAsset: (organizationId: string, knowledgeSpaceId: string, title: string) =>
        sql<{ id: string }>`
          INSERT INTO knowledge_assets (organization_id, knowledge_space_id, title) VALUES (${organizationId}, ${knowledgeSpaceId}, ${title})
          ON CONFLICT (knowledge_space_id, lower(title)) WHERE deleted_at IS NULL DO NOTHING
          RETURNING id`.pipe(Effect.map((rows) => rows[0]?.id), Effect.orDie),
      /**
       * Locks a knowledge asset until the transaction ends. Every transaction that changes which version of
       * the asset is searchable takes it first, so two of them (two versions ingested at once, or an ingestion
       * and a deletion) run one after the other and the second sees what the first committed.
       */
      lockAsset: (knowledgeAssetId: string) =>
        sql`SELECT id FROM knowledge_assets WHERE id = ${knowledgeAssetId} FOR UPDATE`.pipe(Effect.asVoid, Effect.orDie),
      latestVersion: (knowledgeAssetId: string) =>
        sql<{ id: string; versionNumber: number; contentDigest: string; classification: string; status: string }>`
          SELECT id, version_number, content_digest, classification, status FROM sources
          WHERE knowledge_asset_id = ${knowledgeAssetId} AND deleted_at IS NULL ORDER BY version_number DESC LIMIT 1`.pipe(
          Effect.map(first),
          Effect.orDie
        ),
      nextVersionNumber: (knowledgeAssetId: string) =>
        sql<{ next: number }>`SELECT coalesce(max(version_number), 0) + 1 AS next FROM sources WHERE knowledge_asset_id = ${knowledgeAssetId}`.pipe(
          Effect.map((rows) => rows[0]!.next),
          Effect.orDie
        ),
      putBlob: (sha256: string, content: Uint8Array) =>
        sql`INSERT INTO blobs (sha256, content, byte_length) VALUES (${sha256}, ${content}, ${content.byteLength}) ON CONFLICT (sha256) DO NOTHING`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      blob: (sha256: string) =>
        sql<{ content: Uint8Array }>`SELECT content FROM blobs WHERE sha256 = ${sha256}`.pipe(Effect.map((rows) => rows[0]?.content), Effect.orDie),
      insertSource: (row: NewSource) =>
        sql<{ id: string }>`
          INSERT INTO sources (organization_id, knowledge_space_id, knowledge_asset_id, version_number, title, classification,
            classification_rank, file_name, media_type, content_length, content_digest, uploaded_by)
          VALUES (${row.organizationId}, ${row.knowledgeSpaceId}, ${row.knowledgeAssetId}, ${row.versionNumber}, ${row.title},
            ${row.classification}, ${row.classificationRank}, ${row.fileName}, ${row.mediaType}, ${row.contentLength},
            ${row.contentDigest}, ${row.uploadedBy})
          RETURNING id`.pipe(Effect.map((rows) => rows[0]!.id), Effect.orDie),
      markReady: (sourceId: string, info: { pageCount: number; chunkCount: number; embedding: { profileKey: string; provider: string; model: string; dimensions: number } | null }) =>
        sql`
          UPDATE sources SET status = 'READY', page_count = ${info.pageCount}, chunk_count = ${info.chunkCount},
            embedding_profile_key = ${info.embedding?.profileKey ?? null}, embedding_provider = ${info.embedding?.provider ?? null},
            embedding_model = ${info.embedding?.model ?? null}, embedding_dimensions = ${info.embedding?.dimensions ?? null},
            failure_code = NULL, failure_message = NULL, ready_at = clock_timestamp(), updated_at = clock_timestamp()
          WHERE id = ${sourceId} AND deleted_at IS NULL`.pipe(Effect.asVoid, Effect.orDie),
      markAttention: (sourceId: string, code: string, message: string) =>
        sql`
          UPDATE sources SET status = 'ATTENTION', failure_code = ${code}, failure_message = ${message}, updated_at = clock_timestamp()
          WHERE id = ${sourceId} AND deleted_at IS NULL`.pipe(Effect.asVoid, Effect.orDie),
      /** An ATTENTION source back to PROCESSING for another ingestion; false when it was not in ATTENTION. */
      markProcessing: (sourceId: string) =>
        sql<{ id: string }>`
          UPDATE sources SET status = 'PROCESSING', failure_code = NULL, failure_message = NULL, updated_at = clock_timestamp()
          WHERE id = ${sourceId} AND deleted_at IS NULL AND status = 'ATTENTION' RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),
      markDeleted: (sourceId: string) =>
        sql`UPDATE sources SET deleted_at = clock_timestamp(), status = 'DELETING', updated_at = clock_timestamp() WHERE id = ${sourceId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      /** When an asset has no live version left, it is retired so its title can be used again. */
      retireAssetIfEmpty: (knowledgeAssetId: string) =>
        sql`
          UPDATE knowledge_assets SET deleted_at = now() WHERE id = ${knowledgeAssetId} AND deleted_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM sources WHERE knowledge_asset_id = ${knowledgeAssetId} AND deleted_at IS NULL)`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      /** The newest READY version of an asset, which is the one search should serve. */
      newestReadyVersion: (knowledgeAssetId: string) =>
        sql<{ id: string }>`
          SELECT id FROM sources WHERE knowledge_asset_id = ${knowledgeAssetId} AND status = 'READY' AND deleted_at IS NULL
          ORDER BY version_number DESC LIMIT 1`.pipe(Effect.map((rows) => rows[0]?.id), Effect.orDie),
      otherVersions: (knowledgeAssetId: string, exceptSourceId: string) =>
        sql<{ id: string }>`SELECT id FROM sources WHERE knowledge_asset_id = ${knowledgeAssetId} AND id <> ${exceptSourceId}`.pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        ),
      /** Purges a deleted source: its row (chunks cascade) and its blob when nothing else uses it. */
      purge: (sourceId: string, digest: string) =>
        Effect.zipRight(
          sql`DELETE FROM sources WHERE id = ${sourceId} AND deleted_at IS NOT NULL`,
          sql`DELETE FROM blobs b WHERE b.sha256 = ${digest} AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.content_digest = b.sha256)`
        ).pipe(Effect.asVoid, Effect.orDie)
    }
  })
}) {}
