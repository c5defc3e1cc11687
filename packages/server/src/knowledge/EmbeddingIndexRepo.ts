import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Database } from "../db/Sql"
import { Count, exec, one, row, rows, Timestamp } from "../db/Rows"

export const GenerationStatus = Schema.Literal("BUILDING", "ACTIVE", "RETIRED", "CANCELLED")
export type GenerationStatus = typeof GenerationStatus.Type

export const GenerationRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  number: Schema.Number,
  gatewayId: Schema.String,
  gatewayKey: Schema.String,
  provider: Schema.String,
  modelId: Schema.String,
  dimensions: Schema.Number,
  profileKey: Schema.String,
  status: GenerationStatus,
  jobId: Schema.NullOr(Schema.String),
  createdAt: Timestamp
})
export type GenerationRow = typeof GenerationRow.Type

export interface NewGeneration {
  readonly gatewayId: string
  readonly gatewayKey: string
  readonly provider: string
  readonly modelId: string
  readonly dimensions: number
  readonly profileKey: string
}

/** A chunk to embed, with the text ingestion embeds for it (title, heading path, passage). */
export const ChunkText = Schema.Struct({ id: Schema.String, title: Schema.String, headingPath: Schema.Array(Schema.String), content: Schema.String })
export type ChunkText = typeof ChunkText.Type

const Progress = Schema.Struct({ embedded: Count, total: Count })
const OrganizationId = Schema.Struct({ id: Schema.String })

const columns = "id, organization_id, number, gateway_id, gateway_key, provider, model_id, dimensions, profile_key, status, job_id, created_at"

/** SQL for embedding generations and their vectors (`chunk_embeddings`), one generation's vectors never mixed with another's. */
export class EmbeddingIndexRepo extends Effect.Service<EmbeddingIndexRepo>()("lore/EmbeddingIndexRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const database = yield* Database
    const all = sql.literal(columns)
    const vectorType = sql.literal(database.vector ? "vector" : "real[]")
    const vectorLiteral = (v: Float32Array) => (database.vector ? `[${Array.from(v).join(",")}]` : `{${Array.from(v).join(",")}}`)

    /** The organization's index lock row, taken FOR SHARE by writers of vectors and FOR UPDATE by a switch. */
    const lockIndex = (organizationId: string, mode: "share" | "update") =>
      Effect.gen(function* () {
        yield* exec(() => sql`INSERT INTO embedding_index_locks (organization_id) VALUES (${organizationId}) ON CONFLICT DO NOTHING`)()
        yield* exec(() => mode === "share"
          ? sql`SELECT 1 FROM embedding_index_locks WHERE organization_id = ${organizationId} FOR SHARE`
          : sql`SELECT 1 FROM embedding_index_locks WHERE organization_id = ${organizationId} FOR UPDATE`)()
      })

    const reportGeneration = (organizationId: string, generationId: string | null) =>
      generationId === null
        ? exec(() => sql`
            UPDATE sources SET embedding_profile_key = NULL, embedding_provider = NULL, embedding_model = NULL, embedding_dimensions = NULL
            WHERE organization_id = ${organizationId} AND embedding_profile_key IS NOT NULL`)()
        : exec(() => sql`
            UPDATE sources s SET embedding_profile_key = g.profile_key, embedding_provider = g.provider, embedding_model = g.model_id,
              embedding_dimensions = g.dimensions
            FROM embedding_generations g
            WHERE g.id = ${generationId} AND g.status = 'ACTIVE' AND s.organization_id = ${organizationId} AND s.deleted_at IS NULL
              AND (s.embedding_profile_key, s.embedding_provider) IS DISTINCT FROM (g.profile_key, g.provider)
              AND EXISTS (SELECT 1 FROM chunks c WHERE c.source_id = s.id)`)()

    return {
      lockIndex,

      organizations: rows("embeddingIndex.organizations", OrganizationId, () => sql`SELECT id FROM organizations`),

      /** The ACTIVE and BUILDING generations of an organization. */
      current: rows("embeddingIndex.current", GenerationRow, (organizationId: string) => sql`
        SELECT ${all} FROM embedding_generations
        WHERE organization_id = ${organizationId} AND status IN ('ACTIVE', 'BUILDING') ORDER BY number`),

      generation: row("embeddingIndex.generation", GenerationRow, (id: string) => sql`
        SELECT ${all} FROM embedding_generations WHERE id = ${id}`),

      insert: one("embeddingIndex.insert", GenerationRow, (organizationId: string, profile: NewGeneration, status: "BUILDING" | "ACTIVE") => sql`
        INSERT INTO embedding_generations (organization_id, number, gateway_id, gateway_key, provider, model_id, dimensions, profile_key, status, activated_at)
        SELECT ${organizationId}, coalesce(max(number), 0) + 1, ${profile.gatewayId}, ${profile.gatewayKey}, ${profile.provider}, ${profile.modelId},
          ${profile.dimensions}, ${profile.profileKey}, ${status}, ${status === "ACTIVE" ? sql`now()` : sql`NULL`}
        FROM embedding_generations WHERE organization_id = ${organizationId}
        RETURNING ${all}`),

      setJob: exec((id: string, jobId: string) => sql`UPDATE embedding_generations SET job_id = ${jobId} WHERE id = ${id}`),

      /** Ends a generation: RETIRED (it was ACTIVE) or CANCELLED (superseded while BUILDING). Its vectors go with `dropEnded`. */
      end: exec((id: string) => sql`
        UPDATE embedding_generations SET status = CASE status WHEN 'ACTIVE' THEN 'RETIRED' ELSE 'CANCELLED' END, ended_at = now()
        WHERE id = ${id} AND status IN ('ACTIVE', 'BUILDING')`),

      /** The switch: the ACTIVE generation retires and the BUILDING one becomes ACTIVE (call in one transaction, index locked). */
      activate: (organizationId: string, id: string) =>
        Effect.gen(function* () {
          yield* exec(() => sql`
            UPDATE embedding_generations SET status = 'RETIRED', ended_at = now()
            WHERE organization_id = ${organizationId} AND status = 'ACTIVE'`)()
          yield* exec(() => sql`UPDATE embedding_generations SET status = 'ACTIVE', activated_at = now() WHERE id = ${id} AND status = 'BUILDING'`)()
          yield* reportGeneration(organizationId, id)
        }),

      /**
       * What the organization's sources say they are embedded with, brought in line with the index: every
       * source with chunks reports the generation given (whose vectors its chunks now all have), or none
       * (`null`: embeddings off). A source's ingestion wrote what was ACTIVE then; a switch moves it on.
       */
      reportGeneration,

      /** Drops the vectors of the organization's ended generations (after a switch or a cancellation). */
      dropEnded: exec((organizationId: string) => sql`
        DELETE FROM chunk_embeddings WHERE generation_id IN (
          SELECT id FROM embedding_generations WHERE organization_id = ${organizationId} AND status IN ('RETIRED', 'CANCELLED'))`),

      /** Chunks of the organization (every version that is not being deleted) without a vector in the generation. */
      /** `after`: a chunk id to continue from (keyset), so a long run does not rescan what it embedded. */
      missing: rows("embeddingIndex.missing", ChunkText, (organizationId: string, generationId: string, limit: number, after: string | null = null) => sql`
        SELECT c.id, s.title, c.heading_path, c.content
        FROM chunks c JOIN sources s ON s.id = c.source_id
        WHERE c.organization_id = ${organizationId} AND s.deleted_at IS NULL ${after === null ? sql`` : sql`AND c.id > ${after}`}
          AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.generation_id = ${generationId} AND e.chunk_id = c.id)
        ORDER BY c.id LIMIT ${limit}`),

      chunkCount: Effect.fn(function* (organizationId: string) {
        const found = yield* one("embeddingIndex.chunkCount", Schema.Struct({ total: Count }), () => sql`
          SELECT count(*) AS total FROM chunks c JOIN sources s ON s.id = c.source_id
          WHERE c.organization_id = ${organizationId} AND s.deleted_at IS NULL`)()
        return found.total
      }),

      progress: one("embeddingIndex.progress", Progress, (organizationId: string, generationId: string) => sql`
        SELECT
          (SELECT count(*) FROM chunk_embeddings e JOIN chunks c ON c.id = e.chunk_id JOIN sources s ON s.id = c.source_id
            WHERE e.generation_id = ${generationId} AND s.deleted_at IS NULL) AS embedded,
          (SELECT count(*) FROM chunks c JOIN sources s ON s.id = c.source_id
            WHERE c.organization_id = ${organizationId} AND s.deleted_at IS NULL) AS total`),

      /** Stores vectors of a generation; a chunk that is gone (deleted meanwhile) or already has one is skipped. */
      store: (generationId: string, vectors: ReadonlyArray<{ readonly chunkId: string; readonly vector: Float32Array }>) =>
        vectors.length === 0
          ? Effect.void
          : exec(() => sql`
              INSERT INTO chunk_embeddings (generation_id, chunk_id, embedding)
              SELECT ${generationId}, u.chunk_id, u.embedding::${vectorType}
              FROM unnest(${vectors.map((v) => v.chunkId)}::uuid[], ${vectors.map((v) => vectorLiteral(v.vector))}::text[]) AS u(chunk_id, embedding)
              WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.id = u.chunk_id)
              ON CONFLICT (generation_id, chunk_id) DO NOTHING`)()
    }
  })
}) {}
