import { SqlClient } from "@effect/sql"
import { Effect, Exit, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { JobQueue } from "../../src/jobs/JobQueue"
import { JobFailure } from "../../src/jobs/Model"
import { createTestDatabase, startProcess, uniqueKind, type ProcessRuntime, type TestDatabase } from "./support"

let database: TestDatabase
let one: ProcessRuntime
/** A second server process on PostgreSQL (own pool); on PGlite the same one (one process owns the data dir). */
let two: ProcessRuntime

beforeAll(async () => {
  database = await createTestDatabase()
  one = await startProcess(database.settings)
  two = database.kind === "postgresql" ? await startProcess(database.settings) : one
})

afterAll(async () => {
  if (two !== one) await two?.dispose()
  await one?.dispose()
  await database?.dispose()
})

const run = <A, E>(effect: Effect.Effect<A, E, JobQueue | SqlClient.SqlClient>, runtime: ProcessRuntime = one) => runtime.runPromise(effect)
const queue = JobQueue

/** Waits (in the database's clock) until a lease has expired. */
const leaseExpired = (jobId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (;;) {
      const [row] = yield* sql<{ expired: boolean }>`SELECT lease_expires_at < now() AS expired FROM jobs WHERE id = ${jobId}`
      if (row?.expired) return
      yield* Effect.sleep("20 millis")
    }
  }).pipe(Effect.orDie)

describe("job queue", () => {
  it("enqueues, claims once, completes; the payload round-trips exactly", async () => {
    const kind = uniqueKind("basic")
    const payload = { source_id: "s-1", nestedKey: { inner_key: [1, { deep_key: true }] }, text: "héllo" }
    const result = await run(
      Effect.gen(function* () {
        const q = yield* queue
        const { job, deduplicated } = yield* q.enqueue(kind, payload)
        const claimed = yield* q.claim("worker-a", [kind], 30_000)
        const again = yield* q.claim("worker-b", [kind], 30_000)
        const running = yield* q.get(job.id)
        const completed = yield* q.complete(Option.getOrThrow(claimed).lease)
        const completedTwice = yield* q.complete(Option.getOrThrow(claimed).lease)
        return { job, deduplicated, claimed, again, running, completed, completedTwice, done: yield* q.get(job.id), attempts: yield* q.attempts(job.id) }
      })
    )
    expect(result.deduplicated).toBe(false)
    expect(result.job.status).toBe("QUEUED")
    expect(result.job.payload).toEqual(payload)
    const claimed = Option.getOrThrow(result.claimed)
    expect(claimed.job.id).toBe(result.job.id)
    expect(claimed.job.payload).toEqual(payload)
    expect(claimed.lease).toEqual({ jobId: result.job.id, workerId: "worker-a", attempt: 1 })
    expect(Option.isNone(result.again)).toBe(true)
    expect(Option.getOrThrow(result.running)).toMatchObject({ status: "RUNNING", leaseOwner: "worker-a", attempts: 1 })
    expect(result.completed).toBe(true)
    expect(result.completedTwice).toBe(false)
    const done = Option.getOrThrow(result.done)
    expect(done).toMatchObject({ status: "SUCCEEDED", leaseOwner: null, leaseExpiresAt: null, attempts: 1 })
    expect(done.finishedAt).toBeInstanceOf(Date)
    expect(result.attempts).toHaveLength(1)
    expect(result.attempts[0]).toMatchObject({ attempt: 1, workerId: "worker-a", outcome: "SUCCEEDED" })
  })

  it("enqueue joins the caller's transaction", async () => {
    const kind = uniqueKind("transaction")
    const outcome = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const q = yield* queue
        const rolledBack = yield* q.enqueue(kind, { n: 1 }).pipe(
          Effect.zipRight(Effect.fail("caller failed" as const)),
          sql.withTransaction,
          Effect.exit
        )
        yield* q.enqueue(kind, { n: 2 }).pipe(sql.withTransaction, Effect.orDie)
        return { rolledBack, jobs: yield* q.list({ kind }) }
      })
    )
    expect(Exit.isFailure(outcome.rolledBack)).toBe(true)
    expect(outcome.jobs.map((job) => job.payload)).toEqual([{ n: 2 }])
  })

  it("claims by priority, then run_at, and not before run_at", async () => {
    const kind = uniqueKind("order")
    const order = await run(
      Effect.gen(function* () {
        const q = yield* queue
        yield* q.enqueue(kind, { name: "later" }, { runAt: new Date(Date.now() + 60 * 60 * 1000), priority: 100 })
        yield* q.enqueue(kind, { name: "low" })
        yield* q.enqueue(kind, { name: "high" }, { priority: 10 })
        const names: Array<unknown> = []
        for (;;) {
          const claimed = yield* q.claim("worker", [kind], 30_000)
          if (Option.isNone(claimed)) return names
          names.push((claimed.value.job.payload as { name: string }).name)
          yield* q.complete(claimed.value.lease)
        }
      })
    )
    expect(order).toEqual(["high", "low"])
  })

  it("two workers claiming 50 jobs concurrently take each exactly once", async () => {
    const kind = uniqueKind("concurrent")
    await run(Effect.gen(function* () {
      const q = yield* queue
      yield* Effect.forEach(Array.from({ length: 50 }, (_, i) => i), (i) => q.enqueue(kind, { i }), { discard: true })
    }))
    const claims = new Map<string, Array<string>>()
    const drain = (workerId: string) =>
      Effect.gen(function* () {
        const q = yield* queue
        for (;;) {
          const claimed = yield* q.claim(workerId, [kind], 30_000)
          if (Option.isNone(claimed)) return
          const { job, lease } = claimed.value
          claims.set(job.id, [...(claims.get(job.id) ?? []), workerId])
          yield* Effect.yieldNow()
          expect(yield* q.complete(lease)).toBe(true)
        }
      })
    // Two processes on PostgreSQL (two pools), each with three claiming fibers.
    await Promise.all([
      run(Effect.all([drain("one-1"), drain("one-2"), drain("one-3")], { concurrency: "unbounded" }), one),
      run(Effect.all([drain("two-1"), drain("two-2"), drain("two-3")], { concurrency: "unbounded" }), two)
    ])
    expect(claims.size).toBe(50)
    for (const workers of claims.values()) expect(workers).toHaveLength(1)
    const jobs = await run(Effect.flatMap(queue, (q) => q.list({ kind })))
    expect(jobs.filter((job) => job.status === "SUCCEEDED")).toHaveLength(50)
  })

  it("a killed worker's job is taken over after its lease expires; the late worker's writes are refused", async () => {
    const kind = uniqueKind("killed")
    const result = await run(
      Effect.gen(function* () {
        const q = yield* queue
        const { job } = yield* q.enqueue(kind, { file: "a.pdf" })
        // The first worker claims with a short lease and then "dies": it never heartbeats nor completes.
        const first = Option.getOrThrow(yield* q.claim("killed-worker", [kind], 200))
        const whileLeased = yield* q.claim("rescuer", [kind], 30_000)
        yield* leaseExpired(job.id)
        const second = Option.getOrThrow(yield* q.claim("rescuer", [kind], 30_000))
        const rescuedCompleted = yield* q.complete(second.lease)
        // The original worker comes back (it was only stalled) and tries to record its outcome.
        const lateComplete = yield* q.complete(first.lease)
        const lateFail = yield* q.fail(first.lease, JobFailure.retryable("LATE", "late"))
        const lateHeartbeat = yield* q.heartbeat(first.lease, 30_000)
        const lateRelease = yield* q.release(first.lease)
        const lateFence = yield* q.holdsLease(first.lease)
        return {
          first, whileLeased, second, rescuedCompleted, lateComplete, lateFail, lateHeartbeat, lateRelease, lateFence,
          job: Option.getOrThrow(yield* q.get(job.id)),
          attempts: yield* q.attempts(job.id)
        }
      })
    )
    expect(Option.isNone(result.whileLeased)).toBe(true)
    expect(result.second.lease).toEqual({ jobId: result.first.lease.jobId, workerId: "rescuer", attempt: 2 })
    expect(result.rescuedCompleted).toBe(true)
    expect(result.lateComplete).toBe(false)
    expect(Option.isNone(result.lateFail)).toBe(true)
    expect(result.lateHeartbeat).toBe(false)
    expect(result.lateRelease).toBe(false)
    expect(result.lateFence).toBe(false)
    expect(result.job).toMatchObject({ status: "SUCCEEDED", attempts: 2 })
    expect(result.attempts.map((a) => [a.attempt, a.workerId, a.outcome])).toEqual([
      [1, "killed-worker", "LEASE_EXPIRED"],
      [2, "rescuer", "SUCCEEDED"]
    ])
  })

  it("a job whose worker dies on its last attempt is DEAD, not retried forever", async () => {
    const kind = uniqueKind("poison")
    const result = await run(
      Effect.gen(function* () {
        const q = yield* queue
        const { job } = yield* q.enqueue(kind, {}, { maxAttempts: 1 })
        yield* q.claim("doomed", [kind], 100)
        yield* leaseExpired(job.id)
        const takeover = yield* q.claim("rescuer", [kind], 30_000)
        const reaped = yield* q.reapExpired
        return { takeover, reaped, job: Option.getOrThrow(yield* q.get(job.id)), attempts: yield* q.attempts(job.id) }
      })
    )
    expect(Option.isNone(result.takeover)).toBe(true)
    expect(result.reaped).toBeGreaterThanOrEqual(1)
    expect(result.job).toMatchObject({ status: "DEAD", lastErrorCode: "LEASE_EXPIRED" })
    expect(result.attempts.map((a) => a.outcome)).toEqual(["LEASE_EXPIRED"])
  })

  it("retries with exponential backoff recorded in job_attempts, then DEAD and listed", async () => {
    const kind = uniqueKind("retry")
    const result = await run(
      Effect.gen(function* () {
        const q = yield* queue
        const { job } = yield* q.enqueue(kind, {}, { maxAttempts: 3 })
        const statuses: Array<string> = []
        for (let attempt = 1; attempt <= 3; attempt++) {
          const claimed = yield* Effect.gen(function* () {
            for (;;) {
              const next = yield* q.claim("flaky", [kind], 30_000)
              if (Option.isSome(next)) return next.value
              yield* Effect.sleep("10 millis")
            }
          })
          expect(claimed.lease.attempt).toBe(attempt)
          const outcome = yield* q.fail(claimed.lease, JobFailure.retryable("UPSTREAM_DOWN", `upstream answered 503 (attempt ${attempt})`))
          statuses.push(Option.getOrThrow(outcome).status)
        }
        return { statuses, job: Option.getOrThrow(yield* q.get(job.id)), attempts: yield* q.attempts(job.id), dead: yield* q.list({ status: "DEAD", kind }) }
      })
    )
    expect(result.statuses).toEqual(["QUEUED", "QUEUED", "DEAD"])
    expect(result.job).toMatchObject({ status: "DEAD", attempts: 3, lastErrorCode: "UPSTREAM_DOWN", lastErrorMessage: "upstream answered 503 (attempt 3)" })
    expect(result.job.finishedAt).toBeInstanceOf(Date)
    expect(result.dead.map((job) => job.id)).toEqual([result.job.id])
    const [a1, a2, a3] = result.attempts
    expect(result.attempts.map((a) => [a.attempt, a.outcome, a.errorCode])).toEqual([
      [1, "FAILED", "UPSTREAM_DOWN"],
      [2, "FAILED", "UPSTREAM_DOWN"],
      [3, "FAILED", "UPSTREAM_DOWN"]
    ])
    // Backoff base 50 ms (test config): attempt n waits between half and all of 50 * 2^(n-1) ms.
    const delay = (a: typeof a1) => a!.retryAt!.getTime() - a!.finishedAt!.getTime()
    expect(delay(a1)).toBeGreaterThanOrEqual(25)
    expect(delay(a1)).toBeLessThanOrEqual(50)
    expect(delay(a2)).toBeGreaterThanOrEqual(50)
    expect(delay(a2)).toBeLessThanOrEqual(100)
    expect(a3!.retryAt).toBeNull()
    // No attempt started before the backoff it was scheduled after.
    expect(a2!.startedAt.getTime()).toBeGreaterThanOrEqual(a1!.retryAt!.getTime())
    expect(a3!.startedAt.getTime()).toBeGreaterThanOrEqual(a2!.retryAt!.getTime())
  })

  it("a permanent failure ends FAILED after one attempt", async () => {
    const kind = uniqueKind("permanent")
    const job = await run(
      Effect.gen(function* () {
        const q = yield* queue
        const { job } = yield* q.enqueue(kind, {})
        const claimed = Option.getOrThrow(yield* q.claim("w", [kind], 30_000))
        yield* q.fail(claimed.lease, JobFailure.permanent("UNSUPPORTED_MEDIA_TYPE", "cannot read .exe files"))
        return Option.getOrThrow(yield* q.get(job.id))
      })
    )
    expect(job).toMatchObject({ status: "FAILED", attempts: 1, lastErrorCode: "UNSUPPORTED_MEDIA_TYPE" })
  })

  it("a dedupe key prevents a second unfinished job of the same kind", async () => {
    const kind = uniqueKind("dedupe")
    const other = uniqueKind("dedupe-other")
    const result = await run(
      Effect.gen(function* () {
        const q = yield* queue
        const first = yield* q.enqueue(kind, { v: 1 }, { dedupeKey: "source-1" })
        const duplicate = yield* q.enqueue(kind, { v: 2 }, { dedupeKey: "source-1" })
        const otherKey = yield* q.enqueue(kind, { v: 3 }, { dedupeKey: "source-2" })
        const otherKind = yield* q.enqueue(other, { v: 4 }, { dedupeKey: "source-1" })
        const claimed = Option.getOrThrow(yield* q.claim("w", [kind], 30_000))
        const whileRunning = yield* q.enqueue(kind, { v: 5 }, { dedupeKey: claimed.job.dedupeKey! })
        yield* q.complete(claimed.lease)
        const afterFinish = yield* q.enqueue(kind, { v: 6 }, { dedupeKey: claimed.job.dedupeKey! })
        return { first, duplicate, otherKey, otherKind, claimed, whileRunning, afterFinish, all: yield* q.list({ kind }) }
      })
    )
    expect(result.duplicate).toMatchObject({ deduplicated: true, job: { id: result.first.job.id, payload: { v: 1 } } })
    expect(result.otherKey.deduplicated).toBe(false)
    expect(result.otherKind.deduplicated).toBe(false)
    expect(result.whileRunning).toMatchObject({ deduplicated: true, job: { id: result.claimed.job.id, status: "RUNNING" } })
    expect(result.afterFinish.deduplicated).toBe(false)
    expect(result.afterFinish.job.id).not.toBe(result.claimed.job.id)
    expect(result.all).toHaveLength(3)
  })

  it("cancels queued and running jobs; finished or unknown ones answer typed errors", async () => {
    const kind = uniqueKind("cancel")
    const result = await run(
      Effect.gen(function* () {
        const q = yield* queue
        const queued = yield* q.enqueue(kind, { n: 1 })
        const cancelled = yield* q.cancel(queued.job.id)
        const claimedAfterCancel = yield* q.claim("w", [kind], 30_000)
        const again = yield* Effect.flip(q.cancel(queued.job.id))
        const unknown = yield* Effect.flip(q.cancel(crypto.randomUUID()))
        const malformed = yield* Effect.flip(q.cancel("not-a-uuid"))
        const running = yield* q.enqueue(kind, { n: 2 })
        const claimed = Option.getOrThrow(yield* q.claim("w", [kind], 30_000))
        const cancelledRunning = yield* q.cancel(running.job.id)
        const lateComplete = yield* q.complete(claimed.lease)
        return { cancelled, claimedAfterCancel, again, unknown, malformed, cancelledRunning, lateComplete, attempts: yield* q.attempts(running.job.id) }
      })
    )
    expect(result.cancelled).toMatchObject({ status: "CANCELLED" })
    expect(result.cancelled.finishedAt).toBeInstanceOf(Date)
    expect(Option.isNone(result.claimedAfterCancel)).toBe(true)
    expect(result.again._tag).toBe("JobNotCancellable")
    expect(result.unknown._tag).toBe("JobNotFound")
    expect(result.malformed._tag).toBe("JobNotFound")
    expect(result.cancelledRunning).toMatchObject({ status: "CANCELLED", leaseOwner: null })
    expect(result.lateComplete).toBe(false)
    expect(result.attempts.map((a) => a.outcome)).toEqual(["CANCELLED"])
  })
})
