import { Duration, Effect, Option, Schema } from "effect"
import { UUID_PATTERN } from "../domain/Schemas"
import { JobRepo } from "./JobRepo"
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
  type Lease
} from "./Model"


export interface ListJobsOptions {
  readonly status?: Job["status"]
  readonly kind?: string
  /** Default 100, at most 1000; newest first. */
  readonly limit?: number
}

/**
 * The durable job queue, on the jobs and job_attempts tables (SQL in JobRepo).
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
    const repo = yield* JobRepo
    const signal = yield* JobSignal
    // Read once, where the layer is built: provide `Layer.succeed(JobQueueConfig, ...)` to the JobQueue layer to change it.
    const config = yield* JobQueueConfig

    const get = (id: string) =>
      UUID_PATTERN.test(id) ? Effect.map(repo.byId(id), Option.fromNullable) : Effect.succeed(Option.none<Job>())

    const enqueue = (kind: string, payload: unknown, options: EnqueueOptions = {}): Effect.Effect<Enqueued> =>
      Effect.gen(function* () {
        const job = {
          kind,
          payloadJson: payload === undefined ? "{}" : JSON.stringify(payload),
          priority: options.priority ?? 0,
          runAt: options.runAt ?? null,
          maxAttempts: options.maxAttempts ?? config.defaultMaxAttempts,
          dedupeKey: options.dedupeKey ?? null
        }
        // A conflicting unfinished job may finish between the insert and the lookup: then insert again.
        for (let round = 0; ; round++) {
          const inserted = yield* repo.insert(job)
          if (inserted) {
            yield* signal.notify(kind)
            return { job: inserted, deduplicated: false }
          }
          const existing = yield* repo.unfinishedByDedupeKey(kind, job.dedupeKey)
          if (existing) return { job: existing, deduplicated: true }
          if (round >= 5) return yield* Effect.dieMessage(`enqueue ${kind}: dedupe key ${job.dedupeKey} kept conflicting`)
        }
      })

    /**
     * Takes the next due job of one of `kinds` (highest priority, then oldest run_at): a QUEUED job, or a
     * RUNNING job whose lease expired (its holder died; that attempt is recorded as LEASE_EXPIRED). One
     * statement; `FOR UPDATE SKIP LOCKED` lets any number of workers in any number of processes claim at once
     * without ever taking the same job.
     */
    const claim = (workerId: string, kinds: ReadonlyArray<string>, leaseMs: number): Effect.Effect<Option.Option<ClaimedJob>> =>
      kinds.length === 0
        ? Effect.succeed(Option.none())
        : Effect.map(repo.claim(workerId, kinds, leaseMs), (job) =>
          Option.map(Option.fromNullable(job), (claimed) => ({ job: claimed, lease: { jobId: claimed.id, workerId, attempt: claimed.attempts } })))

    /**
     * Records a failed attempt. Retryable with attempts left: QUEUED again after exponential backoff with
     * jitter (or the failure's retryAfterMs); retryable without attempts left: DEAD; permanent: FAILED.
     * Answers the new status, or None (nothing written) when the lease is no longer held.
     */
    const fail = (lease: Lease, failure: Pick<JobFailure, "code" | "message" | "retryable" | "retryAfterMs">) =>
      Effect.map(repo.fail(lease, failure, failure.retryAfterMs ?? backoffMs(lease.attempt, config)), Option.fromNullable)

    /** Cancels a QUEUED or RUNNING job (a running handler is interrupted at its next heartbeat). */
    const cancel = (id: string): Effect.Effect<Job, JobNotFound | JobNotCancellable> =>
      Effect.gen(function* () {
        if (!UUID_PATTERN.test(id)) return yield* new JobNotFound({ jobId: id })
        const cancelled = yield* repo.cancel(id)
        if (cancelled) return cancelled
        const current = yield* get(id)
        return yield* Option.match(current, {
          onNone: () => new JobNotFound({ jobId: id }),
          onSome: (job) => new JobNotCancellable({ job })
        })
      })

    return {
      enqueue,
      /** `enqueue` with a payload typed (and encoded) by a job definition. */
      enqueueJob: <A, I>(definition: JobDefinition<A, I>, payload: A, options?: EnqueueOptions) =>
        Effect.flatMap(Effect.orDie(Schema.encode(definition.payload)(payload)), (encoded) => enqueue(definition.kind, encoded, options)),
      claim,
      /** Extends the lease; false when it is no longer held (taken over after expiry, or the job was cancelled). */
      heartbeat: repo.heartbeat,
      /** Records success; false (nothing written) when the lease is no longer held. */
      complete: repo.complete,
      fail,
      /**
       * Gives a claimed job back untouched (a worker shutting down interrupted its handler): QUEUED, due now,
       * and the attempt does not count toward max_attempts. False when the lease is no longer held.
       */
      release: repo.release,
      /**
       * Inside a handler's own transaction: locks the job row and answers whether the lease is still held, so
       * the handler's writes commit only while it owns the job (a fencing check; see JobContext.fence).
       */
      holdsLease: repo.holdsLease,
      /**
       * Jobs RUNNING past their lease that have no attempts left (a job that kills its worker every time) become
       * DEAD; with attempts left, `claim` takes them over instead. Answers how many.
       */
      reapExpired: repo.reapExpired(),
      cancel,
      get,
      list: (options: ListJobsOptions = {}) =>
        repo.list({ status: options.status, kind: options.kind, limit: Math.min(Math.max(1, options.limit ?? 100), 1000) }),
      attempts: (jobId: string): Effect.Effect<ReadonlyArray<JobAttempt>> => (UUID_PATTERN.test(jobId) ? repo.attempts(jobId) : Effect.succeed([])),
      /** Exact counts per kind and status, for admin dashboards and health. */
      counts: repo.counts(),
      /** Deletes finished jobs (and their attempts) that finished before `olderThan` ago; answers how many. */
      purgeFinished: (olderThan: Duration.DurationInput) => repo.purgeFinished(olderThan)
    }
  }),
  dependencies: [JobRepo.Default]
}) {}
