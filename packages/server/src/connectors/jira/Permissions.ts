import { Effect } from "effect"
import type { DocumentAcl, KindContext, PermissionPage } from "../Kind"
import { aclReader, fieldsOf } from "./Acl"
import { inParallel } from "../VendorHttp"
import { JiraError, type JiraIssue, jiraClient } from "./Client"
import { parseJiraCredential, readJiraConfig } from "./Config"
import { issueIdOf } from "./Crawl"
import { membershipsNamed } from "./Groups"

/** Where a permission sync is: the documents Lore holds, in external-id order, and the groups already read this sync. */
export interface PermissionCursor {
  readonly after: string | null
  readonly synced: ReadonlyArray<string>
}

const ACL_PAGE = 50
const ISSUE_CONCURRENCY = 8
/** What an ACL needs of an issue: its project, reporter, assignee and security level (never its description or comments). */
const ACL_FIELDS = ["project", "reporter", "assignee", "security"]

/**
 * One permission-sync step, no content fetched: the ACLs of a page of the issues Lore holds (each issue read for its
 * project, people and security level only: browse grant AND security level members), with the memberships of the
 * groups and organization those ACLs name, each read once a sync. An issue gone at the source is left to the crawl.
 */
export const syncJiraPermissions = (context: KindContext, checkpoint: unknown): Effect.Effect<PermissionPage> =>
  Effect.promise(async (): Promise<PermissionPage> => {
    const read = readJiraConfig(context.sourceConfig, context.settings)
    const credential = parseJiraCredential(context.credential)
    const cursor = (checkpoint ?? { after: null, synced: [] }) as PermissionCursor
    const empty = { acls: [], groups: [] }
    if (!read.ok) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "INVALID_CONFIG", message: "The Jira configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No Jira credential is set", fatal: true }] }
    if (!context.documents) return { ...empty, checkpoint: null, done: true }
    const client = jiraClient(read.config, credential, context.settings)
    const fatal = (error: unknown) =>
      error instanceof JiraError && (error.status === 401 || error.code === "ADDRESS_NOT_ALLOWED" || error.code === "SOURCE_UNREACHABLE")
    const failureOf = (error: unknown) => ({
      code: error instanceof JiraError ? error.code : "PERMISSION_SYNC_FAILED",
      message: String((error as Error)?.message ?? error).slice(0, 300),
      fatal: fatal(error)
    })
    try {
      const reader = aclReader(client, read.config.baseUrl)
      const fields = [...ACL_FIELDS, ...fieldsOf(await Promise.all(read.config.projects.map((key) => reader.projectGrant(key))))]
      const ids = await Effect.runPromise(context.documents.page(cursor.after, ACL_PAGE))
      const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
      // Issues are read a few at a time (one GET each: JQL `id in (...)` fails whole when one issue is gone).
      const found = await inParallel(ids, ISSUE_CONCURRENCY, async (externalId): Promise<DocumentAcl | null> => {
        const issueId = issueIdOf(externalId)
        if (issueId === null) return null
        try {
          const issue = await client.json<JiraIssue>(`${client.api}/issue/${issueId}?fields=${encodeURIComponent(fields.join(","))}`)
          return { externalId, acl: await reader.aclOf(issue) }
        } catch (error) {
          if (error instanceof JiraError && error.status === 404) return null
          if (fatal(error)) throw error
          failures.push({ ...failureOf(error), message: `${externalId}: ${failureOf(error).message}` })
          return null
        }
      })
      const acls = found.filter((acl): acl is DocumentAcl => acl !== null)
      const { groups, synced } = await membershipsNamed(client, acls.map((a) => a.acl), cursor.synced)
      const done = ids.length < ACL_PAGE
      return { acls, groups, failures, checkpoint: done ? null : { after: ids.at(-1)!, synced }, done }
    } catch (error) {
      return { ...empty, checkpoint: cursor, done: true, failures: [failureOf(error)] }
    }
  })
