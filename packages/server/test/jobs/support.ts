import { Context, Duration, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime, Option, Redacted, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { Settings, type LoreSettings } from "../../src/Config"
import { DatabaseLive } from "../../src/db/Layer"
import { JobQueueConfig } from "../../src/jobs/Model"
import { JobsLive, JobWorkers, type JobWorkersOptions } from "../../src/jobs/Worker"

/**
 * A database of the test file's own: PGlite in a temporary data dir, or, when DATABASE_URL is set, a
 * throwaway database on that PostgreSQL server, dropped afterwards.
 */
export interface TestDatabase {
  readonly kind: "embedded" | "postgresql"
  readonly settings: LoreSettings
  readonly dispose: () => Promise<void>
}

export const createTestDatabase = async (): Promise<TestDatabase> => {
  const dataDir = mkdtempSync(join(tmpdir(), "lore-jobs-"))
  const adminUrl = process.env.DATABASE_URL
  if (!adminUrl) {
    return {
      kind: "embedded",
      settings: Settings.make({ dataDir }),
      dispose: async () => rmSync(dataDir, { recursive: true, force: true })
    }
  }
  const name = `lore_test_jobs_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  await admin(adminUrl, `CREATE DATABASE ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    kind: "postgresql",
    settings: Settings.make({ dataDir, databaseUrl: Option.some(Redacted.make(url.toString())) }),
    dispose: async () => {
      await admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

const admin = async (url: string, statement: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** Short backoff so retry tests finish quickly (the values are asserted from the database, not timed). */
export const testQueueConfig = { backoffBaseMs: 50, backoffMaxMs: 2_000, defaultMaxAttempts: 5 }

/** One "server process": its own connection pool, queue, handler registry and wake-up listener. */
export const processLayer = (settings: LoreSettings) =>
  JobsLive.pipe(
    Layer.provide(Layer.succeed(JobQueueConfig, testQueueConfig)),
    Layer.provideMerge(DatabaseLive),
    Layer.provide(process.env.LORE_TEST_LOGS ? Logger.minimumLogLevel(LogLevel.Debug) : Logger.minimumLogLevel(LogLevel.None)),
    Layer.provide(Layer.succeed(Settings, settings))
  )

export type ProcessRuntime = ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof processLayer>>, Layer.Layer.Error<ReturnType<typeof processLayer>>>

export const startProcess = async (settings: LoreSettings): Promise<ProcessRuntime> => {
  const runtime = ManagedRuntime.make(processLayer(settings))
  await runtime.runtime()
  return runtime
}

export interface RunningWorkers {
  readonly workerIds: ReadonlyArray<string>
  /** Resolves once every worker has found nothing to do and waits (for a wake-up or its poll). */
  readonly allIdle: () => Promise<void>
  /** Closes the workers' scope: stop claiming, let handlers finish within the grace, release the rest. */
  readonly stop: () => Promise<void>
}

export const startWorkers = async (runtime: ProcessRuntime, options: JobWorkersOptions): Promise<RunningWorkers> => {
  const scope = await runtime.runPromise(Scope.make())
  const context = await runtime.runPromise(Layer.buildWithScope(JobWorkers.layer(options), scope))
  const info = Context.get(context, JobWorkers)
  return {
    workerIds: info.workerIds,
    allIdle: () => runtime.runPromise(eventually(info.idle, (n) => n === info.workerIds.length).pipe(Effect.asVoid)),
    stop: () => runtime.runPromise(Scope.close(scope, Exit.void))
  }
}

/** Polls until `check` answers a value that satisfies `done`; fails after `timeout` (a safety net, not a speed assertion). */
export const eventually = <A, E, R>(check: Effect.Effect<A, E, R>, done: (a: A) => boolean, timeout: Duration.DurationInput = "30 seconds") =>
  Effect.gen(function* () {
    for (;;) {
      const value = yield* check
      if (done(value)) return value
      yield* Effect.sleep("25 millis")
    }
  }).pipe(Effect.timeoutFail({ duration: timeout, onTimeout: () => new Error("condition not reached in time") }))

export const uniqueKind = (name: string) => `test.${name}.${Math.random().toString(36).slice(2, 8)}`
