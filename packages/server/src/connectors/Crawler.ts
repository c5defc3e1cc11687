import { Cause, Effect, Layer, Option, Schedule } from "effect"
import { withNullPrototypes } from "../domain/SafeKeys"
import { Settings } from "../Config"
import { JobHandlers, type JobContext } from "../jobs/JobHandlers"
import { JobQueue } from "../jobs/JobQueue"
import { JobFailure } from "../jobs/Model"
import { ConnectorConnections } from "./Connections"
import { ConnectorDocuments } from "./Documents"
import { CrawlConnection, crawlDedupeKey } from "./Jobs"
import { kindOf } from "./Kinds"
import { ConnectorsRepo, type CrawlProgress } from "./Repo"

const MAX_PAGES = 1000

/**
 * One crawl: the kind's pages from the stored checkpoint, each applied (documents, groups, deletions) and its
 * checkpoint stored with the crawl's progress before the next, so a crawl killed mid-way resumes from the last
 * page it finished; applying a page twice changes nothing (idempotent by external id). The attempt is recorded
 * for the activity, a failed one too (the job retries it from the checkpoint).
 */
const crawl = ({ connectionId }: { connectionId: string }, context: JobContext) =>
  Effect.gen(function* () {
    const repo = yield* ConnectorsRepo
    const documents = yield* ConnectorDocuments
    const connections = yield* ConnectorConnections
    const settings = yield* Settings
    const connection = yield* repo.connectionById(connectionId)
    if (!connection) return
    const kind = kindOf(connection.sourceSystem)
    if (!kind) return
    const credential = yield* connections.credentialOf(connection)
    const counts = { materialized: 0, rotated: 0, rematerialized: 0, retired: 0, failed: 0 }
    let error: { code: string; message: string } | null = null
    let fatal = false
    const record = (outcome: string) =>
      repo.recordAttempt(connection.id, { outcome, ...counts, errorCode: error?.code ?? null, errorMessage: error?.message ?? null })

    const begun = yield* repo.beginCrawl(connection.id)
    let progress: CrawlProgress = begun?.crawlProgress ?? { startedAt: new Date().toISOString(), processed: 0, remaining: null }
    let checkpoint = connection.checkpoint
    const pages = Effect.gen(function* () {
      for (let page = 0; page < MAX_PAGES; page++) {
        yield* context.fence
        const step = yield* kind.crawl({ sourceConfig: withNullPrototypes(connection.sourceConfig) as Readonly<Record<string, unknown>>, credential, settings }, checkpoint)
        for (const group of step.groups) yield* documents.putGroup(connection, group)
        for (const document of step.documents) {
          const outcome = yield* Effect.either(documents.put(connection, document))
          if (outcome._tag === "Left") {
            counts.failed++
            error = { code: outcome.left.code, message: `${document.externalId}: ${outcome.left.detail}` }
          } else if (outcome.right.outcome === "MATERIALIZED") counts.materialized++
          else if (outcome.right.outcome === "ROTATED") counts.rotated++
          else if (outcome.right.outcome === "REMATERIALIZED") counts.rematerialized++
        }
        for (const failure of step.failures ?? []) {
          counts.failed++
          error = { code: failure.code, message: failure.message }
          if (failure.fatal) fatal = true
        }
        for (const externalId of step.deleted) if (yield* documents.retire(connection, externalId)) counts.retired++
        checkpoint = step.checkpoint
        progress = { ...progress, processed: progress.processed + step.documents.length + step.deleted.length, remaining: step.remaining ?? null }
        yield* repo.setCheckpoint(connection.id, checkpoint, step.done ? null : progress)
        if (step.done) return
      }
    })
    yield* pages.pipe(
      Effect.tapErrorCause((cause) => {
        // A lost lease or a stop means another worker (or the next start) carries on: not an attempt of its own.
        if (Cause.isInterruptedOnly(cause)) return Effect.void
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure) && failure.value instanceof JobFailure && failure.value.code === "LEASE_LOST") return Effect.void
        error = Option.match(failure, {
          onNone: () => ({ code: "CRAWL_FAILED", message: Cause.pretty(cause).split("\n")[0]!.slice(0, 500) }),
          onSome: (e) => ({ code: (e as { code?: string }).code ?? "CRAWL_FAILED", message: String((e as { message?: string; detail?: string }).detail ?? (e as { message?: string }).message ?? e).slice(0, 500) })
        })
        return record("FAILED").pipe(Effect.catchAllCause(() => Effect.void))
      })
    )
    yield* repo.endCrawl(connection.id, counts.failed === 0)
    // FAILED: the source could not be crawled at all (unreachable, refused); PARTIAL: some objects failed.
    yield* record(fatal ? "FAILED" : counts.failed > 0 ? "PARTIAL" : "SUCCEEDED")
  })

/** Registers the crawl job with the workers. */
const CrawlJobLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const handlers = yield* JobHandlers
    yield* handlers.registerJob(CrawlConnection, crawl)
  })
)

/**
 * Scheduled crawls: every process looks for connections whose `contentCrawlIntervalSeconds` has passed since
 * their last crawl ended, every `connectors.scheduleCheckMs`, and enqueues a crawl; the per-connection dedupe
 * key keeps one crawl queued or running whichever process asked, and any worker may run it.
 */
const CrawlScheduleLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const queue = yield* JobQueue
    const repo = yield* ConnectorsRepo
    const settings = yield* Settings
    const check = Effect.gen(function* () {
      for (const { id } of yield* repo.dueForCrawl()) {
        yield* queue.enqueueJob(CrawlConnection, { connectionId: id }, { dedupeKey: crawlDedupeKey(id), maxAttempts: 5 })
      }
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not schedule connector crawls", cause)))
    yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced(settings.connectors.scheduleCheckMs)))
  })
)

export const CrawlerLive = Layer.mergeAll(CrawlJobLive, CrawlScheduleLive)
