import { Context, Data, Effect, ParseResult, Schema } from "effect"

/**
 * Job lifecycle:
 *   QUEUED -> RUNNING (claimed; lease) -> SUCCEEDED
 *   RUNNING -> QUEUED (retryable failure, with backoff; or lease expired and taken over; or released at shutdown)
 *   RUNNING -> FAILED (the handler said the failure is permanent)
 *   RUNNING -> DEAD   (retryable failures, or lease expiries, used up max_attempts)
 *   QUEUED | RUNNING -> CANCELLED (an admin or a caller cancelled it; a running handler is interrupted)
 */
export const JobStatus = Schema.Literal("QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "DEAD", "CANCELLED")
export type JobStatus = typeof JobStatus.Type
export const JobStatuses: ReadonlyArray<JobStatus> = JobStatus.literals

export const AttemptOutcome = Schema.Literal("RUNNING", "SUCCEEDED", "FAILED", "LEASE_EXPIRED", "RELEASED", "CANCELLED")
export type AttemptOutcome = typeof AttemptOutcome.Type

/** A job as the jobs table holds it. The payload is stored as jsonb and read as text (see JobRepo). */
export const Job = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  /** The JSON payload exactly as enqueued (never passed through the column-name transform). */
  payload: Schema.parseJson(),
  status: JobStatus,
  priority: Schema.Number,
  runAt: Schema.DateFromSelf,
  attempts: Schema.Number,
  maxAttempts: Schema.Number,
  leaseOwner: Schema.NullOr(Schema.String),
  leaseExpiresAt: Schema.NullOr(Schema.DateFromSelf),
  lastErrorCode: Schema.NullOr(Schema.String),
  lastErrorMessage: Schema.NullOr(Schema.String),
  dedupeKey: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  finishedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type Job = typeof Job.Type

export const JobAttempt = Schema.Struct({
  id: Schema.String,
  jobId: Schema.String,
  attempt: Schema.Number,
  workerId: Schema.String,
  startedAt: Schema.DateFromSelf,
  finishedAt: Schema.NullOr(Schema.DateFromSelf),
  outcome: AttemptOutcome,
  errorCode: Schema.NullOr(Schema.String),
  errorMessage: Schema.NullOr(Schema.String),
  retryAt: Schema.NullOr(Schema.DateFromSelf)
})
export type JobAttempt = typeof JobAttempt.Type

/**
 * Proof of a claim. Every write a worker makes about its job (heartbeat, complete, fail, release) is guarded
 * by it: the job must still be RUNNING with this lease owner and this attempt number. A worker whose lease
 * expired and was taken over therefore changes nothing.
 */
export interface Lease {
  readonly jobId: string
  readonly workerId: string
  readonly attempt: number
}

export interface ClaimedJob {
  readonly job: Job
  readonly lease: Lease
}

export interface EnqueueOptions {
  /** Not claimed before this time (default: now). */
  readonly runAt?: Date
  /** Attempts before the job is DEAD (default 5). */
  readonly maxAttempts?: number
  /** At most one unfinished (QUEUED or RUNNING) job per kind and key; enqueueing again answers the existing one. */
  readonly dedupeKey?: string
  /** Higher runs first (default 0). */
  readonly priority?: number
}

export interface Enqueued {
  readonly job: Job
  /** True when an unfinished job with the same kind and dedupe key already existed and was answered instead. */
  readonly deduplicated: boolean
}

/** What a handler fails with: a stable UPPER_SNAKE code, a message a person can act on, and whether to retry. */
export class JobFailure extends Data.TaggedError("JobFailure")<{
  readonly code: string
  readonly message: string
  readonly retryable: boolean
  /** Run the next attempt no sooner than this (e.g. a provider's Retry-After) instead of the computed backoff. */
  readonly retryAfterMs?: number
}> {
  static retryable(code: string, message: string, retryAfterMs?: number) {
    return new JobFailure({ code, message, retryable: true, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })
  }
  static permanent(code: string, message: string) {
    return new JobFailure({ code, message, retryable: false })
  }
}

export class JobNotFound extends Data.TaggedError("JobNotFound")<{ readonly jobId: string }> {}
/** Cancelling a job that already finished (SUCCEEDED, FAILED, DEAD, CANCELLED). */
export class JobNotCancellable extends Data.TaggedError("JobNotCancellable")<{ readonly job: Job }> {}

/** Backoff of retryable failures: min(maxMs, baseMs * 2^(attempt-1)), then a random half of it is taken off. */
export class JobQueueConfig extends Context.Reference<JobQueueConfig>()("lore/JobQueueConfig", {
  defaultValue: () => ({ backoffBaseMs: 2_000, backoffMaxMs: 60 * 60 * 1000, defaultMaxAttempts: 5 })
}) {}

/** Delay before the next attempt after `attempt` failed: exponential, capped, with "equal jitter". */
export const backoffMs = (attempt: number, config: { backoffBaseMs: number; backoffMaxMs: number }, random = Math.random()) => {
  const ceiling = Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)))
  return Math.round(ceiling / 2 + (ceiling / 2) * random)
}

/**
 * A job kind with a typed payload, shared by the code that enqueues it and the handler that runs it:
 *   export const IngestSource = defineJob("knowledge.ingest", Schema.Struct({ sourceId: Schema.UUID }))
 *   queue.enqueueJob(IngestSource, { sourceId }, { dedupeKey: sourceId })
 *   handlers.registerJob(IngestSource, ({ sourceId }, ctx) => ...)
 */
export interface JobDefinition<A, I = A> {
  readonly kind: string
  readonly payload: Schema.Schema<A, I>
}
export const defineJob = <A, I>(kind: string, payload: Schema.Schema<A, I>): JobDefinition<A, I> => ({ kind, payload })

/** A payload that does not decode can never succeed: a permanent failure. */
export const decodePayload = <A, I>(definition: JobDefinition<A, I>, payload: unknown) =>
  Schema.decodeUnknown(definition.payload)(payload).pipe(
    Effect.mapError((error) =>
      JobFailure.permanent("INVALID_PAYLOAD", `payload of ${definition.kind} does not decode: ${ParseResult.TreeFormatter.formatErrorSync(error)}`)
    )
  )
