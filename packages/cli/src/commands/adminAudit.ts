import type { AuditEvent, AuditQuery } from "@lore/sdk"
import type { Command } from "commander"
import { handler } from "../command"
import { usageError } from "../errors"
import { present } from "../output/render"
import { formatTime, styled, type View } from "../output/view"
import { Directory, parsePositiveInt } from "./adminShared"

// `lore admin audit`: who did what, when, to which resource, with the request id; newest first.

export const DEFAULT_AUDIT_LIMIT = 50
const MAX_PAGE = 200

export interface AuditFilter {
  /** Email or user id. */
  readonly actor?: string | undefined
  readonly resourceType?: string | undefined
  readonly resourceId?: string | undefined
  readonly since?: string | undefined
  readonly until?: string | undefined
}

export interface AuditResult {
  readonly events: ReadonlyArray<AuditEvent>
  /** More events match than were fetched (only without --all). */
  readonly more: boolean
}

/** `limit`: at most that many events; `"all"`: follow the cursor to the end. */
export const auditEvents = async (directory: Directory, filter: AuditFilter, limit: number | "all"): Promise<AuditResult> => {
  const query: AuditQuery = {
    actorUserId: filter.actor === undefined ? undefined : await directory.userId(filter.actor),
    resourceType: filter.resourceType,
    resourceId: filter.resourceId,
    since: filter.since,
    until: filter.until
  }
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

/**
 * An ISO 8601 time, or a duration back from now: `30m`, `24h`, `7d`. Always sent as ISO 8601 UTC.
 */
export const parseTime = (flag: string, now = Date.now()) => (raw: string): string => {
  const relative = /^(\d+)\s*([mhdw])$/.exec(raw.trim())
  if (relative) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[relative[2] as "m" | "h" | "d" | "w"]
    return new Date(now - Number(relative[1]) * unit).toISOString()
  }
  const time = Date.parse(raw)
  if (Number.isNaN(time)) throw usageError(`${flag} '${raw}' is not a time: pass ISO 8601 (2025-03-01, 2025-03-01T14:00:00Z) or a duration (30m, 24h, 7d)`)
  return new Date(time).toISOString()
}

const detailsText = (details: AuditEvent["details"]) => {
  const text = Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ")
  return text.length > 80 ? `${text.slice(0, 79)}…` : text || "-"
}

const auditView = (limit: number | "all") => (result: AuditResult): View => [
  {
    kind: "table",
    columns: [{ header: "time" }, { header: "actor" }, { header: "action" }, { header: "resource" }, { header: "details" }, { header: "request id" }],
    rows: result.events.map((event) => [
      formatTime(event.occurredAt),
      event.actorEmail ?? event.actorUserId ?? "system",
      styled(event.action, "accent"),
      event.resourceId ? `${event.resourceType} ${event.resourceId}` : event.resourceType,
      detailsText(event.details),
      styled(event.requestId ?? "-", "muted")
    ]),
    empty: "No audit events match."
  },
  ...(result.more
    ? [{ kind: "message" as const, tone: "muted" as const, text: `Showing the newest ${limit}; more match: pass --limit N or --all, or narrow with --since.` }]
    : [])
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

export const registerAuditCommand = (admin: Command) => {
  admin
    .command("audit")
    .description("the audit log, newest first: who changed what, when, with the request id")
    .option("--actor <user>", "only events by this user (email or id)")
    .option("--resource-type <type>", "only this kind of resource (user, department, role, invitation, knowledge_space, ...)")
    .option("--resource-id <id>", "only this resource")
    .option("--since <time>", "only events at or after: ISO 8601, or a duration back from now (30m, 24h, 7d)")
    .option("--until <time>", "only events before: ISO 8601, or a duration back from now")
    .option("--limit <n>", `at most this many events (default ${DEFAULT_AUDIT_LIMIT})`, parsePositiveInt(100_000))
    .option("--all", "every matching event (follows the pages to the end)")
    .action(
      handler(async (runtime, command) => {
        const flags = command.opts<AuditFlags>()
        if (flags.all && flags.limit !== undefined) throw usageError("pass either --limit or --all, not both")
        const limit = flags.all ? ("all" as const) : (flags.limit ?? DEFAULT_AUDIT_LIMIT)
        const filter: AuditFilter = {
          actor: flags.actor,
          resourceType: flags.resourceType,
          resourceId: flags.resourceId,
          since: flags.since === undefined ? undefined : parseTime("--since")(flags.since),
          until: flags.until === undefined ? undefined : parseTime("--until")(flags.until)
        }
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: "Loading the audit log",
          run: () => auditEvents(directory, filter, limit),
          view: auditView(limit),
          json: (result) => result.events
        })
      })
    )
}
