import { Cause, Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Queue, Ref } from "effect"
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { Settings } from "../Config"
import { JobHandlers, type JobContext } from "./JobHandlers"
import { JobQueue } from "./JobQueue"
import { JobSignal } from "./JobSignal"
import { JobFailure, type ClaimedJob } from "./Model"

export interface JobWorkersOptions {
  /** Worker fibers in this process (default 2). On embedded PGlite they share its one connection. */
  readonly concurrency?: number
  /** How long an idle worker waits for a wake-up before it polls again (default 1 second, jittered). */
  readonly pollInterval?: Duration.DurationInput
  /** Lease taken at claim and renewed while the handler runs (default 30 seconds). */
  readonly lease?: Duration.DurationInput
  /** How often the lease is renewed (default a third of the lease). */
  readonly heartbeatInterval?: Duration.DurationInput
  /** At shutdown, how long running handlers may take to finish before they are interrupted and their jobs released (default 10 seconds). */
  readonly shutdownGrace?: Duration.DurationInput
  /** Only these kinds (default: every kind registered in JobHandlers). */
  readonly kinds?: ReadonlyArray<string>
}

export interface JobWorkersInfo {
  /** Lease owner ids of this process's workers (`host:pid:random#n`), as recorded in jobs and job_attempts. */
  readonly workerIds: ReadonlyArray<string>
  /** Handlers running right now in this process. */
  readonly running: Effect.Effect<number>
  /** Workers waiting for a wake-up or their next poll right now. */
  readonly idle: Effect.Effect<number>
}

const make = (options: JobWorkersOptions) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue
    const handlers = yield* JobHandlers
    const signal = yield* JobSignal

    const concurrency = Math.max(1, options.concurrency ?? 2)
    const pollMs = Duration.toMillis(options.pollInterval ?? "1 second")
    const leaseMs = Duration.toMillis(options.lease ?? "30 seconds")
    const heartbeatMs = Duration.toMillis(options.heartbeatInterval ?? Duration.millis(leaseMs / 3))
    const grace = options.shutdownGrace ?? "10 seconds"
    const kinds = () => options.kinds ?? handlers.kinds()

    const processId = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`
    const workerIds = Array.from({ length: concurrency }, (_, i) => `${processId}#${i + 1}`)
    const stopping = yield* Deferred.make<void>()
    const running = yield* Ref.make(0)
    const idleCount = yield* Ref.make(0)

    /** Logs a bookkeeping failure (database down): the lease then expires and another worker retries the job. */
    const bookkeeping = <A>(what: string, effect: Effect.Effect<A>) =>
      effect.pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) => Effect.logError(`job ${what} could not be recorded; the lease will expire and the job run again`, cause))
      )

    const runJob = ({ job, lease }: ClaimedJob, restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        const context: JobContext = {
          job,
          lease,
          workerId: lease.workerId,
          fence: Effect.flatMap(queue.holdsLease(lease), (held) =>
            held ? Effect.void : Effect.fail(JobFailure.retryable("LEASE_LOST", "this attempt no longer holds the job"))
          )
        }
        const handler = Option.getOrElse(handlers.get(job.kind), () => () =>
          Effect.fail(JobFailure.retryable("NO_HANDLER", `no handler is registered for job kind ${job.kind} in this process`))
        )
        // Renews the lease; ends only when it is lost (taken over, or the job cancelled). A failed renewal
        // (database hiccup) is retried at the next tick. A renewal in flight when the handler finishes is let
        // finish rather than cancelled (PGlite cannot cancel a query; on PostgreSQL it costs a pg_cancel_backend).
        const renew = Effect.uninterruptible(queue.heartbeat(lease, leaseMs)).pipe(
          Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("job heartbeat failed", cause), true))
        )
        const heartbeat = Effect.sleep(Duration.millis(heartbeatMs)).pipe(
          Effect.zipRight(renew),
          Effect.repeat({ while: (held) => held }),
          Effect.as("lost" as const)
        )
        const work = Effect.suspend(() => handler(job.payload, context)).pipe(Effect.as("done" as const))

        yield* Ref.update(running, (n) => n + 1)
        const exit = yield* Effect.exit(restore(Effect.raceFirst(work, heartbeat)))
        yield* Ref.update(running, (n) => n - 1)

        if (Exit.isSuccess(exit)) {
          if (exit.value === "lost") {
            return yield* Effect.logWarning("job lease lost while running (taken over or cancelled); handler interrupted, nothing recorded")
          }
          const recorded = yield* queue.complete(lease)
          return yield* recorded
            ? Effect.logDebug("job succeeded")
            : Effect.logWarning("job finished after its lease was lost (taken over or cancelled); result dropped")
        }
        if (Cause.isInterruptedOnly(exit.cause)) {
          // Shutting down: give the job back at once instead of leaving it to lease expiry.
          const released = yield* queue.release(lease)
          return yield* Effect.logInfo(released ? "job released at shutdown" : "job interrupted at shutdown after its lease was lost")
        }
        const failure = Option.getOrElse(Cause.failureOption(exit.cause), () =>
          JobFailure.retryable("DEFECT", Cause.pretty(exit.cause).slice(0, 2_000))
        )
        const outcome = yield* queue.fail(lease, failure)
        yield* Option.match(outcome, {
          onNone: () => Effect.logWarning("job failed after its lease was lost (taken over or cancelled); failure dropped"),
          onSome: ({ status, runAt }) =>
            status === "QUEUED"
              ? Effect.logWarning("job failed; retrying later").pipe(Effect.annotateLogs({ retryAt: runAt.toISOString() }))
              : Effect.logError(`job ${status}`)
        })
        if (failure.code === "DEFECT") yield* Effect.logError("job handler defect", exit.cause)
      }).pipe(
        Effect.annotateLogs({ jobId: job.id, jobKind: job.kind, attempt: lease.attempt, workerId: lease.workerId }),
        (effect) => bookkeeping("outcome", effect)
      )

    /** Waits for a wake-up for one of our kinds, the (jittered) poll interval, or shutdown. */
    const idle = (wake: Queue.Dequeue<string>, wanted: ReadonlyArray<string>) =>
      Effect.raceAll([
        Queue.take(wake).pipe(Effect.repeat({ until: (kind) => wanted.includes(kind) }), Effect.zipLeft(Queue.takeAll(wake))),
        Effect.sleep(Duration.millis(pollMs * (0.75 + Math.random() * 0.5))),
        Deferred.await(stopping)
      ])

    const worker = (workerId: string, wake: Queue.Dequeue<string>): Effect.Effect<void> =>
      Effect.gen(function* () {
        while (!(yield* Deferred.isDone(stopping))) {
          const wanted = kinds()
          // Claim and outcome are uninterruptible so a claimed job is always either finished or released;
          // only the handler itself can be interrupted.
          const ran = yield* Effect.uninterruptibleMask((restore) =>
            Effect.flatMap(queue.claim(workerId, wanted, leaseMs), (claimed) =>
              Option.match(claimed, { onNone: () => Effect.succeed(false), onSome: (job) => Effect.as(runJob(job, restore), true) })
            )
          ).pipe(
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.failCause(cause)
                : Effect.logError("job claim failed; retrying", cause).pipe(Effect.zipRight(Effect.sleep(Duration.millis(pollMs))), Effect.as(false))
            )
          )
          if (!ran) {
            yield* Effect.acquireUseRelease(Ref.update(idleCount, (n) => n + 1), () => idle(wake, wanted), () => Ref.update(idleCount, (n) => n - 1))
          }
        }
      }).pipe(Effect.annotateLogs({ workerId }))

    /** Jobs whose worker keeps dying past max_attempts would otherwise stay RUNNING forever. */
    const reaper = Effect.uninterruptible(queue.reapExpired).pipe(
      Effect.tap((dead) => (dead > 0 ? Effect.logWarning(`${dead} job(s) DEAD: lease expired on the last attempt`) : Effect.void)),
      Effect.catchAllCause((cause) => Effect.logWarning("job reaper failed", cause)),
      Effect.zipRight(Effect.sleep(Duration.millis(Math.max(1_000, Math.min(leaseMs, pollMs * 10))))),
      Effect.forever
    )

    const fibers: Array<Fiber.RuntimeFiber<void>> = []
    for (const id of workerIds) {
      const wake = yield* signal.subscribe
      fibers.push(yield* Effect.forkScoped(worker(id, wake)))
    }
    const reaperFiber = yield* Effect.forkScoped(reaper)

    // Runs before the scoped forks are interrupted (finalizers run in reverse order).
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Deferred.succeed(stopping, undefined)
        yield* Fiber.interrupt(reaperFiber)
        // Finalizers are uninterruptible: the wait must be made interruptible or the timeout could never end it.
        const finished = yield* Effect.interruptible(Fiber.awaitAll(fibers)).pipe(Effect.timeoutOption(grace))
        if (Option.isNone(finished)) {
          yield* Effect.logWarning("job workers: shutdown grace over; interrupting running handlers and releasing their jobs")
          yield* Fiber.interruptAll(fibers)
        }
      })
    )
    yield* Effect.logDebug("job workers started").pipe(Effect.annotateLogs({ workerIds, transport: signal.transport }))
    return { workerIds, running: Ref.get(running), idle: Ref.get(idleCount) } satisfies JobWorkersInfo
  })

/**
 * Job workers in the server process. Each worker fiber loops: claim a due job of a registered kind (FOR UPDATE
 * SKIP LOCKED, so any number of workers in any number of processes share one database safely), run its handler
 * while renewing the lease, record the outcome guarded by the lease; when nothing is due, wait for a JobSignal
 * wake-up or the poll interval. Scoped: closing the scope stops claiming, lets running handlers finish for
 * `shutdownGrace`, then interrupts them and releases their jobs for another worker.
 */
export class JobWorkers extends Context.Tag("lore/JobWorkers")<JobWorkers, JobWorkersInfo>() {
  static readonly layer = (options: JobWorkersOptions = {}) => Layer.scoped(JobWorkers, make(options))
  /** As many workers and as long a lease as the settings say (LORE_JOB_WORKERS, LORE_JOB_LEASE). */
  static readonly Default = Layer.scoped(
    JobWorkers,
    Effect.flatMap(Settings, (settings) => make({ concurrency: settings.jobs.workers, lease: Duration.millis(settings.jobs.leaseMs) }))
  )
}

/** The queue, the handler registry and the wake-up signal, over SqlClient + Database (SqlLive). Workers come separately. */
export const JobsLive = Layer.mergeAll(JobQueue.Default, JobHandlers.Default).pipe(Layer.provideMerge(JobSignal.Default))
