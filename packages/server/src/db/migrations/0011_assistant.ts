import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The assistant: conversations private to their owner, their messages (the assistant's with status,
 * provider and model), the passages each answer cited (as they were when cited: availability is evaluated
 * again on every read), per-message feedback, and the starters administrators configure.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE assistant_conversations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      owner_user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      title text NOT NULL,
      model_activation_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_activity_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX assistant_conversations_owner_activity ON assistant_conversations (owner_user_id, last_activity_at DESC, id)`
  yield* sql`
    CREATE TABLE assistant_messages (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      conversation_id uuid NOT NULL REFERENCES assistant_conversations(id) ON DELETE CASCADE,
      sequence integer NOT NULL,
      role text NOT NULL,
      content text NOT NULL,
      status text NOT NULL DEFAULT 'COMPLETE',
      provider text,
      model text,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (conversation_id, sequence)
    )`
  yield* sql`
    CREATE TABLE assistant_message_citations (
      message_id uuid NOT NULL REFERENCES assistant_messages(id) ON DELETE CASCADE,
      citation_number integer NOT NULL,
      citation_id uuid NOT NULL,
      source_id uuid NOT NULL,
      knowledge_asset_id uuid NOT NULL,
      title text NOT NULL,
      heading text,
      start_page integer,
      end_page integer,
      PRIMARY KEY (message_id, citation_number)
    )`
  yield* sql`
    CREATE TABLE assistant_message_feedback (
      message_id uuid PRIMARY KEY REFERENCES assistant_messages(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      sentiment text NOT NULL,
      comment text,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE assistant_starters (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      label text NOT NULL,
      prompt text NOT NULL,
      position integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX assistant_starters_organization ON assistant_starters (organization_id, position)`
})
