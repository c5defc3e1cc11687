import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * AI gateways (a provider endpoint and its sealed credential), the models the assistant offers on each,
 * and the administrators' routes from workloads to a gateway and model. The built-in LOCAL gateway and the
 * one made from LORE_EMBEDDING_* are not rows: they are always present and nobody edits them, so a route's
 * gateway_id is not a foreign key (the services check it, and refuse to delete a gateway a route uses).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE ai_gateways (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      gateway_key text NOT NULL,
      display_name text NOT NULL,
      preset text NOT NULL,
      category text NOT NULL,
      protocol text NOT NULL,
      base_url text NOT NULL,
      request_timeout_seconds integer NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      supports_reasoning_effort boolean NOT NULL DEFAULT false,
      version integer NOT NULL DEFAULT 1,
      -- AES-256-GCM under the server key (platform/SecretBox); never returned, logged or audited
      credential_sealed text,
      credential_set_by uuid REFERENCES users(id) ON DELETE SET NULL,
      credential_set_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, gateway_key)
    )`
  yield* sql`
    CREATE TABLE ai_assistant_models (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      gateway_id uuid NOT NULL REFERENCES ai_gateways(id) ON DELETE CASCADE,
      model_id text NOT NULL,
      display_name text NOT NULL,
      position integer NOT NULL,
      UNIQUE (gateway_id, model_id)
    )`
  yield* sql`
    CREATE TABLE ai_routes (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      workload text NOT NULL,
      gateway_id uuid NOT NULL,
      model_id text NOT NULL,
      provider_reasoning_effort text,
      version integer NOT NULL DEFAULT 1,
      updated_by uuid REFERENCES users(id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, workload)
    )`
  yield* sql`CREATE INDEX ai_routes_gateway_idx ON ai_routes (gateway_id)`
})
