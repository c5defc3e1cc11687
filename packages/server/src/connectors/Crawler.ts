import { Effect, Layer } from "effect"
import { Settings } from "../Config"
import { JobHandlers, type JobContext } from "../jobs/JobHandlers"
import { ConnectorConnections } from "./Connections"
import { ConnectorDocuments } from "./Documents"
import { CrawlConnection } from "./Jobs"
import { kindOf } from "./Kinds"
import { ConnectorsRepo } from "./Repo"

const MAX_PAGES = 1000

/**
 * One crawl: the kind's pages from the stored checkpoint, each applied (documents, groups, deletions) and its
 * checkpoint stored before the next, so a crawl killed mid-way resumes from the last page it finished; applying
 * a page twice changes nothing (idempotent by external id). The attempt is recorded for the activity.
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
    let checkpoint = connection.checkpoint
    let error: { code: string; message: string } | null = null
    let fatal = false
    for (let page = 0; page < MAX_PAGES; page++) {
      yield* context.fence
      const step = yield* kind.crawl({ sourceConfig: connection.sourceConfig, credential, settings }, checkpoint)
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
      yield* repo.setCheckpoint(connection.id, checkpoint)
      if (step.done) break
    }
    yield* repo.recordAttempt(connection.id, {
      // FAILED: the source could not be crawled at all (unreachable, refused); PARTIAL: some objects failed.
      outcome: fatal ? "FAILED" : counts.failed > 0 ? "PARTIAL" : "SUCCEEDED",
      ...counts,
      errorCode: error?.code ?? null,
      errorMessage: error?.message ?? null
    })
  })

/** Registers the crawl job with the workers. */
export const CrawlerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const handlers = yield* JobHandlers
    yield* handlers.registerJob(CrawlConnection, crawl)
  })
)
