import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Evidence bound to assistant conversations. The document itself is an ordinary knowledge source (uploaded
 * through the knowledge area, governed by the access evaluator like any source); a binding only says which
 * conversation it is evidence for. Deleting the conversation deletes its bindings, never the sources. There
 * is deliberately no foreign key to `sources`: a deleted or purged source leaves its binding UNAVAILABLE
 * rather than silently gone, and the knowledge area keeps its purge to itself.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE assistant_evidence_bindings (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      conversation_id uuid NOT NULL REFERENCES assistant_conversations(id) ON DELETE CASCADE,
      bound_by uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      source_id uuid NOT NULL,
      knowledge_asset_id uuid NOT NULL,
      knowledge_space_id uuid NOT NULL,
      title text NOT NULL,
      file_name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (conversation_id, source_id)
    )`
  yield* sql`CREATE INDEX assistant_evidence_bindings_conversation ON assistant_evidence_bindings (conversation_id, created_at, id)`
})
