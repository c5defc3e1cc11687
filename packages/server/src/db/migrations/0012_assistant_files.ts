import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Assistant files: documents a user attaches to their own chats. Private to their owner and never part of
 * the shared knowledge index: their bytes and chunks live in tables of their own (not `blobs`, whose
 * knowledge purge deletes unreferenced rows, and not `chunks`, which search reads). Deleting a file row
 * removes its content and chunks (cascade); expired files are purged by a periodic job.
 *
 * Rate limit buckets: one token bucket per user and limit name, shared by every process on the database.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE assistant_files (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      file_name text NOT NULL,
      media_type text NOT NULL,
      declared_media_type text,
      content_length bigint NOT NULL,
      content_digest text NOT NULL,
      status text NOT NULL CHECK (status IN ('UPLOADED', 'PROCESSING', 'READY', 'FAILED')),
      failure_code text,
      failure_message text,
      generation bigint NOT NULL DEFAULT 0,
      page_count integer,
      chunk_count integer,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX assistant_files_owner_created ON assistant_files (owner_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX assistant_files_expires ON assistant_files (expires_at)`
  yield* sql`
    CREATE TABLE assistant_file_contents (
      file_id uuid PRIMARY KEY REFERENCES assistant_files(id) ON DELETE CASCADE,
      content bytea NOT NULL
    )`
  yield* sql`
    CREATE TABLE assistant_file_chunks (
      id uuid PRIMARY KEY,
      file_id uuid NOT NULL REFERENCES assistant_files(id) ON DELETE CASCADE,
      generation bigint NOT NULL,
      ordinal integer NOT NULL,
      heading text,
      heading_path text[] NOT NULL DEFAULT '{}',
      start_page integer,
      end_page integer,
      content text NOT NULL,
      word_count integer NOT NULL,
      search_vector tsvector NOT NULL,
      UNIQUE (file_id, generation, ordinal)
    )`
  yield* sql`
    CREATE TABLE rate_limit_buckets (
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL,
      tokens double precision NOT NULL,
      refilled_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, name)
    )`
})
