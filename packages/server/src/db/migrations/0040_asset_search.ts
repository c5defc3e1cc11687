import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Recommendations ranked by the database (issue 33.13): each release keeps a weighted tsvector of its title (A),
 * summary (B) and body (D: the payload's string values, keys left out) and its length in tokens, the title's
 * counted twice, as generated columns, so every release (old ones included) is indexed the moment it is written
 * and nothing in the application can forget to. assets/DeliveryRepo.ts `recommended` computes Okapi BM25 from
 * them over the releases the caller may use.
 *
 * A payload that is not JSON (none should be) or is too large to parse whole is indexed as plain text, so a
 * release is never refused for its index. Queries use the lore_search_query configuration (knowledge search's:
 * english without the hyphenated-word parts), which stems as english does.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION lore_asset_search_vector(title text, summary text, payload text) RETURNS tsvector
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    DECLARE body tsvector;
    BEGIN
      IF length(payload) <= 500000 THEN
        BEGIN
          body := jsonb_to_tsvector('english'::regconfig, payload::jsonb, '["string"]'::jsonb);
        EXCEPTION WHEN others THEN
          body := NULL;
        END;
      END IF;
      IF body IS NULL THEN
        body := to_tsvector('english'::regconfig, left(payload, 200000));
      END IF;
      RETURN setweight(to_tsvector('english'::regconfig, left(title, 10000)), 'A')
        || setweight(to_tsvector('english'::regconfig, left(summary, 20000)), 'B')
        || setweight(body, 'D');
    END $$`
  // Tokens, not distinct lexemes (BM25's document length); the title's (weight A) counted twice.
  yield* sql`
    CREATE FUNCTION lore_search_vector_length(vector tsvector) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT COALESCE(sum(cardinality(t.positions) + cardinality(array_positions(t.weights, 'A'))), 0)::integer FROM unnest(vector) t
    $$`
  yield* sql`
    ALTER TABLE asset_releases
      ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (lore_asset_search_vector(title, summary, payload)) STORED,
      ADD COLUMN search_length integer GENERATED ALWAYS AS (lore_search_vector_length(lore_asset_search_vector(title, summary, payload))) STORED`
})
