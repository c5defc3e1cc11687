import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { rows, Timestamp } from "../db/Rows"
import { Classification } from "../domain/Model"
import type { KnowledgeFilters } from "./SearchIndexReader"
import type { AccessPredicate } from "./SourcesRepo"

export const CatalogRow = Schema.Struct({
  knowledgeAssetId: Schema.String,
  knowledgeVersionId: Schema.String,
  versionNumber: Schema.Number,
  knowledgeSpaceId: Schema.String,
  title: Schema.String,
  language: Schema.String,
  classification: Classification,
  contentDigest: Schema.String,
  mediaType: Schema.String,
  updatedAt: Timestamp
})
export type CatalogRow = typeof CatalogRow.Type

/** SQL of the catalog: one entry per knowledge asset the caller sees. */
export class CatalogRepo extends Effect.Service<CatalogRepo>()("lore/CatalogRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      /**
       * Each asset's current version when it is READY and the caller may read it (the rule of
       * SourcesRepo.seenVersion, which for a current version is the access predicate alone): an older,
       * lower-classified version never stands in for a current one the caller may not read.
       */
      entries: rows("catalog.entries", CatalogRow, (organizationId: string, visible: AccessPredicate, filters: KnowledgeFilters) => sql`
        SELECT s.knowledge_asset_id, s.id AS knowledge_version_id, s.version_number, s.knowledge_space_id, s.title, s.language,
          s.classification, s.content_digest, s.media_type, s.updated_at
        FROM knowledge_assets ka JOIN sources s ON s.id = ka.current_source_id
        WHERE ka.organization_id = ${organizationId} AND ka.deleted_at IS NULL AND s.deleted_at IS NULL AND s.status = 'READY'
          AND ${visible("s")}
          ${filters.knowledgeSpaceId ? sql`AND s.knowledge_space_id = ${filters.knowledgeSpaceId}` : sql``}
          ${filters.classificationRank !== undefined ? sql`AND s.classification_rank = ${filters.classificationRank}` : sql``}
        ORDER BY lower(s.title), s.knowledge_asset_id`)
    }
  })
}) {}
