import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { affected, exec, one, row, rows, Timestamp } from "../db/Rows"

/** The caller's chunk predicate under an alias: the access evaluator's `visibleTo(scope, alias)` as a closure. */
export type AccessPredicate = (alias: string) => Statement.Fragment

export const JobRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  knowledgeSpaceId: Schema.String,
  knowledgeAssetId: Schema.String,
  knowledgeAssetVersionId: Schema.String,
  sourceRevisionId: Schema.String,
  projectionGeneration: Schema.Number,
  graphProcessingProfileId: Schema.String,
  graphProcessingProfileSha256: Schema.String,
  extractor: Schema.String,
  gatewayId: Schema.NullOr(Schema.String),
  modelId: Schema.String,
  entityTypes: Schema.Array(Schema.String),
  status: Schema.Literal("QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"),
  attempt: Schema.Number,
  cancellationRequested: Schema.Boolean,
  cancellationRequestedAt: Schema.NullOr(Timestamp),
  lastErrorCode: Schema.NullOr(Schema.String),
  lastErrorMessage: Schema.NullOr(Schema.String),
  completedAt: Schema.NullOr(Timestamp),
  chunksTotal: Schema.Number,
  chunksDone: Schema.Number,
  requestedBy: Schema.NullOr(Schema.String),
  createdAt: Timestamp
})
export type JobRow = typeof JobRow.Type

const jobColumns = `j.id, j.organization_id, j.knowledge_space_id, j.knowledge_asset_id, j.knowledge_asset_version_id, j.source_revision_id,
  j.projection_generation, j.graph_processing_profile_id, p.sha256 AS graph_processing_profile_sha256, p.extractor, p.gateway_id::text AS gateway_id,
  p.model_id, p.entity_types, j.status, j.attempt, j.cancellation_requested, j.cancellation_requested_at, j.last_error_code, j.last_error_message,
  j.completed_at, j.chunks_total, j.chunks_done, j.requested_by, j.created_at`

const AssetRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  knowledgeSpaceId: Schema.String,
  versionId: Schema.String,
  status: Schema.String
})
const Id = Schema.Struct({ id: Schema.String })
const Profile = Schema.Struct({ id: Schema.String, sha256: Schema.String })
const ChunkRow = Schema.Struct({ id: Schema.String, content: Schema.String })
const Staged = Schema.Struct({ chunkId: Schema.String, extraction: Schema.String })
const EntityKey = Schema.Struct({ id: Schema.String, normalizedName: Schema.String, type: Schema.String })
const RelationKey = Schema.Struct({ id: Schema.String, sourceEntityId: Schema.String, targetEntityId: Schema.String, type: Schema.String })
const Flag = Schema.Struct({ indexingEnabled: Schema.Boolean, retrievalEnabled: Schema.Boolean })
export const EntityTarget = Schema.Struct({ id: Schema.String, name: Schema.String, type: Schema.String, canonicalId: Schema.String })
export const RelationTarget = Schema.Struct({ id: Schema.String, sourceEntityId: Schema.String, targetEntityId: Schema.String, type: Schema.String })

export const CurationRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  knowledgeSpaceId: Schema.String,
  spaceKey: Schema.String,
  curationKind: Schema.Literal("ENTITY", "RELATION", "ALIAS", "SUPPRESSION"),
  targetKind: Schema.Literal("ENTITY", "RELATION"),
  targetId: Schema.String,
  intoEntityId: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  type: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  actorUserId: Schema.NullOr(Schema.String),
  authorizationModelId: Schema.String,
  aclGeneration: Schema.Number,
  curatedAt: Timestamp,
  reason: Schema.String,
  dangling: Schema.Boolean
})
export type CurationRow = typeof CurationRow.Type

export interface ProjectedEntity { readonly normalizedName: string; readonly type: string; readonly name: string }
export interface EntityMention { readonly entityId: string; readonly chunkId: string; readonly description: string }
export interface ProjectedRelation { readonly sourceEntityId: string; readonly targetEntityId: string; readonly type: string }
export interface RelationMention {
  readonly relationId: string
  readonly chunkId: string
  readonly description: string
  readonly keywords: ReadonlyArray<string>
  readonly weight: number
}

export interface NewCuration {
  readonly organizationId: string
  readonly knowledgeSpaceId: string
  readonly curationKind: CurationRow["curationKind"]
  readonly targetKind: CurationRow["targetKind"]
  readonly targetId: string
  readonly createsTarget: boolean
  readonly intoEntityId: string | null
  readonly name: string | null
  readonly type: string | null
  readonly description: string | null
  readonly keywords: ReadonlyArray<string> | null
  readonly weight: number | null
  readonly actorUserId: string | null
  readonly authorizationModelId: string
  readonly aclGeneration: number
  readonly reason: string
}

/**
 * SQL of the knowledge graph's writes and lookups: jobs, staging, projection, the overlay, settings, curations.
 * The explorer's and retrieval's reads are in ExplorerRepo.ts. Lookups of curation targets take the caller's
 * chunk predicate (`visible`, the access evaluator's `visibleTo` as a closure).
 */
export class GraphRepo extends Effect.Service<GraphRepo>()("lore/GraphRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const jobs = sql.literal(`SELECT ${jobColumns} FROM graph_jobs j JOIN graph_processing_profiles p ON p.id = j.graph_processing_profile_id`)

    return {
      /** The asset and its current version, when the caller may see that version. */
      assetSeenBy: row("graph.assetSeenBy", AssetRow, (organizationId: string, assetId: string, visible: AccessPredicate) => sql`
        SELECT ka.id, ka.organization_id, ka.knowledge_space_id, s.id AS version_id, s.status
        FROM knowledge_assets ka JOIN sources s ON s.id = ka.current_source_id
        WHERE ka.id = ${assetId} AND ka.organization_id = ${organizationId} AND ka.deleted_at IS NULL AND s.deleted_at IS NULL AND ${visible("s")}`),

      /** The current READY version of an asset (for automatic re-extraction). */
      assetVersion: row("graph.assetVersion", AssetRow, (versionId: string) => sql`
        SELECT ka.id, ka.organization_id, ka.knowledge_space_id, s.id AS version_id, s.status
        FROM sources s JOIN knowledge_assets ka ON ka.id = s.knowledge_asset_id
        WHERE s.id = ${versionId} AND ka.current_source_id = s.id AND s.deleted_at IS NULL AND ka.deleted_at IS NULL`),

      profile: one("graph.profile", Profile, (organizationId: string, p: { extractor: string; gatewayId: string | null; modelId: string; promptVersion: string; entityTypes: ReadonlyArray<string>; sha256: string }) => sql`
        INSERT INTO graph_processing_profiles (organization_id, extractor, gateway_id, model_id, prompt_version, entity_types, sha256)
        VALUES (${organizationId}, ${p.extractor}, ${p.gatewayId}, ${p.modelId}, ${p.promptVersion}, ${p.entityTypes}::text[], ${p.sha256})
        ON CONFLICT (organization_id, sha256) DO UPDATE SET sha256 = EXCLUDED.sha256
        RETURNING id, sha256`),

      activeJob: row("graph.activeJob", JobRow, (assetId: string) => sql`${jobs} WHERE j.knowledge_asset_id = ${assetId} AND j.status IN ('QUEUED', 'RUNNING')`),

      insertJob: row("graph.insertJob", Id, (job: { organizationId: string; knowledgeSpaceId: string; knowledgeAssetId: string; versionId: string; profileId: string; requestedBy: string | null }) => sql`
        INSERT INTO graph_jobs (organization_id, knowledge_space_id, knowledge_asset_id, knowledge_asset_version_id, source_revision_id, projection_generation,
          graph_processing_profile_id, requested_by, chunks_total)
        VALUES (${job.organizationId}, ${job.knowledgeSpaceId}, ${job.knowledgeAssetId}, ${job.versionId}, ${job.versionId},
          (SELECT coalesce(max(projection_generation), 0) + 1 FROM graph_jobs WHERE knowledge_asset_id = ${job.knowledgeAssetId}),
          ${job.profileId}, ${job.requestedBy}, (SELECT count(*) FROM chunks WHERE source_id = ${job.versionId}))
        ON CONFLICT (knowledge_asset_id) WHERE status IN ('QUEUED', 'RUNNING') DO NOTHING
        RETURNING id`),

      job: row("graph.job", JobRow, (jobId: string, lock: boolean = false) => sql`${jobs} WHERE j.id = ${jobId} ${lock ? sql.literal("FOR UPDATE OF j") : sql.literal("")}`),

      /** Whether the caller may see the job's version (the job is as visible as what it extracts from). */
      jobSeenBy: affected((jobId: string, organizationId: string, visible: AccessPredicate) => sql`
        SELECT 1 FROM graph_jobs j JOIN sources s ON s.id = j.knowledge_asset_version_id
        WHERE j.id = ${jobId} AND j.organization_id = ${organizationId} AND ${visible("s")}`),

      markRunning: exec((jobId: string) => sql`
        UPDATE graph_jobs SET status = 'RUNNING', updated_at = now() WHERE id = ${jobId} AND status = 'QUEUED'`),
      requestCancel: exec((jobId: string) => sql`
        UPDATE graph_jobs SET cancellation_requested = true, cancellation_requested_at = coalesce(cancellation_requested_at, now()), updated_at = now()
        WHERE id = ${jobId}`),
      markCancelled: exec((jobId: string) => sql`
        UPDATE graph_jobs SET status = 'CANCELLED', cancellation_requested = true, cancellation_requested_at = coalesce(cancellation_requested_at, now()),
          completed_at = now(), updated_at = now()
        WHERE id = ${jobId}`),
      markFailed: exec((jobId: string, code: string, message: string) => sql`
        UPDATE graph_jobs SET status = 'FAILED', last_error_code = ${code}, last_error_message = ${message}, completed_at = now(), updated_at = now()
        WHERE id = ${jobId}`),
      markSucceeded: exec((jobId: string) => sql`
        UPDATE graph_jobs SET status = 'SUCCEEDED', chunks_done = chunks_total, completed_at = now(), updated_at = now() WHERE id = ${jobId}`),
      requeue: exec((jobId: string) => sql`
        UPDATE graph_jobs SET status = 'QUEUED', attempt = attempt + 1, cancellation_requested = false, cancellation_requested_at = NULL,
          completed_at = NULL, updated_at = now()
        WHERE id = ${jobId}`),
      progress: exec((jobId: string, done: number) => sql`UPDATE graph_jobs SET chunks_done = ${done}, updated_at = now() WHERE id = ${jobId}`),

      chunksOf: rows("graph.chunksOf", ChunkRow, (versionId: string) => sql`SELECT id, content FROM chunks WHERE source_id = ${versionId} ORDER BY ordinal`),
      staged: rows("graph.staged", Staged, (jobId: string) => sql`SELECT chunk_id, extraction::text AS extraction FROM graph_job_extractions WHERE job_id = ${jobId}`),
      stage: exec((jobId: string, chunkId: string, extraction: string) => sql`
        INSERT INTO graph_job_extractions (job_id, chunk_id, extraction) VALUES (${jobId}, ${chunkId}, ${extraction}::jsonb)
        ON CONFLICT (job_id, chunk_id) DO NOTHING`),
      clearStaged: exec((jobId: string) => sql`DELETE FROM graph_job_extractions WHERE job_id = ${jobId}`),

      /** Locks the asset's projection row (created on first use): projections of one asset serialize. */
      lockProjection: exec((assetId: string) => sql`
        INSERT INTO graph_asset_projections (knowledge_asset_id, generation) VALUES (${assetId}, 0)
        ON CONFLICT (knowledge_asset_id) DO UPDATE SET generation = graph_asset_projections.generation`),
      recordProjection: exec((assetId: string, generation: number, jobId: string) => sql`
        UPDATE graph_asset_projections SET generation = ${generation}, job_id = ${jobId}, projected_at = now() WHERE knowledge_asset_id = ${assetId}`),
      clearAssetMentions: exec((assetId: string) => sql`
        WITH e AS (DELETE FROM graph_entity_mentions WHERE knowledge_asset_id = ${assetId})
        DELETE FROM graph_relation_mentions WHERE knowledge_asset_id = ${assetId}`),

      upsertEntities: rows("graph.upsertEntities", EntityKey, (organizationId: string, spaceId: string, entities: ReadonlyArray<ProjectedEntity>) => sql`
        INSERT INTO graph_entities (id, organization_id, knowledge_space_id, normalized_name, type, name, canonical_id)
        SELECT x.g, ${organizationId}, ${spaceId}, x.n, x.t, x.nm, x.g
        FROM (SELECT gen_random_uuid() AS g, u.n, u.t, u.nm
              FROM unnest(${entities.map((e) => e.normalizedName)}::text[], ${entities.map((e) => e.type)}::text[], ${entities.map((e) => e.name)}::text[]) AS u(n, t, nm)) x
        ON CONFLICT (knowledge_space_id, normalized_name, type) DO UPDATE SET name = graph_entities.name
        RETURNING id, normalized_name, type`),

      insertEntityMentions: exec((assetId: string, sourceId: string, aclGeneration: number, mentions: ReadonlyArray<EntityMention>) => sql`
        INSERT INTO graph_entity_mentions (entity_id, chunk_id, knowledge_asset_id, source_id, description, acl_generation)
        SELECT u.e, u.c, ${assetId}, ${sourceId}, u.d, ${aclGeneration}
        FROM unnest(${mentions.map((m) => m.entityId)}::uuid[], ${mentions.map((m) => m.chunkId)}::uuid[], ${mentions.map((m) => m.description)}::text[]) AS u(e, c, d)
        ON CONFLICT (entity_id, chunk_id) DO NOTHING`),

      upsertRelations: rows("graph.upsertRelations", RelationKey, (organizationId: string, spaceId: string, relations: ReadonlyArray<ProjectedRelation>) => sql`
        INSERT INTO graph_relations (organization_id, knowledge_space_id, source_entity_id, target_entity_id, type, source_canonical_id, target_canonical_id)
        SELECT ${organizationId}, ${spaceId}, u.s, u.t, u.ty, u.s, u.t
        FROM unnest(${relations.map((r) => r.sourceEntityId)}::uuid[], ${relations.map((r) => r.targetEntityId)}::uuid[], ${relations.map((r) => r.type)}::text[]) AS u(s, t, ty)
        ON CONFLICT (knowledge_space_id, source_entity_id, target_entity_id, type) DO UPDATE SET type = graph_relations.type
        RETURNING id, source_entity_id, target_entity_id, type`),

      insertRelationMentions: exec((assetId: string, sourceId: string, aclGeneration: number, mentions: ReadonlyArray<RelationMention>) => sql`
        INSERT INTO graph_relation_mentions (relation_id, chunk_id, knowledge_asset_id, source_id, description, keywords, weight, acl_generation)
        SELECT u.r, u.c, ${assetId}, ${sourceId}, u.d, ARRAY(SELECT jsonb_array_elements_text(u.k::jsonb)), u.w, ${aclGeneration}
        FROM unnest(${mentions.map((m) => m.relationId)}::uuid[], ${mentions.map((m) => m.chunkId)}::uuid[], ${mentions.map((m) => m.description)}::text[],
          ${mentions.map((m) => JSON.stringify(m.keywords))}::text[], ${mentions.map((m) => m.weight)}::real[]) AS u(r, c, d, k, w)
        ON CONFLICT (relation_id, chunk_id) DO NOTHING`),

      /**
       * The curation overlay, recomputed for a space from its active curations (after every projection and every
       * curation change): corrections, merges (canonical ids, one level), suppressions, curator additions.
       */
      applyOverlay: (spaceId: string) =>
        Effect.orDie(Effect.gen(function* () {
          yield* sql`
            UPDATE graph_entities e SET canonical_id = e.id, suppressed = false, curated = false, curated_name = NULL, curated_type = NULL,
              curated_description = NULL,
              mention_count = (SELECT count(*) FROM graph_entity_mentions m WHERE m.entity_id = e.id)
            WHERE e.knowledge_space_id = ${spaceId}`
          yield* sql`
            UPDATE graph_entities e SET curated_name = c.name, curated_type = c.type, curated_description = c.description,
              curated = e.curated OR c.creates
            FROM (SELECT DISTINCT ON (target_id) target_id, name, type, description,
                    bool_or(creates_target) OVER (PARTITION BY target_id) AS creates
                  FROM graph_curations WHERE knowledge_space_id = ${spaceId} AND curation_kind = 'ENTITY' AND deleted_at IS NULL
                  ORDER BY target_id, curated_at DESC, id DESC) c
            WHERE e.id = c.target_id`
          yield* sql`
            UPDATE graph_entities e SET canonical_id = c.into_entity_id
            FROM (SELECT DISTINCT ON (target_id) target_id, into_entity_id
                  FROM graph_curations WHERE knowledge_space_id = ${spaceId} AND curation_kind = 'ALIAS' AND deleted_at IS NULL
                  ORDER BY target_id, curated_at DESC, id DESC) c
            WHERE e.id = c.target_id AND EXISTS (SELECT 1 FROM graph_entities i WHERE i.id = c.into_entity_id AND i.knowledge_space_id = ${spaceId})`
          yield* sql`
            UPDATE graph_entities e SET suppressed = true
            WHERE e.knowledge_space_id = ${spaceId} AND e.id IN (SELECT target_id FROM graph_curations
              WHERE knowledge_space_id = ${spaceId} AND curation_kind = 'SUPPRESSION' AND target_kind = 'ENTITY' AND deleted_at IS NULL)`
          yield* sql`
            UPDATE graph_relations r SET source_canonical_id = s.canonical_id, target_canonical_id = t.canonical_id, suppressed = false, curated = false,
              curated_type = NULL, curated_description = NULL, curated_keywords = NULL, curated_weight = NULL
            FROM graph_entities s, graph_entities t
            WHERE r.knowledge_space_id = ${spaceId} AND s.id = r.source_entity_id AND t.id = r.target_entity_id`
          yield* sql`
            UPDATE graph_relations r SET curated_type = c.type, curated_description = c.description, curated_keywords = c.keywords, curated_weight = c.weight,
              curated = r.curated OR c.creates
            FROM (SELECT DISTINCT ON (target_id) target_id, type, description, keywords, weight,
                    bool_or(creates_target) OVER (PARTITION BY target_id) AS creates
                  FROM graph_curations WHERE knowledge_space_id = ${spaceId} AND curation_kind = 'RELATION' AND deleted_at IS NULL
                  ORDER BY target_id, curated_at DESC, id DESC) c
            WHERE r.id = c.target_id`
          yield* sql`
            UPDATE graph_relations r SET suppressed = true
            WHERE r.knowledge_space_id = ${spaceId} AND r.id IN (SELECT target_id FROM graph_curations
              WHERE knowledge_space_id = ${spaceId} AND curation_kind = 'SUPPRESSION' AND target_kind = 'RELATION' AND deleted_at IS NULL)`
        })),

      /**
       * Serializes the writers of one space's graph (projections and curations) for the rest of the transaction:
       * both recompute the space's overlay, and two projections upserting shared entities in different orders
       * would otherwise deadlock on PostgreSQL. The settings row (made on first use) is the lock.
       */
      lockSpace: exec((organizationId: string, spaceId: string) => sql`
        INSERT INTO graph_space_settings (knowledge_space_id, organization_id) VALUES (${spaceId}, ${organizationId})
        ON CONFLICT (knowledge_space_id) DO UPDATE SET indexing_enabled = graph_space_settings.indexing_enabled`),

      /** Whether any space of the organization has graph retrieval on (the assistant offers graph_explore then). */
      retrievalAnywhere: row("graph.retrievalAnywhere", Schema.Struct({ knowledgeSpaceId: Schema.String }), (organizationId: string) => sql`
        SELECT knowledge_space_id FROM graph_space_settings WHERE organization_id = ${organizationId} AND retrieval_enabled LIMIT 1`),
      indexingEnabled: row("graph.indexingEnabled", Flag, (spaceId: string) => sql`
        SELECT indexing_enabled, retrieval_enabled FROM graph_space_settings WHERE knowledge_space_id = ${spaceId}`),
      setIndexing: exec((organizationId: string, spaceId: string, settings: { indexingEnabled: boolean; retrievalEnabled: boolean }, userId: string | null) => sql`
        INSERT INTO graph_space_settings (knowledge_space_id, organization_id, indexing_enabled, retrieval_enabled, updated_by)
        VALUES (${spaceId}, ${organizationId}, ${settings.indexingEnabled}, ${settings.retrievalEnabled}, ${userId})
        ON CONFLICT (knowledge_space_id) DO UPDATE SET indexing_enabled = EXCLUDED.indexing_enabled, retrieval_enabled = EXCLUDED.retrieval_enabled,
          updated_by = EXCLUDED.updated_by, updated_at = now()`),

      // Curation targets, as the caller may see them (a curator cannot act on what they cannot read).
      entitySeenBy: row("graph.entitySeenBy", EntityTarget, (spaceId: string, entityId: string, visible: AccessPredicate) => sql`
        SELECT e.id, e.name, e.type, e.canonical_id FROM graph_entities e
        WHERE e.id = ${entityId} AND e.knowledge_space_id = ${spaceId} AND (e.curated OR EXISTS (
          SELECT 1 FROM graph_entity_mentions gm JOIN chunks c ON c.id = gm.chunk_id WHERE gm.entity_id = e.id AND c.searchable AND ${visible("c")}))`),
      entityByKey: row("graph.entityByKey", EntityTarget, (spaceId: string, normalizedName: string, type: string) => sql`
        SELECT id, name, type, canonical_id FROM graph_entities WHERE knowledge_space_id = ${spaceId} AND normalized_name = ${normalizedName} AND type = ${type}`),
      createEntity: one("graph.createEntity", EntityTarget, (organizationId: string, spaceId: string, normalizedName: string, type: string, name: string) => sql`
        INSERT INTO graph_entities (id, organization_id, knowledge_space_id, normalized_name, type, name, canonical_id, curated)
        SELECT g, ${organizationId}, ${spaceId}, ${normalizedName}, ${type}, ${name}, g, true FROM (SELECT gen_random_uuid() AS g) x
        ON CONFLICT (knowledge_space_id, normalized_name, type) DO UPDATE SET name = graph_entities.name
        RETURNING id, name, type, canonical_id`),
      relationSeenBy: row("graph.relationSeenBy", RelationTarget, (spaceId: string, relationId: string, visible: AccessPredicate) => sql`
        SELECT r.id, r.source_entity_id, r.target_entity_id, r.type FROM graph_relations r
        WHERE r.id = ${relationId} AND r.knowledge_space_id = ${spaceId} AND (r.curated OR EXISTS (
          SELECT 1 FROM graph_relation_mentions rm JOIN chunks c ON c.id = rm.chunk_id WHERE rm.relation_id = r.id AND c.searchable AND ${visible("c")}))`),
      ensureRelation: one("graph.ensureRelation", RelationTarget, (organizationId: string, spaceId: string, sourceId: string, targetId: string, type: string) => sql`
        INSERT INTO graph_relations (organization_id, knowledge_space_id, source_entity_id, target_entity_id, type, source_canonical_id, target_canonical_id)
        VALUES (${organizationId}, ${spaceId}, ${sourceId}, ${targetId}, ${type}, ${sourceId}, ${targetId})
        ON CONFLICT (knowledge_space_id, source_entity_id, target_entity_id, type) DO UPDATE SET type = graph_relations.type
        RETURNING id, source_entity_id, target_entity_id, type`),
      /** Entities merged into `entityId` (an alias target must not itself be merged away, nor have aliases of its own). */
      aliasState: row("graph.aliasState", Schema.Struct({ mergedAway: Schema.Boolean, hasAliases: Schema.Boolean }), (spaceId: string, entityId: string) => sql`
        SELECT EXISTS (SELECT 1 FROM graph_curations WHERE knowledge_space_id = ${spaceId} AND curation_kind = 'ALIAS' AND deleted_at IS NULL AND target_id = ${entityId}) AS merged_away,
               EXISTS (SELECT 1 FROM graph_curations WHERE knowledge_space_id = ${spaceId} AND curation_kind = 'ALIAS' AND deleted_at IS NULL AND into_entity_id = ${entityId}) AS has_aliases`),

      insertCuration: one("graph.insertCuration", Id, (c: NewCuration) => sql`
        INSERT INTO graph_curations (organization_id, knowledge_space_id, curation_kind, target_kind, target_id, creates_target, into_entity_id, name, type, description,
          keywords, weight, actor_user_id, authorization_model_id, acl_generation, reason)
        VALUES (${c.organizationId}, ${c.knowledgeSpaceId}, ${c.curationKind}, ${c.targetKind}, ${c.targetId}, ${c.createsTarget}, ${c.intoEntityId}, ${c.name}, ${c.type},
          ${c.description}, ${c.keywords === null ? null : c.keywords}::text[], ${c.weight}, ${c.actorUserId}, ${c.authorizationModelId}, ${c.aclGeneration}, ${c.reason})
        RETURNING id`),
      curations: rows("graph.curations", CurationRow, (spaceId: string, curationId: string | null) => sql`
        SELECT g.id, g.organization_id, g.knowledge_space_id, ks.key AS space_key, g.curation_kind, g.target_kind, g.target_id, g.into_entity_id, g.name, g.type,
          g.description, g.actor_user_id, g.authorization_model_id, g.acl_generation, g.curated_at, g.reason,
          CASE WHEN g.target_kind = 'ENTITY' THEN NOT EXISTS (
                 SELECT 1 FROM graph_entities e WHERE e.id = g.target_id AND (e.curated OR EXISTS (
                   SELECT 1 FROM graph_entity_mentions gm JOIN chunks c ON c.id = gm.chunk_id WHERE gm.entity_id = e.id AND c.searchable)))
               OR (g.into_entity_id IS NOT NULL AND NOT EXISTS (
                 SELECT 1 FROM graph_entities e WHERE e.id = g.into_entity_id AND (e.curated OR EXISTS (
                   SELECT 1 FROM graph_entity_mentions gm JOIN chunks c ON c.id = gm.chunk_id WHERE gm.entity_id = e.id AND c.searchable))))
             ELSE NOT EXISTS (
                 SELECT 1 FROM graph_relations r WHERE r.id = g.target_id AND (r.curated OR EXISTS (
                   SELECT 1 FROM graph_relation_mentions rm JOIN chunks c ON c.id = rm.chunk_id WHERE rm.relation_id = r.id AND c.searchable)))
          END AS dangling
        FROM graph_curations g JOIN knowledge_spaces ks ON ks.id = g.knowledge_space_id
        WHERE g.knowledge_space_id = ${spaceId} AND g.deleted_at IS NULL ${curationId === null ? sql.literal("") : sql`AND g.id = ${curationId}`}
        ORDER BY g.curated_at, g.id`),
      deleteCuration: affected((spaceId: string, curationId: string, userId: string | null, reason: string) => sql`
        UPDATE graph_curations SET deleted_at = now(), deleted_by = ${userId}, deletion_reason = ${reason}
        WHERE id = ${curationId} AND knowledge_space_id = ${spaceId} AND deleted_at IS NULL RETURNING id`)
    }
  })
}) {}
