import { PgClient } from "@effect/sql-pg"
import { Deferred, Duration, Effect, PubSub, Queue, Schedule, Scope, Stream } from "effect"
import { Database } from "../db/Sql"
import { JobRepo } from "./JobRepo"

/** The PostgreSQL channel that carries "a job of this kind was enqueued" between server processes. */
export const JobChannel = "lore_jobs"
const probePrefix = "lore-ready:"

export interface JobSignalService {
  readonly transport: "in-process" | "postgresql"
  /** Announces a job of `kind`; safe inside a caller's transaction. */
  readonly notify: (kind: string) => Effect.Effect<void>
  /** A queue of the kinds enqueued from now on, for the caller's scope. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope>
}

/**
 * Wakes idle workers when a job is enqueued, so they need not wait for their next poll. Only a hint: workers
 * poll anyway, so a lost wake-up costs latency, never a job.
 *
 * - embedded (PGlite): an in-process PubSub. LISTEN/NOTIFY does not cross the PGlite socket, and there is
 *   only one process anyway.
 * - PostgreSQL: `SELECT pg_notify(...)` (PgClient.notify is broken on @effect/sql-pg 0.53) and one LISTEN
 *   connection per process (PgClient.listen) feeding the same PubSub, so every process's workers wake.
 *   pg_notify inside a caller's transaction is delivered at commit, when the job becomes visible.
 */
export class JobSignal extends Effect.Service<JobSignal>()("lore/JobSignal", {
  scoped: Effect.gen(function* () {
    const repo = yield* JobRepo
    const database = yield* Database
    const hub = yield* Effect.acquireRelease(PubSub.sliding<string>(1024), PubSub.shutdown)

    if (database.kind === "embedded") {
      return {
        transport: "in-process",
        notify: (kind: string) => PubSub.publish(hub, kind).pipe(Effect.asVoid),
        subscribe: PubSub.subscribe(hub)
      } satisfies JobSignalService as JobSignalService
    }

    const pg = yield* PgClient.PgClient
    const listening = yield* Deferred.make<void>()
    const token = crypto.randomUUID()
    yield* pg.listen(JobChannel).pipe(
      Stream.runForEach((payload) =>
        payload === probePrefix + token
          ? Deferred.succeed(listening, undefined)
          : payload.startsWith(probePrefix)
            ? Effect.void
            : PubSub.publish(hub, payload)
      ),
      // The stream ends or fails only when the listen connection broke: listen again, polling covers the gap.
      Effect.tapErrorCause((cause) => Effect.logWarning("job wake-up listener stopped; listening again", cause)),
      Effect.retry(Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("10 seconds")))),
      Effect.repeat(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
    // Start only once LISTEN is in place, so a job enqueued right after start wakes us (bounded: polling remains).
    yield* repo.notify(JobChannel, probePrefix + token).pipe(
      Effect.zipRight(Deferred.await(listening).pipe(Effect.timeoutOption(Duration.millis(250)))),
      Effect.repeat({ until: (received) => received._tag === "Some", times: 40 }),
      Effect.tap((received) => (received._tag === "Some" ? Effect.void : Effect.logWarning("job wake-up listener not ready; workers rely on polling"))),
      Effect.catchAllCause((cause) => Effect.logWarning("job wake-up probe failed; workers rely on polling", cause))
    )

    return {
      transport: "postgresql",
      notify: (kind: string) => repo.notify(JobChannel, kind),
      subscribe: PubSub.subscribe(hub)
    } satisfies JobSignalService as JobSignalService
  }),
  dependencies: [JobRepo.Default]
}) {}
