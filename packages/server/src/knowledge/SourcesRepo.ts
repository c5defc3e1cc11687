import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Classification } from "../domain/Model"
import { MICROSECOND_TEXT, type CursorPosition } from "../db/Cursor"
import { affected, Count, exec, row, rows, Timestamp } from "../db/Rows"

/**
 * The access predicate for a row under an alias (AccessEvaluator.visibleTo or grantAndClearance bound to the
 * caller's scope), passed by closure so each statement applies it to the aliases it needs.
 */
export type AccessPredicate = (alias: string) => Statement.Fragment

/**
 * The one rule for which versions of a knowledge asset a caller sees: a version is seen when the caller may
 * read it AND its asset's current version (knowledge_assets.current_source_id: the newest READY version,
 * else the newest live one). So once an asset's current version is above a caller, none of its versions
 * shows through, however low an older one was classified. Catalog, sources, citations and search use it
 * (search serves only current versions, see SearchIndexReader); the explanation mirrors it (Sources.resolveForAccess).
 * `version` is the alias of a row with knowledge_asset_id and the access columns (sources s, chunks c).
 */
export const seenVersion = (sql: SqlClient.SqlClient, visible: AccessPredicate, version: string): Statement.Fragment => sql`(
  ${visible(version)} AND EXISTS (
    SELECT 1 FROM knowledge_assets seen_asset JOIN sources seen_current ON seen_current.id = seen_asset.current_source_id
    WHERE seen_asset.id = ${sql(version)}.knowledge_asset_id AND ${visible("seen_current")}))`

export const SourceRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  knowledgeSpaceId: Schema.String,
  knowledgeAssetId: Schema.String,
  versionNumber: Schema.Number,
  title: Schema.String,
  sourceSystem: Schema.String,
  aclAuthority: Schema.String,
  /** Source-principal keys of a connector's ACL; null for uploads. */
  aclKeys: Schema.NullOr(Schema.Array(Schema.String)),
  /** Key sets a reader must each satisfy too (connector intersections); null when none. */
  aclAll: Schema.NullOr(Schema.Array(Schema.String)),
  status: Schema.String,
  classification: Classification,
  fileName: Schema.String,
  mediaType: Schema.String,
  contentLength: Schema.Number,
  contentDigest: Schema.String,
  language: Schema.String,
  pageCount: Schema.NullOr(Schema.Number),
  chunkCount: Schema.NullOr(Schema.Number),
  failureCode: Schema.NullOr(Schema.String),
  failureMessage: Schema.NullOr(Schema.String),
  embeddingProfileKey: Schema.NullOr(Schema.String),
  embeddingProvider: Schema.NullOr(Schema.String),
  embeddingModel: Schema.NullOr(Schema.String),
  embeddingDimensions: Schema.NullOr(Schema.Number),
  uploadedBy: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  /** created_at as ISO 8601 UTC to the microsecond, for paging cursors. */
  cursorAt: Schema.String,
  updatedAt: Timestamp,
  deletedAt: Schema.NullOr(Timestamp),
  knowledgeSpaceKey: Schema.String,
  knowledgeSpaceName: Schema.String,
  owningDepartmentName: Schema.NullOr(Schema.String),
  uploadedByName: Schema.NullOr(Schema.String)
})
export type SourceRow = typeof SourceRow.Type

const StatusCount = Schema.Struct({ status: Schema.String, count: Count })
const Id = Schema.Struct({ id: Schema.String })
const NextVersion = Schema.Struct({ next: Schema.Number })
const Blob = Schema.Struct({ content: Schema.Uint8ArrayFromSelf })
const LatestVersion = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  versionNumber: Schema.Number,
  contentDigest: Schema.String,
  classification: Classification,
  status: Schema.String
})
/** An asset's current version and its status (READY when search should serve it). */
const CurrentVersion = Schema.Struct({ id: Schema.String, status: Schema.String })

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
  readonly uploadedBy: string | null
  /** For connector documents: their source system (else UPLOAD), ACL authority (else LORE) and ACL keys (else none). */
  readonly sourceSystem?: string
  readonly aclAuthority?: string
  readonly aclKeys?: ReadonlyArray<string> | null
  readonly aclAll?: ReadonlyArray<string> | null
}

export interface ReadyInfo {
  readonly pageCount: number
  readonly chunkCount: number
  readonly embedding: { readonly profileKey: string; readonly provider: string; readonly model: string; readonly dimensions: number } | null
}

/** SQL for sources (uploaded document versions), their knowledge assets and blobs. */
export class SourcesRepo extends Effect.Service<SourcesRepo>()("lore/SourcesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const select = sql`
      SELECT s.id, s.organization_id, s.knowledge_space_id, s.knowledge_asset_id, s.version_number, s.title, s.source_system,
        s.acl_authority, s.acl_keys, s.acl_all, s.status, s.classification, s.file_name, s.media_type, s.content_length::int AS content_length,
        s.content_digest, s.language, s.page_count, s.chunk_count, s.failure_code, s.failure_message, s.embedding_profile_key,
        s.embedding_provider, s.embedding_model, s.embedding_dimensions, s.uploaded_by, s.created_at, s.updated_at, s.deleted_at,
        to_char(s.created_at AT TIME ZONE 'UTC', ${MICROSECOND_TEXT}) AS cursor_at,
        ks.key AS knowledge_space_key, ks.name AS knowledge_space_name, d.name AS owning_department_name, u.name AS uploaded_by_name
      FROM sources s
      JOIN knowledge_spaces ks ON ks.id = s.knowledge_space_id
      LEFT JOIN departments d ON d.id = ks.department_id
      LEFT JOIN users u ON u.id = s.uploaded_by`
    const filtered = (organizationId: string, visible: AccessPredicate, filter: SourceFilter) => sql`
      s.organization_id = ${organizationId} AND s.deleted_at IS NULL AND ${seenVersion(sql, visible, "s")}
      ${filter.knowledgeSpaceId ? sql`AND s.knowledge_space_id = ${filter.knowledgeSpaceId}` : sql``}
      ${filter.classification ? sql`AND s.classification = ${filter.classification}` : sql``}
      ${filter.status ? sql`AND s.status = ${filter.status}` : sql``}
      ${filter.q ? sql`AND (s.title ILIKE ${"%" + filter.q + "%"} OR s.file_name ILIKE ${"%" + filter.q + "%"})` : sql``}`

    const insertAsset = row("sources.insertAsset", Id, (organizationId: string, knowledgeSpaceId: string, title: string) => sql`
      INSERT INTO knowledge_assets (organization_id, knowledge_space_id, title) VALUES (${organizationId}, ${knowledgeSpaceId}, ${title})
      RETURNING id`)
    const nextVersionNumber = row("sources.nextVersionNumber", NextVersion, (knowledgeAssetId: string) =>
      sql`SELECT coalesce(max(version_number), 0)::int + 1 AS next FROM sources WHERE knowledge_asset_id = ${knowledgeAssetId}`)
    const blob = row("sources.blob", Blob, (sha256: string) => sql`SELECT content FROM blobs WHERE sha256 = ${sha256}`)
    const insertSource = row("sources.insertSource", Id, (source: NewSource) => sql`
      INSERT INTO sources (organization_id, knowledge_space_id, knowledge_asset_id, version_number, title, classification,
        classification_rank, file_name, media_type, content_length, content_digest, uploaded_by, source_system, acl_authority, acl_keys, acl_all)
      VALUES (${source.organizationId}, ${source.knowledgeSpaceId}, ${source.knowledgeAssetId}, ${source.versionNumber}, ${source.title},
        ${source.classification}, ${source.classificationRank}, ${source.fileName}, ${source.mediaType}, ${source.contentLength},
        ${source.contentDigest}, ${source.uploadedBy}, ${source.sourceSystem ?? "UPLOAD"}, ${source.aclAuthority ?? "LORE"},
        ${source.aclKeys ?? null}::text[], ${(source.aclAll ?? null) as Array<string> | null}::text[])
      RETURNING id`)
    const otherVersions = rows("sources.otherVersions", Id, (knowledgeAssetId: string, exceptSourceId: string | null) =>
      sql`SELECT id FROM sources WHERE knowledge_asset_id = ${knowledgeAssetId} AND id IS DISTINCT FROM ${exceptSourceId}::uuid`)
    const deleteSource = exec((sourceId: string) => sql`DELETE FROM sources WHERE id = ${sourceId} AND deleted_at IS NOT NULL`)
    const deleteUnusedBlob = exec((digest: string) =>
      sql`DELETE FROM blobs b WHERE b.sha256 = ${digest} AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.content_digest = b.sha256)`)
    const inserted = <A>(what: string) => (found: A | undefined) =>
      found === undefined ? Effect.dieMessage(`${what} returned no row`) : Effect.succeed(found)

    return {
      /** A page, newest first, after the keyset cursor; only versions the caller sees (seenVersion). */
      page: rows("sources.page", SourceRow, (organizationId: string, visible: AccessPredicate, filter: SourceFilter, after: CursorPosition | undefined, limit: number) => sql`
        ${select} WHERE ${filtered(organizationId, visible, filter)}
        ${after ? sql`AND (s.created_at, s.id) < (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
        ORDER BY s.created_at DESC, s.id DESC LIMIT ${limit}`),

      counts: rows("sources.counts", StatusCount, (organizationId: string, visible: AccessPredicate, filter: SourceFilter) => sql`
        SELECT s.status, count(*)::int AS count FROM sources s WHERE ${filtered(organizationId, visible, { ...filter, status: undefined })}
        GROUP BY s.status`),

      byId: row("sources.byId", SourceRow, (organizationId: string, sourceId: string, visible: AccessPredicate) =>
        sql`${select} WHERE s.organization_id = ${organizationId} AND s.id = ${sourceId} AND s.deleted_at IS NULL AND ${seenVersion(sql, visible, "s")}`),

      /** A source regardless of access or deletion: for jobs and the explanation. */
      load: row("sources.load", SourceRow, (sourceId: string) => sql`${select} WHERE s.id = ${sourceId}`),

      /** The current version of an asset, regardless of access. */
      currentOf: row("sources.currentOf", SourceRow, (knowledgeAssetId: string) =>
        sql`${select} JOIN knowledge_assets ka ON ka.current_source_id = s.id WHERE ka.id = ${knowledgeAssetId}`),

      /**
       * Serializes uploads of one title in one space until the transaction ends. Titles are not unique (an
       * asset the uploader cannot read never takes their upload), so no index can stop two concurrent first
       * uploads from making two assets; this lock does.
       */
      lockTitle: exec((knowledgeSpaceId: string, title: string) =>
        sql`SELECT pg_advisory_xact_lock(hashtextextended(${knowledgeSpaceId}::text || '/' || lower(${title}), 0))`),

      /**
       * Locks every live asset of this title in the space (in id order) until the transaction ends, so no
       * ingestion or deletion changes which version is current while an upload decides which asset it joins.
       * (Locking them in the lookup below instead would not do: under READ COMMITTED, a row updated while
       * waiting is re-checked against the join as first read, and the asset would be skipped.)
       */
      lockAssetsTitled: exec((knowledgeSpaceId: string, title: string) => sql`
        SELECT id FROM knowledge_assets
        WHERE knowledge_space_id = ${knowledgeSpaceId} AND lower(title) = lower(${title}) AND deleted_at IS NULL
        ORDER BY id FOR UPDATE`),

      /**
       * The live asset of this title in the space whose current version the uploader may read (`visible`).
       * When several are, the one whose current version they uploaded themselves, then the most recently
       * changed. Assets they cannot read are neither found nor touched. Run after `lockAssetsTitled`.
       */
      readableAssetTitled: row("sources.readableAssetTitled", Id, (knowledgeSpaceId: string, title: string, uploaderId: string, visible: AccessPredicate) => sql`
        SELECT ka.id FROM knowledge_assets ka JOIN sources cur ON cur.id = ka.current_source_id
        WHERE ka.knowledge_space_id = ${knowledgeSpaceId} AND lower(ka.title) = lower(${title}) AND ka.deleted_at IS NULL
          AND ${visible("cur")}
        ORDER BY cur.uploaded_by IS NOT DISTINCT FROM ${uploaderId}::uuid DESC, cur.created_at DESC, ka.id
        LIMIT 1`),

      insertAsset: (organizationId: string, knowledgeSpaceId: string, title: string) =>
        Effect.flatMap(insertAsset(organizationId, knowledgeSpaceId, title), inserted("sources.insertAsset")).pipe(Effect.map((r) => r.id)),

      /**
       * Locks a knowledge asset until the transaction ends. Every transaction that changes which version of
       * the asset is current takes it first, so two of them (two versions ingested at once, or an ingestion
       * and a deletion) run one after the other and the second sees what the first committed.
       */
      lockAsset: exec((knowledgeAssetId: string) => sql`SELECT id FROM knowledge_assets WHERE id = ${knowledgeAssetId} FOR UPDATE`),

      latestVersion: row("sources.latestVersion", LatestVersion, (knowledgeAssetId: string) => sql`
        SELECT id, title, version_number, content_digest, classification, status FROM sources
        WHERE knowledge_asset_id = ${knowledgeAssetId} AND deleted_at IS NULL ORDER BY version_number DESC LIMIT 1`),

      nextVersionNumber: (knowledgeAssetId: string) =>
        Effect.flatMap(nextVersionNumber(knowledgeAssetId), inserted("sources.nextVersionNumber")).pipe(Effect.map((r) => r.next)),

      putBlob: exec((sha256: string, content: Uint8Array) =>
        sql`INSERT INTO blobs (sha256, content, byte_length) VALUES (${sha256}, ${content}, ${content.byteLength}) ON CONFLICT (sha256) DO NOTHING`),

      blob: (sha256: string) => Effect.map(blob(sha256), (found) => found?.content),

      insertSource: (source: NewSource) => Effect.flatMap(insertSource(source), inserted("sources.insertSource")).pipe(Effect.map((r) => r.id)),

      markReady: exec((sourceId: string, info: ReadyInfo) => sql`
        UPDATE sources SET status = 'READY', page_count = ${info.pageCount}, chunk_count = ${info.chunkCount},
          embedding_profile_key = ${info.embedding?.profileKey ?? null}, embedding_provider = ${info.embedding?.provider ?? null},
          embedding_model = ${info.embedding?.model ?? null}, embedding_dimensions = ${info.embedding?.dimensions ?? null},
          failure_code = NULL, failure_message = NULL, ready_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE id = ${sourceId} AND deleted_at IS NULL`),

      markAttention: exec((sourceId: string, code: string, message: string) => sql`
        UPDATE sources SET status = 'ATTENTION', failure_code = ${code}, failure_message = ${message}, updated_at = clock_timestamp()
        WHERE id = ${sourceId} AND deleted_at IS NULL`),

      /** An ATTENTION source back to PROCESSING for another ingestion; false when it was not in ATTENTION. */
      markProcessing: affected((sourceId: string) => sql`
        UPDATE sources SET status = 'PROCESSING', failure_code = NULL, failure_message = NULL, updated_at = clock_timestamp()
        WHERE id = ${sourceId} AND deleted_at IS NULL AND status = 'ATTENTION' RETURNING id`),

      markDeleted: exec((sourceId: string) =>
        sql`UPDATE sources SET deleted_at = clock_timestamp(), status = 'DELETING', updated_at = clock_timestamp() WHERE id = ${sourceId}`),

      /** When an asset has no live version left, it is retired. */
      retireAssetIfEmpty: exec((knowledgeAssetId: string) => sql`
        UPDATE knowledge_assets SET deleted_at = now() WHERE id = ${knowledgeAssetId} AND deleted_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM sources WHERE knowledge_asset_id = ${knowledgeAssetId} AND deleted_at IS NULL)`),

      /**
       * Sets the asset's current version by the one rule (the newest READY live version, else the newest live
       * one, else none) and answers it. Called under the asset's lock whenever its versions change.
       */
      refreshCurrentVersion: row("sources.refreshCurrentVersion", CurrentVersion, (knowledgeAssetId: string) => sql`
        WITH chosen AS (
          SELECT s.id, s.status FROM sources s WHERE s.knowledge_asset_id = ${knowledgeAssetId} AND s.deleted_at IS NULL
          ORDER BY (s.status = 'READY') DESC, s.version_number DESC LIMIT 1
        ), updated AS (
          UPDATE knowledge_assets SET current_source_id = (SELECT id FROM chosen) WHERE id = ${knowledgeAssetId} RETURNING 1
        )
        SELECT chosen.id, chosen.status FROM chosen`),

      /** Every version of the asset but one (all of them when `exceptSourceId` is null). */
      otherVersions: (knowledgeAssetId: string, exceptSourceId: string | null) =>
        Effect.map(otherVersions(knowledgeAssetId, exceptSourceId), (found) => found.map((r) => r.id)),

      /** Purges a deleted source: its row (chunks cascade) and its blob when nothing else uses it. */
      purge: (sourceId: string, digest: string) => Effect.zipRight(deleteSource(sourceId), deleteUnusedBlob(digest))
    }
  })
}) {}
