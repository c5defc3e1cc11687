import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * One row per model call: tokens in and out, duration, workload, and the gateway and model that served it
 * (by key and id as they were then: a gateway deleted later keeps its history). LOCAL calls are recorded
 * too, with zero tokens, so the totals show how much Lore answered offline.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE ai_usage (
      id bigserial PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      workload text NOT NULL,
      gateway_id uuid NOT NULL,
      gateway_key text NOT NULL,
      model_id text NOT NULL,
      input_tokens integer NOT NULL,
      output_tokens integer NOT NULL,
      duration_ms integer NOT NULL,
      outcome text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX ai_usage_organization_time ON ai_usage (organization_id, created_at)`
})
