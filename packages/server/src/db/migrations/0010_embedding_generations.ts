import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Embedding generations: every vector belongs to the generation (gateway, model, dimensions) that made it,
 * so search ranks only with vectors of one model. At most one generation per organization is ACTIVE (the one
 * search uses) and at most one is BUILDING (a re-embedding after a DOCUMENT_EMBEDDING route change); the
 * switch flips both in one transaction and the old vectors are dropped afterwards.
 *
 * Vectors move from `chunks.embedding` to `chunk_embeddings`; vectors already stored become the ACTIVE
 * generation of their organization (they were made with LORE_EMBEDDING_*, the environment gateway).
 * `ai_routes.dimensions` is the vector size an embedding route asks for.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const vector = (yield* sql`SELECT 1 FROM pg_extension WHERE extname = 'vector'`).length > 0

  yield* sql`ALTER TABLE ai_routes ADD COLUMN dimensions integer`
  yield* sql`
    CREATE TABLE embedding_generations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      number integer NOT NULL,
      -- the gateway and model that make this generation's vectors, as they were when it was created
      gateway_id uuid NOT NULL,
      gateway_key text NOT NULL,
      provider text NOT NULL,
      model_id text NOT NULL,
      dimensions integer NOT NULL,
      profile_key text NOT NULL,
      -- BUILDING -> ACTIVE -> RETIRED; BUILDING -> CANCELLED (superseded before it was complete)
      status text NOT NULL,
      job_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      activated_at timestamptz,
      ended_at timestamptz,
      UNIQUE (organization_id, number)
    )`
  yield* sql`CREATE UNIQUE INDEX embedding_generations_active ON embedding_generations (organization_id) WHERE status = 'ACTIVE'`
  yield* sql`CREATE UNIQUE INDEX embedding_generations_building ON embedding_generations (organization_id) WHERE status = 'BUILDING'`
  yield* sql`
    CREATE TABLE chunk_embeddings (
      generation_id uuid NOT NULL REFERENCES embedding_generations(id) ON DELETE CASCADE,
      chunk_id uuid NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
      embedding ${sql.literal(vector ? "vector" : "real[]")} NOT NULL,
      PRIMARY KEY (generation_id, chunk_id)
    )`
  yield* sql`CREATE INDEX chunk_embeddings_chunk_idx ON chunk_embeddings (chunk_id)`
  // Ingestion holds this row FOR SHARE while it writes vectors, a generation switch FOR UPDATE: a switch never
  // misses a document whose vectors were being written for the generations known when it started.
  yield* sql`
    CREATE TABLE embedding_index_locks (
      organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE
    )`
  yield* sql`INSERT INTO embedding_index_locks (organization_id) SELECT id FROM organizations`

  yield* sql`
    INSERT INTO embedding_generations (organization_id, number, gateway_id, gateway_key, provider, model_id, dimensions, profile_key, status, activated_at)
    SELECT DISTINCT ON (s.organization_id) s.organization_id, 1, '00000000-0000-4000-a000-00000000000e', 'environment',
      s.embedding_provider, s.embedding_model, s.embedding_dimensions, s.embedding_profile_key, 'ACTIVE', now()
    FROM sources s
    WHERE s.embedding_profile_key IS NOT NULL AND s.deleted_at IS NULL
      AND EXISTS (SELECT 1 FROM chunks c WHERE c.source_id = s.id AND c.embedding IS NOT NULL)
    ORDER BY s.organization_id, s.ready_at DESC NULLS LAST`
  yield* sql`
    INSERT INTO chunk_embeddings (generation_id, chunk_id, embedding)
    SELECT g.id, c.id, c.embedding
    FROM chunks c
    JOIN sources s ON s.id = c.source_id
    JOIN embedding_generations g ON g.organization_id = c.organization_id AND g.profile_key = s.embedding_profile_key
    WHERE c.embedding IS NOT NULL`
  yield* sql`ALTER TABLE chunks DROP COLUMN embedding`
})
