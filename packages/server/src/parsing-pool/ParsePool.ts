import { Data, Deferred, Duration, Effect } from "effect"
import { existsSync } from "node:fs"
import { MessageChannel } from "node:worker_threads"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Piscina } from "piscina"
import { type SkillLimits, Settings } from "../Config"
import type { PackageFile } from "../assets/SkillArchive"
import type { SkillCheck } from "../assets/SkillFormat"
import { withNullPrototypes } from "../domain/SafeKeys"
import type { ParseOptions, SupportedMediaType } from "../knowledge/parsing/types"
import { type DocumentResult, type ParseResult, type ParseTask, runTask } from "./Tasks"

/**
 * Parsing of caller input off the event loop: a piscina pool of worker threads (LORE_PARSE_WORKERS, default 2)
 * with a time limit that really fires (LORE_PARSE_TIMEOUT, default 30 s): the overrunning worker thread is
 * terminated, whatever the parser is doing, and the sender gets PARSE_TIMEOUT (a skill) or TIMEOUT (a
 * document). A request or job that is interrupted (client gone, shutdown) terminates its worker too.
 *
 * When the pool cannot start (its worker file is missing or cannot load), parsing falls back to the calling
 * thread, without the time limit, and says so in the log at start: Lore keeps working, unprotected.
 */

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
    return { filename: fileURLToPath(new URL("./worker.ts", here)), execArgv: ["--import", tsx] }
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

    const inPool = (task: ParseTask) =>
      Effect.tryPromise({
        try: (signal) => pool!.run(task, { signal }) as Promise<ParseResult>,
        catch: (error) => new ParseWorkerFailed({ reason: describe(error) })
      })

    /**
     * One task in a worker, timed from the moment a worker starts it (the worker says so on a MessagePort), so
     * waiting for a free worker never counts against a document. Aborting (the time limit, or interruption: a
     * gone client, shutdown) terminates the worker if it is running the task, however busy it is.
     */
    const timed = (task: ParseTask) =>
      Effect.async<ParseResult, ParseTimeout | ParseWorkerFailed>((resume) => {
        const controller = new AbortController()
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
        }
        pool!.run({ ...task, started: port2 }, { signal: controller.signal, transferList: [port2] }).then(
          (result: ParseResult) => {
            cleanUp()
            resume(Effect.succeed(result))
          },
          (error: unknown) => {
            cleanUp()
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

    /** Runs one task in a worker under the time limit (in process only when the pool could not start). */
    const run = (task: ParseTask): Effect.Effect<ParseResult, ParseTimeout | ParseWorkerFailed> =>
      Effect.flatMap(Deferred.await(usable), (ok) =>
        ok
          ? timed(task)
          : Effect.promise(() => runTask(task))
      )

    const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} seconds` : `${ms} ms`)

    /** A skill's check; a parse that overruns is PARSE_TIMEOUT, a worker that died (memory) PARSE_FAILED. */
    const skill = (task: ParseTask): Effect.Effect<SkillCheck> =>
      run(task).pipe(
        Effect.map((result): SkillCheck => {
          if (result.kind !== "skill") return { ok: false, problems: [{ code: "PARSE_FAILED", path: "", message: "the package could not be read" }] }
          const check = result.check
          // Structured clone gave the metadata a prototype again: back to a null-prototype map.
          return check.ok ? { ok: true, skill: { ...check.skill, inspection: { ...check.skill.inspection, metadata: withNullPrototypes(check.skill.inspection.metadata) as Record<string, string> } } } : check
        }),
        Effect.catchTags({
          ParseTimeout: (error) => Effect.succeed<SkillCheck>({ ok: false, problems: [{ code: "PARSE_TIMEOUT", path: "", message: `reading the package took longer than ${seconds(error.timeoutMs)}, so it was stopped` }] }),
          ParseWorkerFailed: (error) =>
            Effect.as(
              Effect.logWarning("skill parse worker failed").pipe(Effect.annotateLogs({ reason: error.reason })),
              { ok: false, problems: [{ code: "PARSE_FAILED", path: "", message: "reading the package stopped its parser (too much memory?)" }] } satisfies SkillCheck
            )
        })
      )

    const inspectSkillZip = (bytes: Uint8Array, limits: SkillLimits) => skill({ kind: "skill-zip", bytes, limits })
    const checkSkillFiles = (files: ReadonlyArray<PackageFile>, directory: string | null, limits: SkillLimits) => skill({ kind: "skill-files", files, directory, limits })

    /** A document parsed and chunked; overrunning the time limit is TIMEOUT, a dead worker LIMIT_EXCEEDED. */
    const parseDocument = (bytes: Uint8Array, mediaType: SupportedMediaType, sourceRevisionId: string): Effect.Effect<DocumentResult> =>
      run({ kind: "document", bytes, mediaType, sourceRevisionId, options: { timeoutMs: parsing.timeoutMs } satisfies ParseOptions }).pipe(
        Effect.map((result): DocumentResult => (result.kind === "document" ? result.result : { ok: false, code: "CORRUPT_FILE", message: "The document could not be read." })),
        Effect.catchTags({
          ParseTimeout: (error) =>
            Effect.succeed<DocumentResult>({
              ok: false,
              code: "TIMEOUT",
              message: `Reading the document took longer than ${seconds(error.timeoutMs)}, so it was stopped. Split it into smaller files and upload those.`
            }),
          ParseWorkerFailed: (error) =>
            Effect.as(Effect.logWarning("document parse worker failed").pipe(Effect.annotateLogs({ reason: error.reason })), {
              ok: false,
              code: "LIMIT_EXCEEDED",
              message: "Reading the document needed more memory than Lore allows a document, so it was stopped. Split it into smaller files and upload those."
            } satisfies DocumentResult)
        })
      )

    return { inspectSkillZip, checkSkillFiles, parseDocument, inPool: pool !== null }
  })
}) {}
