import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The knowledge graph (issue 15): per-space settings, processing profiles, graph jobs with their staged
 * per-chunk extractions, entities and relations with their supporting chunks (mentions), and the curation
 * overlay. Entities and relations have stable ids (one row per space and natural key); re-extraction
 * replaces only an asset's mentions, so curations that name an entity or relation keep their target.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE graph_space_settings (
      knowledge_space_id uuid PRIMARY KEY REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      indexing_enabled boolean NOT NULL DEFAULT false,
      -- the assistant's retrieval adds the chunks behind relations of entities named in a question
      retrieval_enabled boolean NOT NULL DEFAULT false,
      updated_by uuid REFERENCES users(id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE graph_processing_profiles (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      extractor text NOT NULL,
      gateway_id uuid,
      model_id text NOT NULL,
      prompt_version text NOT NULL,
      entity_types text[] NOT NULL,
      -- sha256 of the canonical JSON of (extractor, gatewayId, modelId, promptVersion, entityTypes)
      sha256 text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, sha256)
    )`
  yield* sql`
    CREATE TABLE graph_jobs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      knowledge_space_id uuid NOT NULL REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      knowledge_asset_id uuid NOT NULL REFERENCES knowledge_assets(id) ON DELETE CASCADE,
      knowledge_asset_version_id uuid NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
      source_revision_id uuid NOT NULL,
      projection_generation integer NOT NULL,
      graph_processing_profile_id uuid NOT NULL REFERENCES graph_processing_profiles(id),
      status text NOT NULL DEFAULT 'QUEUED',
      attempt integer NOT NULL DEFAULT 1,
      cancellation_requested boolean NOT NULL DEFAULT false,
      cancellation_requested_at timestamptz,
      last_error_code text,
      last_error_message text,
      requested_by uuid REFERENCES users(id) ON DELETE SET NULL,
      chunks_total integer NOT NULL DEFAULT 0,
      chunks_done integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    )`
  // One active job per asset: a second graph-index call answers the active one.
  yield* sql`CREATE UNIQUE INDEX graph_jobs_active_key ON graph_jobs (knowledge_asset_id) WHERE status IN ('QUEUED', 'RUNNING')`
  yield* sql`
    CREATE TABLE graph_job_extractions (
      job_id uuid NOT NULL REFERENCES graph_jobs(id) ON DELETE CASCADE,
      chunk_id uuid NOT NULL,
      extraction jsonb NOT NULL,
      PRIMARY KEY (job_id, chunk_id)
    )`
  yield* sql`
    CREATE TABLE graph_asset_projections (
      knowledge_asset_id uuid PRIMARY KEY REFERENCES knowledge_assets(id) ON DELETE CASCADE,
      generation integer NOT NULL,
      job_id uuid,
      projected_at timestamptz
    )`
  yield* sql`
    CREATE TABLE graph_entities (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      knowledge_space_id uuid NOT NULL REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      normalized_name text NOT NULL,
      type text NOT NULL,
      name text NOT NULL,
      -- added by a curator (no extracted evidence)
      curated boolean NOT NULL DEFAULT false,
      -- the overlay, recomputed from the curations after every projection and curation change
      canonical_id uuid NOT NULL,
      suppressed boolean NOT NULL DEFAULT false,
      curated_name text,
      curated_type text,
      curated_description text,
      mention_count integer NOT NULL DEFAULT 0,
      UNIQUE (knowledge_space_id, normalized_name, type)
    )`
  yield* sql`CREATE INDEX graph_entities_canonical_idx ON graph_entities (canonical_id)`
  yield* sql`CREATE INDEX graph_entities_name_idx ON graph_entities (knowledge_space_id, normalized_name)`
  yield* sql`CREATE INDEX graph_entities_mentioned_idx ON graph_entities (knowledge_space_id, mention_count DESC, id)`
  yield* sql`
    CREATE TABLE graph_entity_mentions (
      entity_id uuid NOT NULL REFERENCES graph_entities(id) ON DELETE CASCADE,
      chunk_id uuid NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
      knowledge_asset_id uuid NOT NULL,
      -- the version (source) the chunk belongs to: visibility is decided once per version in the explorer's walk
      source_id uuid NOT NULL,
      description text NOT NULL DEFAULT '',
      acl_generation integer NOT NULL,
      PRIMARY KEY (entity_id, chunk_id)
    )`
  yield* sql`CREATE INDEX graph_entity_mentions_asset_idx ON graph_entity_mentions (knowledge_asset_id)`
  yield* sql`CREATE INDEX graph_entity_mentions_chunk_idx ON graph_entity_mentions (chunk_id)`
  yield* sql`
    CREATE TABLE graph_relations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      knowledge_space_id uuid NOT NULL REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      source_entity_id uuid NOT NULL REFERENCES graph_entities(id) ON DELETE CASCADE,
      target_entity_id uuid NOT NULL REFERENCES graph_entities(id) ON DELETE CASCADE,
      type text NOT NULL,
      curated boolean NOT NULL DEFAULT false,
      -- the overlay: endpoints after aliases, suppression, corrections
      source_canonical_id uuid NOT NULL,
      target_canonical_id uuid NOT NULL,
      suppressed boolean NOT NULL DEFAULT false,
      curated_type text,
      curated_description text,
      curated_keywords text[],
      curated_weight real,
      UNIQUE (knowledge_space_id, source_entity_id, target_entity_id, type)
    )`
  yield* sql`CREATE INDEX graph_relations_source_idx ON graph_relations (source_canonical_id)`
  yield* sql`CREATE INDEX graph_relations_target_idx ON graph_relations (target_canonical_id)`
  yield* sql`
    CREATE TABLE graph_relation_mentions (
      relation_id uuid NOT NULL REFERENCES graph_relations(id) ON DELETE CASCADE,
      chunk_id uuid NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
      knowledge_asset_id uuid NOT NULL,
      -- the version (source) the chunk belongs to: visibility is decided once per version in the explorer's walk
      source_id uuid NOT NULL,
      description text NOT NULL DEFAULT '',
      keywords text[] NOT NULL DEFAULT '{}',
      weight real NOT NULL DEFAULT 1,
      acl_generation integer NOT NULL,
      PRIMARY KEY (relation_id, chunk_id)
    )`
  yield* sql`CREATE INDEX graph_relation_mentions_asset_idx ON graph_relation_mentions (knowledge_asset_id)`
  yield* sql`CREATE INDEX graph_relation_mentions_source_idx ON graph_relation_mentions (relation_id, source_id)`
  yield* sql`CREATE INDEX graph_entity_mentions_source_idx ON graph_entity_mentions (entity_id, source_id)`
  yield* sql`
    CREATE TABLE graph_curations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      knowledge_space_id uuid NOT NULL REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      -- ENTITY (add or correct), RELATION (add or correct), ALIAS (merge target into into_entity_id), SUPPRESSION
      curation_kind text NOT NULL,
      target_kind text NOT NULL,
      -- the entity or relation; not a foreign key: a curation outlives its target and is then reported dangling
      target_id uuid NOT NULL,
      -- the curation added its target (a curated entity or relation), rather than correcting an extracted one
      creates_target boolean NOT NULL DEFAULT false,
      into_entity_id uuid,
      name text,
      type text,
      description text,
      keywords text[],
      weight real,
      actor_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      authorization_model_id text NOT NULL,
      acl_generation integer NOT NULL,
      curated_at timestamptz NOT NULL DEFAULT now(),
      reason text NOT NULL DEFAULT '',
      deleted_at timestamptz,
      deleted_by uuid REFERENCES users(id) ON DELETE SET NULL,
      deletion_reason text
    )`
  yield* sql`CREATE INDEX graph_curations_space_idx ON graph_curations (knowledge_space_id) WHERE deleted_at IS NULL`
})
