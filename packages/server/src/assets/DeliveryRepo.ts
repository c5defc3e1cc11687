import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { exec, one, row, rows, Timestamp } from "../db/Rows"
import { Classification } from "../domain/Model"
import type { AccessPredicate } from "./AssetsRepo"

const Acknowledgement = Schema.Struct({ acknowledgedAt: Timestamp })
const ItemRelease = Schema.Struct({
  title: Schema.String,
  versionLabel: Schema.String,
  availability: Schema.Literal("AVAILABLE", "WITHDRAWN", "EMERGENCY_WITHDRAWN"),
  classification: Classification
})
const KnowledgeVersion = Schema.Struct({ id: Schema.String, title: Schema.String, versionNumber: Schema.Number, deletedAt: Schema.NullOr(Timestamp) })
const Journey = Schema.Struct({ id: Schema.String, releaseId: Schema.String, userId: Schema.String, startedAt: Timestamp, completedAt: Schema.NullOr(Timestamp) })
export type JourneyRow = typeof Journey.Type
const Recommended = Schema.Struct({
  assetId: Schema.String,
  type: Schema.Literal("PROMPT_TEMPLATE", "WORK_INSTRUCTION", "CAPABILITY_PACK", "SKILL"),
  namespace: Schema.String,
  slug: Schema.String,
  knowledgeSpaceId: Schema.String,
  portfolioState: Schema.Literal("DRAFT_ONLY", "IN_REVIEW", "RELEASED", "WITHDRAWN"),
  sharingState: Schema.Literal("PRIVATE", "SHARED"),
  releaseId: Schema.String,
  versionLabel: Schema.String,
  releaseDigest: Schema.String,
  title: Schema.String,
  summary: Schema.String,
  releasedAt: Timestamp,
  score: Schema.Number
})
export type RecommendedRow = typeof Recommended.Type
const Progress = Schema.Struct({ itemKey: Schema.String, completedAt: Timestamp })

/** SQL for what consumers do with releases: acknowledgements, pack journeys and progress, pack items' targets. */
export class DeliveryRepo extends Effect.Service<DeliveryRepo>()("lore/AssetDeliveryRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      /**
       * Each visible asset's latest AVAILABLE release within the caller's clearance (withdrawn releases are never
       * recommended), ranked for `request` by Okapi BM25 (k1 1.2, b 0.75) over the release's indexed title, summary
       * and body (migration 0040: search_vector, search_length, the title counted twice), document frequencies and
       * the average length taken over these releases. OR semantics: a release sharing any term with the request is
       * ranked, the others left out; a request without terms (empty, or stop words only) lists every release,
       * newest first. Terms are lexemes of the request (lore_search_query, as knowledge search), quoted into the
       * tsquery that picks the releases to score, so no request text is ever parsed as tsquery syntax.
       */
      recommended: rows("delivery.recommended", Recommended, (organizationId: string, visible: AccessPredicate, type: string | undefined, clearanceRank: number, request: string) => sql`
        WITH candidates AS (
          SELECT a.id AS asset_id, a.type, a.namespace, a.slug, a.knowledge_space_id, a.portfolio_state, a.sharing_state,
            r.id AS release_id, r.version_label, r.digest AS release_digest, r.title, r.summary, r.released_at, r.search_vector, r.search_length
          FROM assets a
          JOIN LATERAL (
            SELECT x.id, x.version_label, x.digest, x.title, x.summary, x.released_at, x.search_vector, x.search_length, x.classification_rank
            FROM asset_releases x WHERE x.asset_id = a.id AND x.availability = 'AVAILABLE' ORDER BY x.sequence DESC LIMIT 1
          ) r ON true
          WHERE a.organization_id = ${organizationId} AND ${visible("a")} AND r.classification_rank <= ${clearanceRank}
            ${type ? sql`AND a.type = ${type}` : sql``}
        ),
        wanted AS (SELECT DISTINCT v.lexeme FROM unnest(to_tsvector('lore_search_query', ${request})) v),
        query AS (
          SELECT string_agg(chr(39) || replace(replace(lexeme, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39), ' | ')::tsquery AS terms
          FROM wanted
        ),
        corpus AS (SELECT count(*)::float8 AS releases, GREATEST(avg(search_length), 1)::float8 AS average_length FROM candidates),
        hits AS (
          SELECT c.release_id, t.lexeme, c.search_length::float8 AS length,
            (cardinality(t.positions) + cardinality(array_positions(t.weights, 'A')))::float8 AS frequency
          FROM candidates c CROSS JOIN query CROSS JOIN LATERAL unnest(c.search_vector) t
          WHERE c.search_vector @@ query.terms AND t.lexeme IN (SELECT lexeme FROM wanted)
        ),
        holding AS (SELECT lexeme, count(*)::float8 AS releases FROM hits GROUP BY lexeme),
        scores AS (
          SELECT h.release_id,
            sum(ln(1 + (corpus.releases - holding.releases + 0.5) / (holding.releases + 0.5))
              * h.frequency * 2.2 / (h.frequency + 1.2 * (0.25 + 0.75 * h.length / corpus.average_length))) AS score
          FROM hits h JOIN holding USING (lexeme) CROSS JOIN corpus
          GROUP BY h.release_id
        )
        SELECT c.asset_id, c.type, c.namespace, c.slug, c.knowledge_space_id, c.portfolio_state, c.sharing_state,
          c.release_id, c.version_label, c.release_digest, c.title, c.summary, c.released_at, COALESCE(s.score, 0)::float8 AS score
        FROM candidates c LEFT JOIN scores s USING (release_id)
        WHERE s.score IS NOT NULL OR NOT EXISTS (SELECT 1 FROM wanted)
        ORDER BY score DESC, c.released_at DESC, c.release_id`),

      recordRun: exec((run: { releaseId: string; userId: string; traceId: string; inputShapeDigest: string; gatewayId: string; modelId: string; durationMillis: number }) => sql`
        INSERT INTO asset_prompt_runs (id, release_id, user_id, trace_id, input_shape_digest, gateway_id, model_id, duration_millis)
        VALUES (${run.traceId}, ${run.releaseId}, ${run.userId}, ${run.traceId}, ${run.inputShapeDigest}, ${run.gatewayId}, ${run.modelId}, ${run.durationMillis})`),

      acknowledgement: row("delivery.acknowledgement", Acknowledgement, (releaseId: string, userId: string) =>
        sql`SELECT acknowledged_at FROM asset_acknowledgements WHERE release_id = ${releaseId} AND user_id = ${userId}`),
      acknowledge: exec((releaseId: string, userId: string) =>
        sql`INSERT INTO asset_acknowledgements (release_id, user_id) VALUES (${releaseId}, ${userId}) ON CONFLICT DO NOTHING`),

      /** A pack item's pinned release, if the caller sees its asset (the evaluator's predicate on the asset). */
      itemRelease: row("delivery.itemRelease", ItemRelease, (organizationId: string, assetId: string, releaseId: string, visible: AccessPredicate) => sql`
        SELECT r.title, r.version_label, r.availability, r.classification
        FROM asset_releases r JOIN assets a ON a.id = r.asset_id
        WHERE a.organization_id = ${organizationId} AND a.id = ${assetId} AND r.id = ${releaseId} AND ${visible("a")}`),

      /**
       * A pack item's pinned knowledge version, if the caller may read it: the evaluator's predicate on the
       * version (sources row), the same rule every knowledge read path applies.
       */
      knowledgeVersion: row("delivery.knowledgeVersion", KnowledgeVersion, (organizationId: string, knowledgeAssetId: string, versionNumber: number, visible: AccessPredicate) => sql`
        SELECT s.id, s.title, s.version_number, s.deleted_at FROM sources s
        WHERE s.organization_id = ${organizationId} AND s.knowledge_asset_id = ${knowledgeAssetId} AND s.version_number = ${versionNumber} AND ${visible("s")}`),

      /** The caller's journey through a pack release, started on first use. */
      journey: one("delivery.journey", Journey, (releaseId: string, userId: string) => sql`
        INSERT INTO asset_pack_journeys (release_id, user_id) VALUES (${releaseId}, ${userId})
        ON CONFLICT (release_id, user_id) DO UPDATE SET release_id = EXCLUDED.release_id
        RETURNING id, release_id, user_id, started_at, completed_at`),
      progress: rows("delivery.progress", Progress, (journeyId: string) =>
        sql`SELECT item_key, completed_at FROM asset_pack_progress WHERE journey_id = ${journeyId}`),
      complete: exec((journeyId: string, itemKey: string) =>
        sql`INSERT INTO asset_pack_progress (journey_id, item_key) VALUES (${journeyId}, ${itemKey}) ON CONFLICT DO NOTHING`),
      uncomplete: exec((journeyId: string, itemKey: string) =>
        sql`DELETE FROM asset_pack_progress WHERE journey_id = ${journeyId} AND item_key = ${itemKey}`),
      setJourneyCompleted: exec((journeyId: string, completed: boolean) =>
        sql`UPDATE asset_pack_journeys SET completed_at = CASE WHEN ${completed} THEN coalesce(completed_at, now()) ELSE NULL END WHERE id = ${journeyId}`)
    }
  })
}) {}
