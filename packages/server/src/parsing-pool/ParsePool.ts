import { Data, Deferred, Duration, Effect } from "effect"
import { existsSync } from "node:fs"
import { MessageChannel } from "node:worker_threads"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Piscina } from "piscina"
import { Settings } from "../Config"

/**
 * Parsing of caller input off the event loop: a piscina pool of worker threads (LORE_PARSE_WORKERS, default 2)
 * with a time limit that really fires (LORE_PARSE_TIMEOUT, default 30 s): the overrunning worker thread is
 * terminated, whatever the parser is doing, and the sender gets PARSE_TIMEOUT (a skill) or TIMEOUT (a
 * document). A request or job that is interrupted (client gone, shutdown) terminates its worker too.
 *
 * When the pool cannot start (its worker file is missing or cannot load), parsing falls back to the calling
 * thread, without the time limit, and says so in the log at start: Lore keeps working, unprotected.
 *
 * The pool knows no task: an area hands it one as plain data (`{ kind, ... }`) with the same work to do in
 * process, and the worker thread's table (parse-worker/Tasks.ts) runs it. So the areas that parse depend on
 * the pool, and only the worker depends on them.
 */

/** A task as the worker receives it: plain data (structured clone), told apart by `kind` (parse-worker/Tasks.ts). */
export interface PoolTask {
  readonly kind: string
}

/** A time limit as a message says it. */
export const spokenDuration = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} seconds` : `${ms} ms`)

export class ParseTimeout extends Data.TaggedError("ParseTimeout")<{ readonly timeoutMs: number }> {}
export class ParseWorkerFailed extends Data.TaggedError("ParseWorkerFailed")<{ readonly reason: string }> {}

/** Memory of one worker thread: a document that needs more stops its worker, not the server. */
const WORKER_HEAP_MB = 1024

/**
 * The worker's file: beside this module when running from source (tests under vitest, tsx), where it needs
 * tsx's loader; `parse-worker.js` beside the bundle when built (tsup entry, packages/server/tsup.config.ts).
 */
const workerFile = (): { readonly filename: string; readonly execArgv: Array<string> } => {
  const here = import.meta.url
  if (here.endsWith(".ts")) {
    const tsx = pathToFileURL(createRequire(here).resolve("tsx")).href
    return { filename: fileURLToPath(new URL("../parse-worker/worker.ts", here)), execArgv: ["--import", tsx] }
  }
  return { filename: fileURLToPath(new URL("./parse-worker.js", here)), execArgv: [] }
}

const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 300)

const startPool = (workers: number): Piscina | string => {
  try {
    const { filename, execArgv } = workerFile()
    if (!existsSync(filename)) return `the worker file ${filename} is missing`
    return new Piscina({
      filename,
      execArgv,
      minThreads: 1,
      maxThreads: Math.max(1, workers),
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB }
    })
  } catch (error) {
    return describe(error)
  }
}

export class ParsePool extends Effect.Service<ParsePool>()("lore/ParsePool", {
  scoped: Effect.gen(function* () {
    const { parsing } = yield* Settings
    const started = startPool(parsing.workers)
    const pool = typeof started === "string" ? null : started
    if (pool) yield* Effect.addFinalizer(() => Effect.promise(() => pool.destroy().catch(() => undefined)))

    /** Tasks running in workers (their abort controllers), and whether the server is stopping. */
    const running = new Set<AbortController>()
    let stopping = false

    /**
     * Shutdown's first step (App.ts): every running parse is stopped at once (its worker terminated) and ends
     * as an interruption, so a job is released for the next start instead of waiting out the workers' grace.
     */
    const stopAll = Effect.sync(() => {
      stopping = true
      for (const controller of running) controller.abort()
    })

    const inPool = (task: PoolTask) =>
      Effect.tryPromise({
        try: (signal) => pool!.run(task, { signal }) as Promise<unknown>,
        catch: (error) => new ParseWorkerFailed({ reason: describe(error) })
      })

    /**
     * One task in a worker, timed from the moment a worker starts it (the worker says so on a MessagePort), so
     * waiting for a free worker never counts against a document. Aborting (the time limit, or interruption: a
     * gone client, shutdown) terminates the worker if it is running the task, however busy it is.
     */
    const timed = (task: PoolTask) =>
      Effect.async<unknown, ParseTimeout | ParseWorkerFailed>((resume) => {
        if (stopping) return resume(Effect.interrupt)
        const controller = new AbortController()
        running.add(controller)
        const { port1, port2 } = new MessageChannel()
        let timer: NodeJS.Timeout | undefined
        let timedOut = false
        port1.once("message", () => {
          timer = setTimeout(() => {
            timedOut = true
            controller.abort()
          }, parsing.timeoutMs)
        })
        port1.unref()
        const cleanUp = () => {
          clearTimeout(timer)
          port1.close()
          running.delete(controller)
        }
        pool!.run({ ...task, started: port2 }, { signal: controller.signal, transferList: [port2] }).then(
          (result: unknown) => {
            cleanUp()
            resume(Effect.succeed(result))
          },
          (error: unknown) => {
            cleanUp()
            // Stopped for shutdown: an interruption, so a job is given back, not failed.
            if (stopping && !timedOut) return resume(Effect.interrupt)
            resume(Effect.fail(timedOut ? new ParseTimeout({ timeoutMs: parsing.timeoutMs }) : new ParseWorkerFailed({ reason: describe(error) })))
          }
        )
        return Effect.sync(() => {
          cleanUp()
          controller.abort()
        })
      })

    // The pool is usable once a worker answered; until then tasks wait for that answer.
    const usable = yield* Deferred.make<boolean>()
    if (!pool) {
      yield* Effect.logWarning("parse workers unavailable: parsing runs on the event loop, without a time limit").pipe(Effect.annotateLogs({ reason: started }))
      yield* Deferred.succeed(usable, false)
    } else {
      yield* Effect.forkScoped(
        inPool({ kind: "ping" }).pipe(
          Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => new ParseWorkerFailed({ reason: "no worker answered within 30 seconds" }) }),
          Effect.as(true),
          Effect.catchAll((error) =>
            Effect.as(Effect.logError("parse workers could not start: parsing runs on the event loop, without a time limit").pipe(Effect.annotateLogs({ reason: error.reason })), false)
          ),
          Effect.flatMap((ok) => Deferred.succeed(usable, ok))
        )
      )
    }

    /**
     * Runs one task in a worker under the time limit; `inProcess` does the same work on this thread, only when
     * the pool could not start. The caller knows its task's result type (the worker answers what `inProcess` would).
     */
    const run = <R>(task: PoolTask, inProcess: () => Promise<R>): Effect.Effect<R, ParseTimeout | ParseWorkerFailed> =>
      Effect.flatMap(Deferred.await(usable), (ok) => (ok ? (timed(task) as Effect.Effect<R, ParseTimeout | ParseWorkerFailed>) : Effect.promise(inProcess)))

    return { run, timeoutMs: parsing.timeoutMs, stopAll, inPool: pool !== null }
  })
}) {}
