import { Schema } from "effect"
import { defineJob } from "../jobs/Model"

/** One crawl of a connection from its checkpoint (dedupe key `crawl:<connectionId>`: one at a time per connection). */
export const CrawlConnection = defineJob("connectors.crawl", Schema.Struct({ connectionId: Schema.UUID }))

/** The dedupe key of a connection's crawl; ConnectorsRepo.crawlQueued checks it to tell whether one is queued or running. */
export const crawlDedupeKey = (connectionId: string) => `crawl:${connectionId}`

/**
 * One permission sync of a connection (ACLs and groups, no content) from its own checkpoint, on its own interval
 * (dedupe key `permissions:<connectionId>`: one at a time per connection, beside at most one crawl).
 */
export const SyncPermissions = defineJob("connectors.permissions", Schema.Struct({ connectionId: Schema.UUID }))

export const permissionsDedupeKey = (connectionId: string) => `permissions:${connectionId}`
