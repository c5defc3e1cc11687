import { SqlClient } from "@effect/sql"
import { Duration, Effect, Schema } from "effect"
import { affected, Count, counted, exec, row, rows, Timestamp } from "../db/Rows"
import { Job, JobAttempt, JobStatus, type JobFailure, type Lease } from "./Model"

/**
 * Payload goes in and out as text: the client's name transform (snake_case <-> camelCase) would otherwise
 * rewrite the keys inside a jsonb value in both directions.
 */
const columns = (alias: string) =>
  [
    "id", "kind", "payload::text AS payload", "status", "priority", "run_at", "attempts", "max_attempts", "lease_owner",
    "lease_expires_at", "last_error_code", "last_error_message", "dedupe_key", "created_at", "updated_at", "finished_at"
  ]
    .map((column) => `${alias}.${column}`)
    .join(", ")

const leaseTakenOver = "the worker stopped renewing its lease (killed, stalled or cut off from the database); the job was taken over"

export interface NewJob {
  readonly kind: string
  readonly payloadJson: string
  readonly priority: number
  readonly runAt: Date | null
  readonly maxAttempts: number
  readonly dedupeKey: string | null
}

export interface JobFilter {
  readonly status?: JobStatus | undefined
  readonly kind?: string | undefined
  readonly limit: number
}

const Rescheduled = Schema.Struct({ status: JobStatus, runAt: Timestamp })
const KindCount = Schema.Struct({ kind: Schema.String, status: JobStatus, count: Count })

/**
 * SQL of the durable job queue (jobs and job_attempts). Infrastructure, so it lives beside the queue in jobs/;
 * decoded like any repository. Every statement uses the SqlClient in context, so it joins a caller's transaction.
 */
export class JobRepo extends Effect.Service<JobRepo>()("lore/JobRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cols = (alias: string) => sql.literal(columns(alias))
    const leaseUntil = (leaseMs: number) => sql`now() + (${Math.max(1, Math.round(leaseMs))}::double precision * interval '1 millisecond')`
    /** A worker's write about its job holds only while the job is RUNNING under its lease (owner and attempt). */
    const guard = (alias: string, lease: Lease) =>
      sql`${sql.literal(alias)}.id = ${lease.jobId} AND ${sql.literal(alias)}.status = 'RUNNING'
          AND ${sql.literal(alias)}.lease_owner = ${lease.workerId} AND ${sql.literal(alias)}.attempts = ${lease.attempt}`
    const closeAttempt = (alias: string, lease: Lease) =>
      sql`a.job_id = ${sql.literal(alias)}.id AND a.attempt = ${lease.attempt}
          AND a.worker_id = ${lease.workerId} AND a.outcome = 'RUNNING'`

    return {
      byId: row("jobs.byId", Job, (id: string) => sql`SELECT ${cols("j")} FROM jobs j WHERE j.id = ${id}`),

      /** The new job, or undefined when an unfinished job of the kind holds the dedupe key. */
      insert: row("jobs.insert", Job, (job: NewJob) => sql`
        INSERT INTO jobs (kind, payload, priority, run_at, max_attempts, dedupe_key)
        VALUES (${job.kind}, ${job.payloadJson}::jsonb, ${job.priority}, coalesce(${job.runAt}::timestamptz, now()),
                ${job.maxAttempts}, ${job.dedupeKey})
        ON CONFLICT (kind, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('QUEUED', 'RUNNING') DO NOTHING
        RETURNING ${cols("jobs")}`),

      unfinishedByDedupeKey: row("jobs.unfinishedByDedupeKey", Job, (kind: string, dedupeKey: string | null) => sql`
        SELECT ${cols("j")} FROM jobs j
        WHERE j.kind = ${kind} AND j.dedupe_key = ${dedupeKey} AND j.status IN ('QUEUED', 'RUNNING')`),

      /**
       * Takes the next due job of one of `kinds`: QUEUED, or RUNNING with an expired lease (that attempt is
       * recorded as LEASE_EXPIRED). `FOR UPDATE SKIP LOCKED` lets any number of workers claim at once.
       */
      claim: row("jobs.claim", Job, (workerId: string, kinds: ReadonlyArray<string>, leaseMs: number) => sql`
        WITH next AS (
          SELECT id, status, attempts FROM jobs
          WHERE kind IN ${sql.in(kinds)}
            AND ((status = 'QUEUED' AND run_at <= now())
              OR (status = 'RUNNING' AND lease_expires_at < now() AND attempts < max_attempts))
          ORDER BY priority DESC, run_at, id
          LIMIT 1
          FOR UPDATE SKIP LOCKED
        ), expired AS (
          UPDATE job_attempts a SET finished_at = now(), outcome = 'LEASE_EXPIRED',
                 error_code = 'LEASE_EXPIRED', error_message = ${leaseTakenOver}
          FROM next n
          WHERE n.status = 'RUNNING' AND a.job_id = n.id AND a.attempt = n.attempts AND a.outcome = 'RUNNING'
        ), claimed AS (
          UPDATE jobs j SET status = 'RUNNING', attempts = j.attempts + 1, lease_owner = ${workerId},
                 lease_expires_at = ${leaseUntil(leaseMs)}, updated_at = now(),
                 last_error_code = CASE WHEN n.status = 'RUNNING' THEN 'LEASE_EXPIRED' ELSE j.last_error_code END,
                 last_error_message = CASE WHEN n.status = 'RUNNING' THEN ${leaseTakenOver} ELSE j.last_error_message END
          FROM next n WHERE j.id = n.id
          RETURNING ${cols("j")}
        ), attempt AS (
          INSERT INTO job_attempts (job_id, attempt, worker_id) SELECT id, attempts, ${workerId} FROM claimed
        )
        SELECT * FROM claimed`),

      heartbeat: affected((lease: Lease, leaseMs: number) => sql`
        UPDATE jobs j SET lease_expires_at = ${leaseUntil(leaseMs)}, updated_at = now() WHERE ${guard("j", lease)} RETURNING j.id`),

      complete: affected((lease: Lease) => sql`
        WITH done AS (
          UPDATE jobs j SET status = 'SUCCEEDED', finished_at = now(), updated_at = now(), lease_owner = NULL, lease_expires_at = NULL
          WHERE ${guard("j", lease)} RETURNING j.id
        ), attempt AS (
          UPDATE job_attempts a SET finished_at = now(), outcome = 'SUCCEEDED' FROM done WHERE ${closeAttempt("done", lease)}
        )
        SELECT id FROM done`),

      /** QUEUED again after `delayMs` (retryable, attempts left), DEAD (none left) or FAILED (permanent). */
      fail: row("jobs.fail", Rescheduled, (lease: Lease, failure: Pick<JobFailure, "code" | "message" | "retryable">, delayMs: number) => sql`
        WITH failed AS (
          UPDATE jobs j SET
            status = CASE WHEN NOT ${failure.retryable}::boolean THEN 'FAILED'
                          WHEN j.attempts >= j.max_attempts THEN 'DEAD' ELSE 'QUEUED' END,
            run_at = CASE WHEN ${failure.retryable}::boolean AND j.attempts < j.max_attempts
                          THEN now() + (${delayMs}::double precision * interval '1 millisecond') ELSE j.run_at END,
            finished_at = CASE WHEN ${failure.retryable}::boolean AND j.attempts < j.max_attempts THEN NULL ELSE now() END,
            lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
            last_error_code = ${failure.code}, last_error_message = ${failure.message}
          WHERE ${guard("j", lease)}
          RETURNING j.id, j.status, j.run_at
        ), attempt AS (
          UPDATE job_attempts a SET finished_at = now(), outcome = 'FAILED', error_code = ${failure.code},
                 error_message = ${failure.message},
                 retry_at = CASE WHEN failed.status = 'QUEUED' THEN failed.run_at END
          FROM failed WHERE ${closeAttempt("failed", lease)}
        )
        SELECT status, run_at FROM failed`),

      release: affected((lease: Lease) => sql`
        WITH released AS (
          UPDATE jobs j SET status = 'QUEUED', attempts = j.attempts - 1, run_at = now(), updated_at = now(),
                 lease_owner = NULL, lease_expires_at = NULL
          WHERE ${guard("j", lease)} RETURNING j.id
        ), attempt AS (
          UPDATE job_attempts a SET finished_at = now(), outcome = 'RELEASED' FROM released WHERE ${closeAttempt("released", lease)}
        )
        SELECT id FROM released`),

      holdsLease: affected((lease: Lease) => sql`SELECT j.id FROM jobs j WHERE ${guard("j", lease)} FOR UPDATE`),

      /** RUNNING past their lease with no attempts left: DEAD. Answers how many. */
      reapExpired: counted(() => sql`
        WITH expired AS (
          SELECT id, attempts FROM jobs
          WHERE status = 'RUNNING' AND lease_expires_at < now() AND attempts >= max_attempts
          FOR UPDATE SKIP LOCKED
        ), attempt AS (
          UPDATE job_attempts a SET finished_at = now(), outcome = 'LEASE_EXPIRED', error_code = 'LEASE_EXPIRED',
                 error_message = ${leaseTakenOver}
          FROM expired e WHERE a.job_id = e.id AND a.attempt = e.attempts AND a.outcome = 'RUNNING'
        )
        UPDATE jobs j SET status = 'DEAD', finished_at = now(), updated_at = now(), lease_owner = NULL, lease_expires_at = NULL,
               last_error_code = 'LEASE_EXPIRED', last_error_message = ${leaseTakenOver}
        FROM expired e WHERE j.id = e.id
        RETURNING j.id`),

      /** The cancelled job, or undefined when it was not QUEUED or RUNNING (or does not exist). */
      cancel: row("jobs.cancel", Job, (id: string) => sql`
        WITH target AS (
          SELECT id, status, attempts, lease_owner FROM jobs WHERE id = ${id} FOR UPDATE
        ), cancelled AS (
          UPDATE jobs j SET status = 'CANCELLED', finished_at = now(), updated_at = now(), lease_owner = NULL, lease_expires_at = NULL
          FROM target t WHERE j.id = t.id AND t.status IN ('QUEUED', 'RUNNING')
          RETURNING ${cols("j")}
        ), attempt AS (
          UPDATE job_attempts a SET finished_at = now(), outcome = 'CANCELLED'
          FROM target t WHERE t.status = 'RUNNING' AND a.job_id = t.id AND a.attempt = t.attempts AND a.outcome = 'RUNNING'
        )
        SELECT * FROM cancelled`),

      list: rows("jobs.list", Job, (filter: JobFilter) => sql`
        SELECT ${cols("j")} FROM jobs j
        WHERE (${filter.status ?? null}::text IS NULL OR j.status = ${filter.status ?? null})
          AND (${filter.kind ?? null}::text IS NULL OR j.kind = ${filter.kind ?? null})
        ORDER BY j.created_at DESC, j.id DESC
        LIMIT ${filter.limit}`),

      attempts: rows("jobs.attempts", JobAttempt, (jobId: string) => sql`
        SELECT id::text, job_id, attempt, worker_id, started_at, finished_at, outcome, error_code, error_message, retry_at
        FROM job_attempts WHERE job_id = ${jobId} ORDER BY job_attempts.id`),

      counts: rows("jobs.counts", KindCount, () =>
        sql`SELECT kind, status, count(*)::int AS count FROM jobs GROUP BY kind, status ORDER BY kind, status`),

      /** Deletes finished jobs (and their attempts) that finished before `olderThan` ago; answers how many. */
      purgeFinished: counted((olderThan: Duration.DurationInput) => sql`
        DELETE FROM jobs
        WHERE finished_at < now() - (${Duration.toMillis(olderThan)}::double precision * interval '1 millisecond')
        RETURNING id`),

      notify: exec((channel: string, payload: string) => sql`SELECT pg_notify(${channel}, ${payload})`)
    }
  })
}) {}
