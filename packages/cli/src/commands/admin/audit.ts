import type { AuditEvent, AuditQuery } from "@lore/sdk"
import { atMostOne, Directory, parseCount, parseTime } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { formatTime, styled, type View } from "../../output/view"

// Who did what, when, to which resource, with the request id; newest first.

export const DEFAULT_AUDIT_LIMIT = 50
const MAX_PAGE = 200

export interface AuditResult {
  readonly events: ReadonlyArray<AuditEvent>
  /** More events match than were fetched (only without --all). */
  readonly more: boolean
}

/** `limit`: at most that many events; `"all"`: follow the cursor to the end. */
const auditEvents = async (directory: Directory, query: AuditQuery, limit: number | "all"): Promise<AuditResult> => {
  const events: AuditEvent[] = []
  let cursor: string | undefined
  do {
    const pageSize = limit === "all" ? MAX_PAGE : Math.min(MAX_PAGE, limit - events.length)
    const page = await directory.lore.admin.audit.list({ ...query, cursor, pageSize })
    events.push(...page.items)
    // A cursor repeated by the server would loop forever; treat it as the end.
    const next = page.nextCursor || undefined
    cursor = next === cursor ? undefined : next
  } while (cursor !== undefined && (limit === "all" || events.length < limit))
  return { events, more: cursor !== undefined }
}

const detailsText = (details: AuditEvent["details"]) =>
  Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ") || "-"

/**
 * The resource by its type and label (a document's title, a user's email) where the server gives one:
 * it does only when the reader may see that resource. Otherwise by its type and id.
 */
export const resourceText = (event: AuditEvent) =>
  event.resourceLabel ? `${event.resourceType} ${event.resourceLabel}` : event.resourceId ? `${event.resourceType} ${event.resourceId}` : event.resourceType

const auditView = (limit: number | "all") => (result: AuditResult): View => [
  {
    kind: "table",
    columns: [{ header: "time" }, { header: "actor" }, { header: "action" }, { header: "resource", fit: "text" }, { header: "details", fit: "text" }, { header: "request id", fit: "optional" }],
    rows: result.events.map((event) => [
      formatTime(event.occurredAt),
      event.actorEmail ?? event.actorUserId ?? "system",
      styled(event.action, "accent"),
      resourceText(event),
      detailsText(event.details),
      styled(event.requestId ?? "-", "muted")
    ]),
    empty: "No audit events match."
  },
  ...(result.more ? [{ kind: "hint" as const, text: `Showing the newest ${limit}; more match: pass --limit N or --all, or narrow with --since.` }] : [])
]

interface AuditFlags {
  readonly actor?: string
  readonly resourceType?: string
  readonly resourceId?: string
  readonly since?: string
  readonly until?: string
  readonly limit?: number
  readonly all?: boolean
}

export default defineCommand({
  description: "the audit log, newest first: who changed what, when, with the request id",
  examples: [
    "lore admin audit --since 24h",
    "lore admin audit --actor ada@example.com --resource-type knowledge_space --limit 20",
    "lore --json admin audit --all --since 2025-03-01 > audit.json"
  ],
  configure: (command) =>
    command
      .option("--actor <user>", "only events by this user (email or id)")
      .option("--resource-type <type>", "only this kind of resource (user, department, role, invitation, knowledge_space, ...)")
      .option("--resource-id <id>", "only this resource")
      .option("--since <time>", "only events at or after: ISO 8601, or a duration back from now (30m, 24h, 7d)")
      .option("--until <time>", "only events before: ISO 8601, or a duration back from now")
      .option("--limit <n>", `at most this many events (default ${DEFAULT_AUDIT_LIMIT})`, parseCount(1, 100_000))
      .option("--all", "every matching event (follows the pages to the end)"),
  run: async (runtime, command) => {
    const flags = command.opts<AuditFlags>()
    atMostOne({ "--limit": flags.limit, "--all": flags.all })
    const limit = flags.all ? ("all" as const) : (flags.limit ?? DEFAULT_AUDIT_LIMIT)
    const since = flags.since === undefined ? undefined : parseTime("--since", flags.since)
    const until = flags.until === undefined ? undefined : parseTime("--until", flags.until)
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: "Loading the audit log",
      run: async () => {
        const actorUserId = flags.actor === undefined ? undefined : await directory.userId(flags.actor)
        return auditEvents(directory, { actorUserId, resourceType: flags.resourceType, resourceId: flags.resourceId, since, until }, limit)
      },
      view: auditView(limit),
      json: (result) => result.events
    })
  }
})
