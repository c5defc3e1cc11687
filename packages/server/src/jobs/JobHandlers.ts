import { Context, Effect, Option } from "effect"
import { decodePayload, type Job, type JobDefinition, type JobFailure, type Lease } from "./Model"

/** What a handler knows about the attempt it runs. */
export interface JobContext {
  readonly job: Job
  readonly lease: Lease
  readonly workerId: string
  /**
   * Fails with a retryable LEASE_LOST unless this attempt still holds the job, and locks the job row until the
   * surrounding transaction ends. Call it first inside the transaction that writes the handler's result, so
   * the result commits only while the lease is held (a fencing check on top of idempotency).
   */
  readonly fence: Effect.Effect<void, JobFailure>
}

/**
 * A job handler. It MUST be idempotent: delivery is at least once (a job whose worker died runs again after
 * its lease expires, and a result computed by a worker that lost its lease is dropped), so running it twice
 * for the same payload must leave the same state as running it once. Fail with `JobFailure.retryable` for
 * transient trouble (network, 5xx, 429, locks) and `JobFailure.permanent` when retrying cannot help (bad
 * input, unsupported file); defects count as retryable failures with code DEFECT.
 */
export type JobHandler = (payload: unknown, context: JobContext) => Effect.Effect<void, JobFailure>

/**
 * Handlers by job kind. Areas register theirs when their layer is built, e.g.
 *   Layer.effectDiscard(Effect.flatMap(JobHandlers, (h) => h.registerJob(IngestSource, ingest)))
 * The services a handler needs are captured at registration (R), so the handler runs with them.
 */
export class JobHandlers extends Effect.Service<JobHandlers>()("lore/JobHandlers", {
  sync: () => {
    const handlers = new Map<string, JobHandler>()

    const register = <R>(kind: string, handler: (payload: unknown, context: JobContext) => Effect.Effect<void, JobFailure, R>) =>
      Effect.gen(function* () {
        if (handlers.has(kind)) return yield* Effect.dieMessage(`a handler for job kind ${kind} is already registered`)
        const context = yield* Effect.context<R>()
        handlers.set(kind, (payload, jobContext) =>
          Effect.suspend(() => handler(payload, jobContext)).pipe(Effect.provide(context as Context.Context<R>))
        )
      })

    return {
      register,
      /** `register` with the payload decoded by the job definition's schema (a payload that does not decode fails permanently). */
      registerJob: <A, I, R>(definition: JobDefinition<A, I>, handler: (payload: A, context: JobContext) => Effect.Effect<void, JobFailure, R>) =>
        register<R>(definition.kind, (payload, context) =>
          Effect.flatMap(decodePayload(definition, payload), (decoded) => handler(decoded, context))
        ),
      get: (kind: string): Option.Option<JobHandler> => Option.fromNullable(handlers.get(kind)),
      /** The kinds registered so far; workers read it at every claim, so late registrations are picked up. */
      kinds: (): ReadonlyArray<string> => [...handlers.keys()]
    }
  }
}) {}
