import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Option, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { JobHandlers, type JobContext } from "../../src/jobs/JobHandlers"
import { JobQueue } from "../../src/jobs/JobQueue"
import { defineJob, JobFailure, type JobStatus } from "../../src/jobs/Model"
import { createTestDatabase, eventually, startProcess, startWorkers, uniqueKind, type ProcessRuntime, type TestDatabase } from "./support"

let database: TestDatabase
let one: ProcessRuntime
/** A second server process on PostgreSQL (own pool and LISTEN connection); on PGlite the same one. */
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

type Services = JobQueue | JobHandlers | SqlClient.SqlClient
const run = <A, E>(effect: Effect.Effect<A, E, Services>, runtime: ProcessRuntime = one) => runtime.runPromise(effect)

/** Registers a handler in each distinct process (on PGlite both names are one process with one registry). */
const registerEverywhere = async (kind: string, handler: (payload: unknown, context: JobContext) => Effect.Effect<void, JobFailure>) => {
  for (const runtime of new Set([one, two])) await run(Effect.flatMap(JobHandlers, (h) => h.register(kind, handler)), runtime)
}

const enqueueMany = (kind: string, count: number) =>
  run(Effect.flatMap(JobQueue, (q) => Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) => Effect.map(q.enqueue(kind, { i }), (e) => e.job.id))))

const statusOf = (id: string) => Effect.map(Effect.flatMap(JobQueue, (q) => q.get(id)), (job) => Option.getOrThrow(job).status)
const waitForStatus = (id: string, status: JobStatus, runtime: ProcessRuntime = one) =>
  runtime.runPromise(eventually(statusOf(id), (s) => s === status))

const fast = { pollInterval: "50 millis", lease: "5 seconds" } as const

describe("job workers", () => {
  it("worker pools in two processes run each of 50 jobs exactly once", async () => {
    const kind = uniqueKind("pools")
    const invocations = new Map<string, number>()
    await registerEverywhere(kind, (_payload, context) =>
      Effect.sync(() => invocations.set(context.job.id, (invocations.get(context.job.id) ?? 0) + 1)).pipe(Effect.zipRight(Effect.sleep("2 millis")))
    )
    const workersOne = await startWorkers(one, { ...fast, concurrency: 3, kinds: [kind] })
    const workersTwo = await startWorkers(two, { ...fast, concurrency: 3, kinds: [kind] })
    try {
      const ids = await enqueueMany(kind, 50)
      await run(eventually(Effect.flatMap(JobQueue, (q) => q.list({ kind, status: "SUCCEEDED" })), (jobs) => jobs.length === 50))
      expect([...invocations.keys()].sort()).toEqual([...ids].sort())
      for (const count of invocations.values()) expect(count).toBe(1)
      const attempts = await run(Effect.flatMap(JobQueue, (q) => Effect.forEach(ids, (id) => q.attempts(id))))
      for (const rows of attempts) expect(rows.map((a) => a.outcome)).toEqual(["SUCCEEDED"])
      const owners = new Set(attempts.flat().map((a) => a.workerId))
      for (const owner of owners) expect([...workersOne.workerIds, ...workersTwo.workerIds]).toContain(owner)
    } finally {
      await workersOne.stop()
      await workersTwo.stop()
    }
  })

  it("a job left by a killed worker is finished once by another worker", async () => {
    const kind = uniqueKind("rescue")
    let invocations = 0
    await registerEverywhere(kind, () => Effect.sync(() => void invocations++))
    // The "killed" process claimed the job with a short lease and disappeared.
    const { job, lease } = await run(
      Effect.gen(function* () {
        const q = yield* JobQueue
        yield* q.enqueue(kind, { file: "report.pdf" })
        return Option.getOrThrow(yield* q.claim("killed-process#1", [kind], 300))
      })
    )
    const workers = await startWorkers(two, { ...fast, kinds: [kind] })
    try {
      await waitForStatus(job.id, "SUCCEEDED", two)
    } finally {
      await workers.stop()
    }
    expect(invocations).toBe(1)
    const late = await run(Effect.flatMap(JobQueue, (q) => q.complete(lease)))
    expect(late).toBe(false)
    const attempts = await run(Effect.flatMap(JobQueue, (q) => q.attempts(job.id)))
    expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, "LEASE_EXPIRED"],
      [2, "SUCCEEDED"]
    ])
    expect(workers.workerIds).toContain(attempts[1]!.workerId)
  })

  it("retries failing handlers with backoff until DEAD; permanent failures and defects are recorded", async () => {
    const flaky = uniqueKind("flaky")
    const permanent = uniqueKind("permanent")
    const defect = uniqueKind("defect")
    let flakyRuns = 0
    await registerEverywhere(flaky, () => Effect.suspend(() => (flakyRuns++, Effect.fail(JobFailure.retryable("UPSTREAM_DOWN", "the embedding server answered 503")))))
    await registerEverywhere(permanent, () => Effect.fail(JobFailure.permanent("EMPTY_DOCUMENT", "the file has no text")))
    await registerEverywhere(defect, () => Effect.sync(() => { throw new Error("bug in handler") }))
    const workers = await startWorkers(one, { ...fast, concurrency: 2, kinds: [flaky, permanent, defect] })
    try {
      const [flakyId, permanentId, defectId] = await run(
        Effect.flatMap(JobQueue, (q) =>
          Effect.all([
            q.enqueue(flaky, {}, { maxAttempts: 3 }),
            q.enqueue(permanent, {}),
            q.enqueue(defect, {}, { maxAttempts: 2 })
          ]).pipe(Effect.map((all) => all.map((e) => e.job.id)))
        )
      )
      await waitForStatus(flakyId!, "DEAD")
      await waitForStatus(permanentId!, "FAILED")
      await waitForStatus(defectId!, "DEAD")
      const result = await run(
        Effect.flatMap(JobQueue, (q) =>
          Effect.all({ flaky: q.attempts(flakyId!), permanent: q.attempts(permanentId!), defect: q.attempts(defectId!), dead: q.list({ status: "DEAD", kind: flaky }) })
        )
      )
      expect(flakyRuns).toBe(3)
      expect(result.flaky.map((a) => [a.attempt, a.outcome, a.errorCode, a.retryAt !== null])).toEqual([
        [1, "FAILED", "UPSTREAM_DOWN", true],
        [2, "FAILED", "UPSTREAM_DOWN", true],
        [3, "FAILED", "UPSTREAM_DOWN", false]
      ])
      expect(result.dead).toHaveLength(1)
      expect(result.dead[0]).toMatchObject({ id: flakyId, lastErrorCode: "UPSTREAM_DOWN", lastErrorMessage: "the embedding server answered 503" })
      expect(result.permanent.map((a) => [a.outcome, a.errorCode])).toEqual([["FAILED", "EMPTY_DOCUMENT"]])
      expect(result.defect.map((a) => [a.outcome, a.errorCode])).toEqual([["FAILED", "DEFECT"], ["FAILED", "DEFECT"]])
      expect(result.defect[0]!.errorMessage).toContain("bug in handler")
    } finally {
      await workers.stop()
    }
  })

  it("typed job definitions decode payloads; undecodable payloads fail permanently", async () => {
    const Greet = defineJob(uniqueKind("typed"), Schema.Struct({ name: Schema.String, times: Schema.Int }))
    const seen: Array<{ name: string; times: number }> = []
    await run(Effect.flatMap(JobHandlers, (h) => h.registerJob(Greet, (payload) => Effect.sync(() => void seen.push(payload)))))
    const workers = await startWorkers(one, { ...fast, kinds: [Greet.kind] })
    try {
      const [good, bad] = await run(
        Effect.flatMap(JobQueue, (q) => Effect.all([q.enqueueJob(Greet, { name: "Ada", times: 2 }), q.enqueue(Greet.kind, { name: 42 })]))
      )
      await waitForStatus(good!.job.id, "SUCCEEDED")
      await waitForStatus(bad!.job.id, "FAILED")
      expect(seen).toEqual([{ name: "Ada", times: 2 }])
      const job = await run(Effect.map(Effect.flatMap(JobQueue, (q) => q.get(bad!.job.id)), Option.getOrThrow))
      expect(job.lastErrorCode).toBe("INVALID_PAYLOAD")
    } finally {
      await workers.stop()
    }
  })

  it("cancelling a running job interrupts its handler and records nothing after", async () => {
    const kind = uniqueKind("cancel-running")
    const started = await run(Deferred.make<string>())
    const interrupted = await run(Deferred.make<void>())
    await registerEverywhere(kind, (_payload, context) =>
      Deferred.succeed(started, context.job.id).pipe(
        Effect.zipRight(Effect.never),
        Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
      )
    )
    const workers = await startWorkers(one, { pollInterval: "50 millis", lease: "600 millis", kinds: [kind] })
    try {
      await run(Effect.flatMap(JobQueue, (q) => q.enqueue(kind, {})))
      const id = await run(Deferred.await(started))
      await run(Effect.flatMap(JobQueue, (q) => q.cancel(id)))
      await run(Deferred.await(interrupted))
      const job = await run(Effect.map(Effect.flatMap(JobQueue, (q) => q.get(id)), Option.getOrThrow))
      expect(job.status).toBe("CANCELLED")
      const attempts = await run(Effect.flatMap(JobQueue, (q) => q.attempts(id)))
      expect(attempts.map((a) => a.outcome)).toEqual(["CANCELLED"])
    } finally {
      await workers.stop()
    }
  })

  it("shutdown lets a running handler finish within the grace period", async () => {
    const kind = uniqueKind("graceful")
    const started = await run(Deferred.make<string>())
    await registerEverywhere(kind, (_payload, context) => Deferred.succeed(started, context.job.id).pipe(Effect.zipRight(Effect.sleep("300 millis"))))
    const workers = await startWorkers(one, { ...fast, kinds: [kind], shutdownGrace: "30 seconds" })
    await run(Effect.flatMap(JobQueue, (q) => q.enqueue(kind, {})))
    const id = await run(Deferred.await(started))
    await workers.stop()
    expect(await run(statusOf(id))).toBe("SUCCEEDED")
  })

  it("shutdown past the grace period releases the job, which another worker then runs", async () => {
    const kind = uniqueKind("release")
    const started = await run(Deferred.make<string>())
    let runs = 0
    await registerEverywhere(kind, (_payload, context) =>
      Effect.suspend(() => (++runs === 1 ? Deferred.succeed(started, context.job.id).pipe(Effect.zipRight(Effect.never)) : Effect.void))
    )
    const first = await startWorkers(one, { ...fast, kinds: [kind], shutdownGrace: "100 millis" })
    await run(Effect.flatMap(JobQueue, (q) => q.enqueue(kind, {}, { maxAttempts: 1 })))
    const id = await run(Deferred.await(started))
    await first.stop()
    const released = await run(Effect.map(Effect.flatMap(JobQueue, (q) => q.get(id)), Option.getOrThrow))
    // Released, not failed: back in the queue with the attempt not counted (maxAttempts 1 still allows a run).
    expect(released).toMatchObject({ status: "QUEUED", attempts: 0, leaseOwner: null })
    const second = await startWorkers(two, { ...fast, kinds: [kind] })
    try {
      await waitForStatus(id, "SUCCEEDED", two)
    } finally {
      await second.stop()
    }
    const attempts = await run(Effect.flatMap(JobQueue, (q) => q.attempts(id)))
    expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, "RELEASED"],
      [1, "SUCCEEDED"]
    ])
    expect(runs).toBe(2)
  })

  it("an enqueue wakes idle workers (in another process on PostgreSQL) without waiting for a poll", async () => {
    const kind = uniqueKind("wake")
    await registerEverywhere(kind, () => Effect.void)
    // A poll interval of an hour: only the wake-up signal can get this job run within the test.
    const workers = await startWorkers(two, { pollInterval: "1 hour", kinds: [kind] })
    try {
      await workers.allIdle()
      const { job } = await run(Effect.flatMap(JobQueue, (q) => q.enqueue(kind, {})))
      await waitForStatus(job.id, "SUCCEEDED")
    } finally {
      await workers.stop()
    }
  })
})
