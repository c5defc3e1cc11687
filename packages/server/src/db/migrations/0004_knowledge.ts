import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // pgvector when installed (PGlite always, PostgreSQL when packaged); else exact cosine over real[].
  const vector = (yield* sql`SELECT 1 FROM pg_extension WHERE extname = 'vector'`).length > 0

  yield* sql`
    CREATE TABLE blobs (
      sha256 text PRIMARY KEY,
      content bytea NOT NULL,
      byte_length bigint NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE knowledge_assets (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      knowledge_space_id uuid NOT NULL REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      title text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    )`
  yield* sql`CREATE UNIQUE INDEX knowledge_assets_title_key ON knowledge_assets (knowledge_space_id, lower(title)) WHERE deleted_at IS NULL`
  yield* sql`
    CREATE TABLE sources (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      knowledge_space_id uuid NOT NULL REFERENCES knowledge_spaces(id) ON DELETE CASCADE,
      knowledge_asset_id uuid NOT NULL REFERENCES knowledge_assets(id) ON DELETE CASCADE,
      -- each upload is one version of its knowledge asset; the source id doubles as the version id
      version_number integer NOT NULL,
      title text NOT NULL,
      source_system text NOT NULL DEFAULT 'UPLOAD',
      acl_authority text NOT NULL DEFAULT 'LORE',
      status text NOT NULL DEFAULT 'PROCESSING',
      classification text NOT NULL,
      classification_rank smallint NOT NULL,
      -- source-principal keys of a connector's ACL; NULL for uploads, which only space grants govern
      acl_keys text[],
      file_name text NOT NULL,
      media_type text NOT NULL,
      content_length bigint NOT NULL,
      content_digest text NOT NULL REFERENCES blobs(sha256),
      language text NOT NULL DEFAULT 'en',
      page_count integer,
      chunk_count integer,
      failure_code text,
      failure_message text,
      uploaded_by uuid REFERENCES users(id) ON DELETE SET NULL,
      embedding_profile_key text,
      embedding_provider text,
      embedding_model text,
      embedding_dimensions integer,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      ready_at timestamptz,
      deleted_at timestamptz,
      UNIQUE (knowledge_asset_id, version_number)
    )`
  yield* sql`CREATE INDEX sources_listing_idx ON sources (organization_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX sources_space_idx ON sources (knowledge_space_id) WHERE deleted_at IS NULL`
  yield* sql`
    CREATE TABLE chunks (
      id uuid PRIMARY KEY,
      source_id uuid NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
      organization_id uuid NOT NULL,
      knowledge_space_id uuid NOT NULL,
      knowledge_asset_id uuid NOT NULL,
      classification_rank smallint NOT NULL,
      acl_keys text[],
      ordinal integer NOT NULL,
      heading text,
      heading_path text[] NOT NULL DEFAULT '{}',
      start_page integer,
      end_page integer,
      content text NOT NULL,
      search_vector tsvector NOT NULL,
      -- token count of search_vector, for BM25 length normalization
      token_count integer NOT NULL,
      -- only the latest ready version of an asset is searchable; older and deleted ones are not
      searchable boolean NOT NULL DEFAULT false,
      embedding ${sql.literal(vector ? "vector" : "real[]")}
    )`
  yield* sql`CREATE INDEX chunks_search_idx ON chunks USING gin (search_vector) WHERE searchable`
  yield* sql`CREATE INDEX chunks_source_idx ON chunks (source_id, ordinal)`
  yield* sql`CREATE INDEX chunks_scope_idx ON chunks (organization_id, knowledge_space_id) WHERE searchable`
  yield* sql`CREATE INDEX chunks_acl_idx ON chunks USING gin (acl_keys) WHERE acl_keys IS NOT NULL`
  // BM25 statistics over searchable chunks, maintained when chunks become or stop being searchable.
  yield* sql`
    CREATE TABLE search_terms (
      organization_id uuid NOT NULL,
      term text NOT NULL,
      document_frequency integer NOT NULL,
      PRIMARY KEY (organization_id, term)
    )`
  yield* sql`
    CREATE TABLE search_corpus (
      organization_id uuid PRIMARY KEY,
      chunk_count bigint NOT NULL DEFAULT 0,
      token_total bigint NOT NULL DEFAULT 0
    )`
})
