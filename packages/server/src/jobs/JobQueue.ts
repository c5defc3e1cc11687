import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Schema } from "effect"
import { JobSignal } from "./JobSignal"
import {
  backoffMs,
  JobNotCancellable,
  JobNotFound,
  JobQueueConfig,
  type ClaimedJob,
  type Enqueued,
  type EnqueueOptions,
  type Job,
  type JobAttempt,
  type JobDefinition,
  type JobFailure,
  type JobStatus,
  type Lease
} from "./Model"

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

type JobRow = Omit<Job, "payload"> & { readonly payload: string }
const toJob = (row: JobRow): Job => ({ ...row, payload: JSON.parse(row.payload) })

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const leaseTakenOver = "the worker stopped renewing its lease (killed, stalled or cut off from the database); the job was taken over"

export interface ListJobsOptions {
  readonly status?: JobStatus
  readonly kind?: string
  /** Default 100, at most 1000; newest first. */
  readonly limit?: number
}

/**
 * The durable job queue, on the jobs and job_attempts tables.
 *
 * Delivery is at least once: a job whose worker dies runs again once its lease expires. HANDLERS MUST BE
 * IDEMPOTENT: running one twice for the same payload must leave the same result as running it once (upsert
 * by a natural key, check "already done" first, or write the result in one transaction fenced with
 * `JobContext.fence`). What the queue guarantees is that only the current lease holder's outcome is recorded:
 * a worker whose lease was taken over cannot complete, fail or release the job (its write affects 0 rows).
 *
 * Every method uses the SqlClient in context, so `enqueue` inside a caller's `sql.withTransaction` commits or
 * rolls back with the caller's rows (and, on PostgreSQL, its wake-up notification is delivered at commit).
 * Database errors are defects, as in the repositories.
 */
export class JobQueue extends Effect.Service<JobQueue>()("lore/JobQueue", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const signal = yield* JobSignal
    // Read once, where the layer is built: provide `Layer.succeed(JobQueueConfig, ...)` to the JobQueue layer to change it.
    const config = yield* JobQueueConfig
    const cols = (alias: string) => sql.literal(columns(alias))
    const leaseUntil = (leaseMs: number) => sql`now() + (${Math.max(1, Math.round(leaseMs))}::double precision * interval '1 millisecond')`
    const guard = (alias: string, lease: Lease) =>
      sql`${sql.literal(alias)}.id = ${lease.jobId} AND ${sql.literal(alias)}.status = 'RUNNING'
          AND ${sql.literal(alias)}.lease_owner = ${lease.workerId} AND ${sql.literal(alias)}.attempts = ${lease.attempt}`
    const closeAttempt = (alias: string, lease: Lease) =>
      sql`a.job_id = ${sql.literal(alias)}.id AND a.attempt = ${lease.attempt}
          AND a.worker_id = ${lease.workerId} AND a.outcome = 'RUNNING'`

    const get = (id: string) =>
      uuidPattern.test(id)
        ? sql<JobRow>`SELECT ${cols("j")} FROM jobs j WHERE j.id = ${id}`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toJob)),
            Effect.orDie
          )
        : Effect.succeed(Option.none<Job>())

    const enqueue = (kind: string, payload: unknown, options: EnqueueOptions = {}): Effect.Effect<Enqueued> =>
      Effect.gen(function* () {
        const json = payload === undefined ? "{}" : JSON.stringify(payload)
        const dedupeKey = options.dedupeKey ?? null
        // A conflicting unfinished job may finish between the insert and the lookup: then insert again.
        for (let round = 0; ; round++) {
          const [inserted] = yield* sql<JobRow>`
            INSERT INTO jobs (kind, payload, priority, run_at, max_attempts, dedupe_key)
            VALUES (${kind}, ${json}::jsonb, ${options.priority ?? 0}, coalesce(${options.runAt ?? null}::timestamptz, now()),
                    ${options.maxAttempts ?? config.defaultMaxAttempts}, ${dedupeKey})
            ON CONFLICT (kind, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('QUEUED', 'RUNNING') DO NOTHING
            RETURNING ${cols("jobs")}`
          if (inserted) {
            yield* signal.notify(kind)
            return { job: toJob(inserted), deduplicated: false }
          }
          const [existing] = yield* sql<JobRow>`
            SELECT ${cols("j")} FROM jobs j
            WHERE j.kind = ${kind} AND j.dedupe_key = ${dedupeKey} AND j.status IN ('QUEUED', 'RUNNING')`
          if (existing) return { job: toJob(existing), deduplicated: true }
          if (round >= 5) return yield* Effect.dieMessage(`enqueue ${kind}: dedupe key ${dedupeKey} kept conflicting`)
        }
      }).pipe(Effect.orDie)

    /**
     * Takes the next due job of one of `kinds` (highest priority, then oldest run_at): a QUEUED job, or a
     * RUNNING job whose lease expired (its holder died; that attempt is recorded as LEASE_EXPIRED). One
     * statement; `FOR UPDATE SKIP LOCKED` lets any number of workers in any number of processes claim at once
     * without ever taking the same job.
     */
    const claim = (workerId: string, kinds: ReadonlyArray<string>, leaseMs: number): Effect.Effect<Option.Option<ClaimedJob>> =>
      kinds.length === 0
        ? Effect.succeed(Option.none())
        : sql<JobRow>`
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
            SELECT * FROM claimed`.pipe(
            Effect.map((rows) =>
              Option.map(Option.fromNullable(rows[0]), (row) => {
                const job = toJob(row)
                return { job, lease: { jobId: job.id, workerId, attempt: job.attempts } }
              })
            ),
            Effect.orDie
          )

    /** Extends the lease; false when it is no longer held (taken over after expiry, or the job was cancelled). */
    const heartbeat = (lease: Lease, leaseMs: number) =>
      sql<{ id: string }>`
        UPDATE jobs j SET lease_expires_at = ${leaseUntil(leaseMs)}, updated_at = now() WHERE ${guard("j", lease)} RETURNING j.id
      `.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)

    /** Records success; false (nothing written) when the lease is no longer held. */
    const complete = (lease: Lease) =>
      sql<{ id: string }>`
        WITH done AS (
          UPDATE jobs j SET status = 'SUCCEEDED', finished_at = now(), updated_at = now(), lease_owner = NULL, lease_expires_at = NULL
          WHERE ${guard("j", lease)} RETURNING j.id
        ), attempt AS (
          UPDATE job_attempts a SET finished_at = now(), outcome = 'SUCCEEDED' FROM done WHERE ${closeAttempt("done", lease)}
        )
        SELECT id FROM done`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)

    /**
     * Records a failed attempt. Retryable with attempts left: QUEUED again after exponential backoff with
     * jitter (or the failure's retryAfterMs); retryable without attempts left: DEAD; permanent: FAILED.
     * Answers the new status, or None (nothing written) when the lease is no longer held.
     */
    const fail = (lease: Lease, failure: Pick<JobFailure, "code" | "message" | "retryable" | "retryAfterMs">) =>
      Effect.gen(function* () {
        const delay = failure.retryAfterMs ?? backoffMs(lease.attempt, config)
        const rows = yield* sql<{ status: JobStatus; runAt: Date }>`
          WITH failed AS (
            UPDATE jobs j SET
              status = CASE WHEN NOT ${failure.retryable}::boolean THEN 'FAILED'
                            WHEN j.attempts >= j.max_attempts THEN 'DEAD' ELSE 'QUEUED' END,
              run_at = CASE WHEN ${failure.retryable}::boolean AND j.attempts < j.max_attempts
                            THEN now() + (${delay}::double precision * interval '1 millisecond') ELSE j.run_at END,
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
          SELECT status, run_at FROM failed`
        return Option.fromNullable(rows[0])
      }).pipe(Effect.orDie)

    /**
     * Gives a claimed job back untouched (a worker shutting down interrupted its handler): QUEUED, due now,
     * and the attempt does not count toward max_attempts. False when the lease is no longer held.
     */
    const release = (lease: Lease) =>
      sql<{ id: string }>`
        WITH released AS (
          UPDATE jobs j SET status = 'QUEUED', attempts = j.attempts - 1, run_at = now(), updated_at = now(),
                 lease_owner = NULL, lease_expires_at = NULL
          WHERE ${guard("j", lease)} RETURNING j.id
        ), attempt AS (
          UPDATE job_attempts a SET finished_at = now(), outcome = 'RELEASED' FROM released WHERE ${closeAttempt("released", lease)}
        )
        SELECT id FROM released`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)

    /**
     * Inside a handler's own transaction: locks the job row and fails unless the lease is still held, so the
     * handler's writes commit only while it owns the job (a fencing check; see JobContext.fence).
     */
    const holdsLease = (lease: Lease) =>
      sql<{ id: string }>`SELECT j.id FROM jobs j WHERE ${guard("j", lease)} FOR UPDATE`.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie
      )

    /**
     * Jobs RUNNING past their lease that have no attempts left (a job that kills its worker every time) become
     * DEAD; with attempts left, `claim` takes them over instead. Answers how many.
     */
    const reapExpired = sql<{ id: string }>`
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
      RETURNING j.id`.pipe(Effect.map((rows) => rows.length), Effect.orDie)

    /** Cancels a QUEUED or RUNNING job (a running handler is interrupted at its next heartbeat). */
    const cancel = (id: string): Effect.Effect<Job, JobNotFound | JobNotCancellable> =>
      Effect.gen(function* () {
        if (!uuidPattern.test(id)) return yield* new JobNotFound({ jobId: id })
        const [row] = yield* sql<JobRow>`
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
          SELECT * FROM cancelled`.pipe(Effect.orDie)
        if (row) return toJob(row)
        const current = yield* get(id)
        return yield* Option.match(current, {
          onNone: () => new JobNotFound({ jobId: id }),
          onSome: (job) => new JobNotCancellable({ job })
        })
      })

    const list = (options: ListJobsOptions = {}) =>
      sql<JobRow>`
        SELECT ${cols("j")} FROM jobs j
        WHERE (${options.status ?? null}::text IS NULL OR j.status = ${options.status ?? null})
          AND (${options.kind ?? null}::text IS NULL OR j.kind = ${options.kind ?? null})
        ORDER BY j.created_at DESC, j.id DESC
        LIMIT ${Math.min(Math.max(1, options.limit ?? 100), 1000)}
      `.pipe(Effect.map((rows) => rows.map(toJob)), Effect.orDie)

    const attempts = (jobId: string) =>
      uuidPattern.test(jobId)
        ? sql<JobAttempt>`
            SELECT id, job_id, attempt, worker_id, started_at, finished_at, outcome, error_code, error_message, retry_at
            FROM job_attempts WHERE job_id = ${jobId} ORDER BY id
          `.pipe(Effect.orDie)
        : Effect.succeed<ReadonlyArray<JobAttempt>>([])

    /** Exact counts per kind and status, for admin dashboards and health. */
    const counts = sql<{ kind: string; status: JobStatus; count: number }>`
      SELECT kind, status, count(*)::int AS count FROM jobs GROUP BY kind, status ORDER BY kind, status
    `.pipe(Effect.orDie)

    /** Deletes finished jobs (and their attempts) that finished before `olderThan` ago; answers how many. */
    const purgeFinished = (olderThan: Duration.DurationInput) =>
      sql<{ id: string }>`
        DELETE FROM jobs
        WHERE finished_at < now() - (${Duration.toMillis(olderThan)}::double precision * interval '1 millisecond')
        RETURNING id
      `.pipe(Effect.map((rows) => rows.length), Effect.orDie)

    return {
      enqueue,
      /** `enqueue` with a payload typed (and encoded) by a job definition. */
      enqueueJob: <A, I>(definition: JobDefinition<A, I>, payload: A, options?: EnqueueOptions) =>
        Effect.flatMap(Effect.orDie(Schema.encode(definition.payload)(payload)), (encoded) => enqueue(definition.kind, encoded, options)),
      claim,
      heartbeat,
      complete,
      fail,
      release,
      holdsLease,
      reapExpired,
      cancel,
      get,
      list,
      attempts,
      counts,
      purgeFinished
    }
  })
}) {}

