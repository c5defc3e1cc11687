import { Cause, Effect, Layer, Option, Schedule } from "effect"
import { withNullPrototypes } from "../domain/SafeKeys"
import { Settings } from "../Config"
import { JobHandlers, type JobContext } from "../jobs/JobHandlers"
import { JobQueue } from "../jobs/JobQueue"
import { JobFailure } from "../jobs/Model"
import { ConnectorConnections } from "./Connections"
import { ConnectorDocuments } from "./Documents"
import { CrawlConnection, crawlDedupeKey, permissionsDedupeKey, SyncPermissions } from "./Jobs"
import type { KindContext } from "./Kind"
import { connectorKinds, kindOf } from "./Kinds"
import { type ConnectionRow, ConnectorsRepo, type CrawlProgress } from "./Repo"

const DEFAULT_PAGES_PER_RUN = 1000
const KNOWN_DOCUMENTS_PAGE = 500

type Counts = { materialized: number; rotated: number; rematerialized: number; retired: number; failed: number; skipped: number }
type ErrorState = { error: { code: string; message: string } | null; fatal: boolean }

/** What a kind is handed for one crawl or permission sync of a connection. */
const kindContext = (connection: ConnectionRow) =>
  Effect.gen(function* () {
    const repo = yield* ConnectorsRepo
    const connections = yield* ConnectorConnections
    const settings = yield* Settings
    return {
      sourceConfig: withNullPrototypes(connection.sourceConfig) as Readonly<Record<string, unknown>>,
      credential: yield* connections.credentialOf(connection),
      settings,
      resealCredential: (secret: string) => connections.resealCredential(connection, secret),
      documents: {
        page: (after: string | null, limit: number) => repo.liveExternalIds(connection.id, after, Math.min(limit, KNOWN_DOCUMENTS_PAGE), null),
        notSeenSince: (since: string, after: string | null, limit: number) =>
          repo.liveExternalIds(connection.id, after, Math.min(limit, KNOWN_DOCUMENTS_PAGE), since)
      }
    } satisfies KindContext
  })

/**
 * Records why a run stopped, unless it was only interrupted or lost its lease (then another worker, or the next
 * start, carries on: not an attempt of its own).
 */
const recordFailure = (cause: Cause.Cause<unknown>, state: ErrorState, record: (outcome: string) => Effect.Effect<void>) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.void
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && failure.value instanceof JobFailure && failure.value.code === "LEASE_LOST") return Effect.void
  state.error = Option.match(failure, {
    onNone: () => ({ code: "CRAWL_FAILED", message: Cause.pretty(cause).split("\n")[0]!.slice(0, 500) }),
    onSome: (e) => ({ code: (e as { code?: string }).code ?? "CRAWL_FAILED", message: String((e as { message?: string; detail?: string }).detail ?? (e as { message?: string }).message ?? e).slice(0, 500) })
  })
  return record("FAILED").pipe(Effect.catchAllCause(() => Effect.void))
}

/**
 * A run that applied its pages without reaching the end hands the job back to the queue, due at once and not
 * counted as a failed attempt (the rest continues from the stored checkpoint in the next run of the same job,
 * which keeps its dedupe key, so no second crawl can start meanwhile); only the run that reaches the end records
 * the attempt. The worker then finds the lease gone and records nothing more.
 */
const continueLater = (context: JobContext) => Effect.flatMap(JobQueue, (queue) => queue.release(context.lease))

/** A document the framework refuses for its type (nothing Lore can parse) is skipped, not failed. */
const isUnsupportedType = (error: { readonly errors?: ReadonlyArray<{ readonly path: string }> | undefined }) =>
  error.errors?.some((e) => e.path === "mediaType") ?? false

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
    const settings = yield* Settings
    const connection = yield* repo.connectionById(connectionId)
    if (!connection) return
    const kind = kindOf(connection.sourceSystem)
    if (!kind) return
    const kindInput = yield* kindContext(connection)
    const counts: Counts = { materialized: 0, rotated: 0, rematerialized: 0, retired: 0, failed: 0, skipped: 0 }
    const state: ErrorState = { error: null, fatal: false }
    const record = (outcome: string) =>
      repo.recordAttempt(connection.id, { outcome, component: "content", ...counts, errorCode: state.error?.code ?? null, errorMessage: state.error?.message ?? null })

    const begun = yield* repo.beginCrawl(connection.id)
    let progress: CrawlProgress = begun?.crawlProgress ?? { startedAt: new Date().toISOString(), processed: 0, remaining: null }
    // A crawl resumed from an earlier run of its job carries on counting from what that run counted.
    for (const key of Object.keys(counts) as Array<keyof Counts>) counts[key] += progress.counts?.[key] ?? 0
    let checkpoint = connection.checkpoint
    const pagesPerRun = settings.connectors.pagesPerRun ?? DEFAULT_PAGES_PER_RUN
    const pages = Effect.gen(function* () {
      for (let page = 0; page < pagesPerRun; page++) {
        yield* context.fence
        const step = yield* kind.crawl(kindInput, checkpoint)
        for (const group of step.groups) yield* documents.putGroup(connection, group)
        for (const document of step.documents) {
          const outcome = yield* Effect.either(documents.put(connection, document))
          if (outcome._tag === "Left") {
            if (isUnsupportedType(outcome.left)) counts.skipped++
            else {
              counts.failed++
              state.error = { code: outcome.left.code, message: `${document.externalId}: ${outcome.left.detail}` }
            }
          } else if (outcome.right.outcome === "MATERIALIZED") counts.materialized++
          else if (outcome.right.outcome === "ROTATED") counts.rotated++
          else if (outcome.right.outcome === "REMATERIALIZED") counts.rematerialized++
        }
        counts.skipped += step.skipped ?? 0
        for (const failure of step.failures ?? []) {
          counts.failed++
          state.error = { code: failure.code, message: failure.message }
          if (failure.fatal) state.fatal = true
        }
        for (const externalId of step.deleted) if (yield* documents.retire(connection, externalId)) counts.retired++
        checkpoint = step.checkpoint
        progress = { ...progress, processed: progress.processed + step.documents.length + step.deleted.length, remaining: step.remaining ?? null, counts: { ...counts } }
        yield* repo.setCheckpoint(connection.id, checkpoint, step.done ? null : progress)
        if (step.done) return true
      }
      return false
    })
    const finished = yield* pages.pipe(Effect.tapErrorCause((cause) => recordFailure(cause, state, record)))
    if (!finished && !state.fatal) return yield* continueLater(context)
    const clean = counts.failed === 0
    yield* repo.endCrawl(connection.id, clean)
    // A kind without a permission sync of its own gets its permissions from the crawl: a clean one makes them current.
    if (!kind.syncPermissions && clean) yield* repo.endPermissions(connection.id, true)
    // FAILED: the source could not be crawled at all (unreachable, refused); PARTIAL: some objects failed.
    yield* record(state.fatal ? "FAILED" : counts.failed > 0 ? "PARTIAL" : "SUCCEEDED")
  })

/**
 * One permission sync: the kind's ACLs and groups from the stored permission checkpoint, without content. A
 * document's ACL is rewritten only when its keys changed (REMATERIALIZED), a group only when its membership did
 * (then the authorization generation rises); a clean sync makes the connection's permissions current.
 */
const syncPermissions = ({ connectionId }: { connectionId: string }, context: JobContext) =>
  Effect.gen(function* () {
    const repo = yield* ConnectorsRepo
    const documents = yield* ConnectorDocuments
    const settings = yield* Settings
    const connection = yield* repo.connectionById(connectionId)
    if (!connection) return
    const kind = kindOf(connection.sourceSystem)
    if (!kind?.syncPermissions) return
    const sync = kind.syncPermissions
    const kindInput = yield* kindContext(connection)
    const counts: Counts = { materialized: 0, rotated: 0, rematerialized: 0, retired: 0, failed: 0, skipped: 0 }
    const state: ErrorState = { error: null, fatal: false }
    const record = (outcome: string) =>
      repo.recordAttempt(connection.id, { outcome, component: "permissions", ...counts, errorCode: state.error?.code ?? null, errorMessage: state.error?.message ?? null })
    let checkpoint = connection.permissionCheckpoint
    const pagesPerRun = settings.connectors.pagesPerRun ?? DEFAULT_PAGES_PER_RUN
    const pages = Effect.gen(function* () {
      for (let page = 0; page < pagesPerRun; page++) {
        yield* context.fence
        const step = yield* sync(kindInput, checkpoint)
        for (const group of step.groups) yield* documents.putGroup(connection, group)
        for (const { externalId, acl } of step.acls) {
          if ((yield* documents.putAcl(connection, externalId, acl)) === "REMATERIALIZED") counts.rematerialized++
        }
        for (const failure of step.failures ?? []) {
          counts.failed++
          state.error = { code: failure.code, message: failure.message }
          if (failure.fatal) state.fatal = true
        }
        checkpoint = step.done ? null : step.checkpoint
        yield* repo.setPermissionCheckpoint(connection.id, checkpoint)
        if (step.done || state.fatal) return true
      }
      return false
    })
    const finished = yield* pages.pipe(Effect.tapErrorCause((cause) => recordFailure(cause, state, record)))
    if (!finished) return yield* continueLater(context)
    yield* repo.endPermissions(connection.id, counts.failed === 0)
    yield* record(state.fatal ? "FAILED" : counts.failed > 0 ? "PARTIAL" : "SUCCEEDED")
  })

/** Registers the crawl and permission-sync jobs with the workers. */
const JobsLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const handlers = yield* JobHandlers
    yield* handlers.registerJob(CrawlConnection, crawl)
    yield* handlers.registerJob(SyncPermissions, syncPermissions)
  })
)

/**
 * Scheduled crawls and permission syncs: every process looks for connections whose `contentCrawlIntervalSeconds`
 * (or `permissionSyncIntervalSeconds`) has passed since the last one ended, every `connectors.scheduleCheckMs`, and
 * enqueues one; the per-connection dedupe keys keep one of each queued or running whichever process asked, and any
 * worker may run it. Permission syncs run for kinds that have one, whenever crawling is enabled.
 */
const ScheduleLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const queue = yield* JobQueue
    const repo = yield* ConnectorsRepo
    const settings = yield* Settings
    const check = Effect.gen(function* () {
      for (const { id } of yield* repo.dueForCrawl()) {
        yield* queue.enqueueJob(CrawlConnection, { connectionId: id }, { dedupeKey: crawlDedupeKey(id), maxAttempts: 5 })
      }
      for (const { id } of yield* repo.dueForPermissions(connectorKinds.filter((kind) => kind.syncPermissions).map((kind) => kind.sourceSystem))) {
        yield* queue.enqueueJob(SyncPermissions, { connectionId: id }, { dedupeKey: permissionsDedupeKey(id), maxAttempts: 5 })
      }
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not schedule connector crawls", cause)))
    yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced(settings.connectors.scheduleCheckMs)))
  })
)

export const CrawlerLive = Layer.mergeAll(JobsLive, ScheduleLive)
