import { Schema } from "effect"
import { defineJob } from "../jobs/Model"

/** One crawl of a connection from its checkpoint (dedupe key `crawl:<connectionId>`: one at a time per connection). */
export const CrawlConnection = defineJob("connectors.crawl", Schema.Struct({ connectionId: Schema.UUID }))

/** The dedupe key of a connection's crawl; ConnectorsRepo.crawlQueued checks it to tell whether one is queued or running. */
export const crawlDedupeKey = (connectionId: string) => `crawl:${connectionId}`
