import type { Version2Models, Version3Models } from "jira.js"
import { Effect } from "effect"
import type { CrawlPage, KindContext, SourceDocument } from "../Kind"
import { aclReader, fieldsOf } from "./Acl"
import { type JiraClient, JiraError, type JiraIssue, jiraClient } from "./Client"
import { type JiraConfig, parseJiraCredential, readJiraConfig } from "./Config"
import { membershipsNamed } from "./Groups"
import { issueToText } from "./Render"

/** Where a crawl is: a full walk (finds deletions) or the changes since the last crawl, page by page of one JQL search. */
export interface CrawlCursor {
  readonly active: boolean
  readonly mode: "FULL" | "CHANGES"
  readonly startedAt: string
  /** The search this crawl pages through (fixed at its start: Cloud's nextPageToken belongs to one query). */
  readonly jql: string
  /** Cloud: the nextPageToken; Data Center: the next startAt; null on the first page. */
  readonly next: string | null
  readonly phase: "CONTENT" | "RECONCILE"
  readonly reconcileAfter: string | null
  /** A full walk retires what it did not see only when every issue was listed without a failure. */
  readonly clean: boolean
  readonly lastFullAt: string | null
  /** Groups (and the organization) whose members this crawl already yielded. */
  readonly groupsSeen?: ReadonlyArray<string>
}

export const PAGE_SIZE = 50
const RECONCILE_PAGE = 200
const COMMENT_PAGE = 100
const MAX_COMMENT_PAGES = 20
/** Edits saved while a crawl ran are read again by the next: its lower bound starts a little before this one began. */
const SINCE_SLACK_MS = 5 * 60 * 1000
export const BASE_FIELDS = ["summary", "description", "status", "assignee", "reporter", "labels", "updated", "project", "security", "comment"]

export const issueExternalId = (issue: Pick<JiraIssue, "id">) => `issue:${issue.id}`
/** The issue id of one of this kind's external ids; null when not ours. */
export const issueIdOf = (externalId: string) => /^issue:(\d{1,18})$/.exec(externalId)?.[1] ?? null

/**
 * JQL's date ("yyyy/MM/dd HH:mm"), which Jira reads in the searching account's time zone (from /myself): a UTC
 * date would miss or repeat hours of changes on a site whose account is not on UTC.
 */
export const jqlDate = (iso: string, timeZone: string | undefined) => {
  let format: Intl.DateTimeFormat
  try {
    format = new Intl.DateTimeFormat("en-CA", { timeZone: timeZone || "UTC", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
  } catch {
    format = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(iso)).map((part) => [part.type, part.value]))
  return `${parts.year}/${parts.month}/${parts.day} ${parts.hour}:${parts.minute}`
}

/** `project in (...) [AND updated >= "..."] ORDER BY updated ASC`: keys are validated (Config.ts), quoted all the same. */
export const searchJql = (projects: ReadonlyArray<string>, since: string | null) =>
  `project in (${projects.map((key) => `"${key}"`).join(", ")})${since ? ` AND updated >= "${since}"` : ""} ORDER BY updated ASC`

/** One page of the search: Cloud's /search/jql by nextPageToken, Data Center's /search by startAt. */
export const searchPage = async (client: JiraClient, jql: string, next: string | null, fields: ReadonlyArray<string>): Promise<{ issues: ReadonlyArray<JiraIssue>; next: string | null }> => {
  const query = `jql=${encodeURIComponent(jql)}&maxResults=${PAGE_SIZE}&fields=${encodeURIComponent(fields.join(","))}`
  if (client.cloud) {
    const page = await client.json<Version3Models.SearchAndReconcileResults>(`${client.api}/search/jql?${query}${next ? `&nextPageToken=${encodeURIComponent(next)}` : ""}`)
    const issues = (page.issues ?? []) as unknown as ReadonlyArray<JiraIssue>
    return { issues, next: typeof page.nextPageToken === "string" && page.nextPageToken && issues.length > 0 ? page.nextPageToken : null }
  }
  const startAt = next ? Number(next) : 0
  const page = await client.json<Version2Models.SearchResults>(`${client.api}/search?${query}&startAt=${startAt}`)
  const issues = (page.issues ?? []) as unknown as ReadonlyArray<JiraIssue>
  const following = startAt + issues.length
  return { issues, next: issues.length > 0 && following < (page.total ?? 0) ? String(following) : null }
}

/** An issue's comments: those the search gave, or all of them page by page when it gave only the first. */
const commentsOf = async (client: JiraClient, issue: JiraIssue) => {
  const given = issue.fields.comment?.comments ?? []
  if ((issue.fields.comment?.total ?? given.length) <= given.length) return given
  const all: Array<Version3Models.Comment | Version2Models.Comment> = []
  // Jira may give fewer than asked a page: the next page starts after what was read, until `total`.
  for (let page = 0; page < MAX_COMMENT_PAGES; page++) {
    const found = await client.json<Version3Models.PageOfComments>(`${client.api}/issue/${encodeURIComponent(issue.id)}/comment?startAt=${all.length}&maxResults=${COMMENT_PAGE}&orderBy=created`)
    const comments = found.comments ?? []
    all.push(...comments)
    if (comments.length === 0 || all.length >= (found.total ?? 0)) break
  }
  return all
}

const failureOf = (error: unknown) =>
  error instanceof JiraError
    ? { code: error.code, message: error.message, fatal: error.status === 401 || error.status === 400 || error.code === "ADDRESS_NOT_ALLOWED" || error.code === "SOURCE_UNREACHABLE" }
    : { code: "CRAWL_FAILED", message: String((error as Error)?.message ?? error).slice(0, 300), fatal: false }

export const issueDocument = (config: JiraConfig, issue: JiraIssue, comments: Parameters<typeof issueToText>[1], acl: SourceDocument["acl"]): SourceDocument => {
  const title = `${issue.key}: ${issue.fields.summary ?? ""}`.slice(0, 500)
  return {
    externalId: issueExternalId(issue),
    title,
    bytes: new TextEncoder().encode(issueToText(issue, comments)),
    fileName: `${issue.key}.md`,
    mediaType: "text/markdown",
    url: `${config.baseUrl}/browse/${encodeURIComponent(issue.key)}`,
    classification: "INTERNAL",
    acl
  }
}

/**
 * One crawl step: one page of the projects' issues by JQL (each with its comments and ACL), or one page of the
 * reconciliation that retires what a full walk did not see again. A step that meets a revoked credential, an
 * unreachable site or a refused search stops the crawl (FAILED) where it is: nothing is retired.
 */
export const crawlJira = (context: KindContext, checkpoint: unknown): Effect.Effect<CrawlPage> =>
  Effect.promise(async (): Promise<CrawlPage> => {
    const read = readJiraConfig(context.sourceConfig, context.settings)
    const credential = parseJiraCredential(context.credential)
    const previous = (checkpoint ?? null) as CrawlCursor | null
    const empty = { documents: [], groups: [], deleted: [] }
    if (!read.ok) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "INVALID_CONFIG", message: "The Jira configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No Jira credential is set", fatal: true }] }
    const config = read.config
    const client = jiraClient(config, credential, context.settings)
    const finished = (state: CrawlCursor): CrawlCursor => ({ ...state, active: false, next: null, reconcileAfter: null, groupsSeen: [], lastFullAt: state.mode === "FULL" ? state.startedAt : state.lastFullAt })
    try {
      let cursor: CrawlCursor
      if (previous?.active) cursor = previous
      else {
        const now = new Date()
        const mode = !previous?.lastFullAt || now.getTime() - Date.parse(previous.lastFullAt) >= config.reconcileEveryHours * 3600_000 ? "FULL" : "CHANGES"
        let since: string | null = null
        if (mode === "CHANGES" && previous?.startedAt) {
          const myself = await client.json<Pick<Version3Models.User, "timeZone">>(`${client.api}/myself`)
          since = jqlDate(new Date(Date.parse(previous.startedAt) - SINCE_SLACK_MS).toISOString(), myself.timeZone)
        }
        cursor = { active: true, mode, startedAt: now.toISOString(), jql: searchJql(config.projects, since), next: null, phase: "CONTENT", reconcileAfter: null, clean: true, lastFullAt: previous?.lastFullAt ?? null }
      }

      if (cursor.phase === "RECONCILE") {
        if (!context.documents) return { ...empty, checkpoint: finished(cursor), done: true }
        const stale = await Effect.runPromise(context.documents.notSeenSince(cursor.startedAt, cursor.reconcileAfter, RECONCILE_PAGE))
        const done = stale.length < RECONCILE_PAGE
        return { ...empty, deleted: stale, checkpoint: done ? finished(cursor) : { ...cursor, reconcileAfter: stale.at(-1)! }, done }
      }

      const acls = aclReader(client, config.baseUrl)
      // The per-issue holders (user pickers) of every project's scheme: the search must return those fields.
      const grants = await Promise.all(config.projects.map((key) => acls.projectGrant(key)))
      const page = await searchPage(client, cursor.jql, cursor.next, [...BASE_FIELDS, ...fieldsOf(grants)])
      const documents: Array<SourceDocument> = []
      const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
      for (const issue of page.issues) {
        try {
          documents.push(issueDocument(config, issue, await commentsOf(client, issue), await acls.aclOf(issue)))
        } catch (error) {
          const failure = failureOf(error)
          if (failure.fatal) return { ...empty, checkpoint: cursor, done: true, failures: [failure] }
          failures.push({ ...failure, message: `${issue.key}: ${failure.message}` })
        }
      }
      // A crawl and a permission sync start together, and the sync may find no documents yet: the crawl yields the
      // members of the groups its documents name too, once per crawl, so they are readable at once.
      const { groups, synced } = await membershipsNamed(client, documents.map((d) => d.acl), cursor.groupsSeen ?? [])
      const clean = cursor.clean && failures.length === 0
      const step = { ...cursor, clean, groupsSeen: synced }
      if (page.next) return { ...empty, documents, groups, failures, checkpoint: { ...step, next: page.next }, done: false }
      const reconcile = cursor.mode === "FULL" && clean
      return { ...empty, documents, groups, failures, checkpoint: reconcile ? { ...step, next: null, phase: "RECONCILE" } : finished(step), done: !reconcile }
    } catch (error) {
      const failure = failureOf(error)
      return { ...empty, checkpoint: previous, done: true, failures: [{ ...failure, fatal: true }] }
    }
  })
