import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The durable job queue (jobs/JobQueue.ts): one row per job, one row per attempt. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE jobs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      kind text NOT NULL,
      payload jsonb NOT NULL DEFAULT '{}'::jsonb,
      status text NOT NULL DEFAULT 'QUEUED'
        CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'DEAD', 'CANCELLED')),
      -- higher runs first
      priority integer NOT NULL DEFAULT 0,
      -- not claimed before this time (delayed jobs, retry backoff)
      run_at timestamptz NOT NULL DEFAULT now(),
      -- attempts that counted: claims, minus attempts released by a worker shutting down
      attempts integer NOT NULL DEFAULT 0,
      max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
      -- while RUNNING: the worker holding the job and until when; writes are guarded by (lease_owner, attempts)
      lease_owner text,
      lease_expires_at timestamptz,
      last_error_code text,
      last_error_message text,
      dedupe_key text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    )`
  // At most one unfinished job per (kind, dedupe key); a finished one does not block a new enqueue.
  yield* sql`
    CREATE UNIQUE INDEX jobs_dedupe_key ON jobs (kind, dedupe_key)
    WHERE dedupe_key IS NOT NULL AND status IN ('QUEUED', 'RUNNING')`
  // Claiming: due queued jobs in priority order, and running jobs whose lease expired.
  yield* sql`CREATE INDEX jobs_queued_idx ON jobs (priority DESC, run_at, id) WHERE status = 'QUEUED'`
  yield* sql`CREATE INDEX jobs_lease_idx ON jobs (lease_expires_at) WHERE status = 'RUNNING'`
  // Admin listing and retention.
  yield* sql`CREATE INDEX jobs_status_kind_idx ON jobs (status, kind, created_at DESC)`
  yield* sql`CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE finished_at IS NOT NULL`
  yield* sql`
    CREATE TABLE job_attempts (
      id bigserial PRIMARY KEY,
      job_id uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
      -- jobs.attempts at claim time; an attempt RELEASED at shutdown does not count, so its number is reused
      attempt integer NOT NULL,
      worker_id text NOT NULL,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      outcome text NOT NULL DEFAULT 'RUNNING'
        CHECK (outcome IN ('RUNNING', 'SUCCEEDED', 'FAILED', 'LEASE_EXPIRED', 'RELEASED', 'CANCELLED')),
      error_code text,
      error_message text,
      -- when the job was scheduled to run again after this attempt failed (backoff), if it was
      retry_at timestamptz
    )`
  yield* sql`CREATE INDEX job_attempts_job_idx ON job_attempts (job_id, id)`
})
