/**
 * The JIRA kind (issue 31, points 3-4): a Cloud site on loopback that makes its JQL search pages on the fly
 * (JIRA_BENCH_ISSUES, 100,000 by default; 50 issues a page, nextPageToken; nothing held), walked step by step through
 * `crawlJira` as the framework calls it: each page's issues rendered from ADF with their comments, their ACLs from the
 * project's permission scheme (a group, a project role, the reporter) and, for one issue in ten, a security level.
 * Prints issues per second and the heap after each 10% (flat when pages are streamed: the kind keeps only the current
 * page and its nextPageToken). Lore's ingestion (parsing, chunking, embedding, SQL) is not included: it is the same for
 * every kind and measured in bench/connectors.ts.
 *
 * Permission change to enforcement: a permission sync over JIRA_BENCH_SYNC_DOCS documents Lore holds (10,000 by
 * default) is run through `syncJiraPermissions` after a change at the fake, and timed: (a) a user removed from a group
 * takes effect at the first step (the group's members are read with the first ACL naming it), (b) an issue's own
 * change (its security level, reporter) when the sync reaches it, uniformly within the whole sync. At the default
 * schedule (permissionSyncIntervalSeconds 300) a change waits U(0, 300 s) for the next sync to start, then that time:
 * the bench prints the measured sync times and the composed p50/p95 (Monte Carlo over 100,000 draws). Asserts nothing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { Effect } from "effect"
import { Settings } from "../packages/server/src/Config"
import { crawlSteps } from "./lib/crawl-steps"
import type { KnownDocuments, PermissionPage } from "../packages/server/src/connectors/Kind"
import { crawlJira } from "../packages/server/src/connectors/jira/Crawl"
import { syncJiraPermissions } from "../packages/server/src/connectors/jira/Permissions"

export const description = "Jira crawl: issues/s and heap over 100,000 issues from a loopback Jira Cloud (JQL pages streamed); permission change to enforcement"

const ISSUES = Number(process.env.JIRA_BENCH_ISSUES ?? 100_000)
const SYNC_DOCS = Number(process.env.JIRA_BENCH_SYNC_DOCS ?? 10_000)
const INTERVAL_SECONDS = 300
const AUTH = { email: "bench@example.com", apiToken: "bench-token" }

const startJira = async () => {
  let base = ""
  const members = new Set(["acc-ann", "acc-ben"])
  const json = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify(body))
  }
  const user = (id: string) => ({ accountId: id, accountType: "atlassian", displayName: id, emailAddress: `${id.slice(4)}@example.com`, active: true })
  const adf = (text: string) => ({ type: "doc", version: 1, content: [{ type: "heading", attrs: { level: 2 }, content: [{ type: "text", text: "Context" }] }, { type: "paragraph", content: [{ type: "text", text }] }] })
  const issue = (n: number) => ({
    id: String(100_000 + n),
    key: `ENG-${n + 1}`,
    fields: {
      summary: `Issue ${n}: the billing export drops rows`,
      description: adf(`The nightly billing export for account ${n} drops rows when the currency changes mid-month. `.repeat(6)),
      status: { id: "3", name: "In Progress" },
      assignee: user("acc-ben"),
      reporter: user("acc-ann"),
      labels: ["billing", "export"],
      updated: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
      project: { key: "ENG", id: "10000", name: "Engineering" },
      security: n % 10 === 0 ? { id: "10100", name: "Finance" } : null,
      comment: { comments: [1, 2].map((c) => ({ id: `${n}-${c}`, author: user("acc-ann"), created: "2026-01-01T00:00:00.000+0000", body: adf(`Comment ${c} on issue ${n}: reproduced with the March data.`) })), total: 2, maxResults: 2, startAt: 0 }
    }
  })
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base)
    const path = url.pathname
    if (path === "/rest/api/3/myself") return json(res, { ...user("acc-bot"), timeZone: "UTC" })
    if (path === "/rest/api/3/search/jql") {
      const offset = Number(url.searchParams.get("nextPageToken") ?? 0)
      const size = Math.min(Number(url.searchParams.get("maxResults") ?? 50), Math.max(0, ISSUES - offset))
      const following = offset + size
      return json(res, { issues: Array.from({ length: size }, (_, i) => issue(offset + i)), ...(following < ISSUES ? { nextPageToken: String(following) } : {}) })
    }
    const one = /^\/rest\/api\/3\/issue\/(\d+)$/.exec(path)
    if (one) {
      const { fields, ...rest } = issue(Number(one[1]) - 100_000)
      return json(res, { ...rest, fields: { project: fields.project, reporter: fields.reporter, assignee: fields.assignee, security: fields.security } })
    }
    if (path === "/rest/api/3/project/ENG/permissionscheme") {
      return json(res, { id: 1, name: "Default", permissions: [
        { id: 1, permission: "BROWSE_PROJECTS", holder: { type: "group", parameter: "engineering" } },
        { id: 2, permission: "BROWSE_PROJECTS", holder: { type: "projectRole", parameter: "10002" } },
        { id: 3, permission: "BROWSE_PROJECTS", holder: { type: "reporter" } }
      ] })
    }
    if (path === "/rest/api/3/project/ENG/role/10002") return json(res, { id: 10002, name: "Reviewers", actors: [{ id: 1, type: "atlassian-group-role-actor", name: "reviewers", actorGroup: { name: "reviewers" } }] })
    if (path === "/rest/api/3/issuesecurityschemes/level/member") return json(res, { isLast: true, values: [{ id: "1", issueSecurityLevelId: "10100", issueSecuritySchemeId: "1", holder: { type: "group", parameter: "finance" } }] })
    if (path === "/rest/api/3/group/member") {
      const group = url.searchParams.get("groupname")
      const values = group === "engineering" ? [...members].map(user) : [user("acc-ann")]
      return json(res, { isLast: true, startAt: 0, maxResults: 50, total: values.length, values })
    }
    res.writeHead(404).end()
  }
  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, host: base.slice("http://".length), members, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!

export default async () => {
  const jira = await startJira()
  const settings = Settings.make({ dataDir: tmpdir(), allowedPrivateHosts: [jira.host] })
  const context = { sourceConfig: { deployment: "CLOUD", baseUrl: jira.base, projects: ["ENG"] }, credential: JSON.stringify(AUTH), settings }
  try {
    await crawlSteps(crawlJira, context, { unit: "issues", expected: ISSUES, note: "ADF description and comments rendered, ACL from the scheme" })

    // The permission sync over the documents Lore holds, after ben is removed from "engineering" at the fake.
    const ids = Array.from({ length: SYNC_DOCS }, (_, n) => `issue:${100_000 + n}`).sort()
    const documents: KnownDocuments = {
      page: (after, limit) => Effect.sync(() => {
        const from = after === null ? 0 : ids.indexOf(after) + 1
        return ids.slice(from, from + limit)
      }),
      notSeenSince: () => Effect.succeed([])
    }
    jira.members.delete("acc-ben")
    const changed = performance.now()
    let groupApplied = -1
    let syncCheckpoint: unknown = null
    let acls = 0
    for (;;) {
      const page: PermissionPage = await Effect.runPromise(syncJiraPermissions({ ...context, documents }, syncCheckpoint))
      acls += page.acls.length
      const engineering = page.groups.find((g) => g.id === "engineering")
      if (groupApplied < 0 && engineering && !engineering.members.users.some((u) => u.id === "acc-ben")) groupApplied = (performance.now() - changed) / 1000
      syncCheckpoint = page.checkpoint
      if (page.done) break
    }
    const syncSeconds = (performance.now() - changed) / 1000
    console.log(`permission sync over ${acls} documents: ${syncSeconds.toFixed(1)} s (${(acls / syncSeconds).toFixed(0)} ACLs/s, no content); a group change applied after ${groupApplied.toFixed(2)} s (first step)`)
    const draws = 100_000
    const groupDelays = Array.from({ length: draws }, () => Math.random() * INTERVAL_SECONDS + groupApplied).sort((a, b) => a - b)
    const issueDelays = Array.from({ length: draws }, () => Math.random() * INTERVAL_SECONDS + Math.random() * syncSeconds).sort((a, b) => a - b)
    console.log(`change to enforcement at permissionSyncIntervalSeconds ${INTERVAL_SECONDS} (composed: U(0, ${INTERVAL_SECONDS}) wait + measured sync time):`)
    console.log(`  group membership change: p50 ${percentile(groupDelays, 0.5).toFixed(0)} s, p95 ${percentile(groupDelays, 0.95).toFixed(0)} s`)
    console.log(`  an issue's own change (${SYNC_DOCS} documents): p50 ${percentile(issueDelays, 0.5).toFixed(0)} s, p95 ${percentile(issueDelays, 0.95).toFixed(0)} s`)
  } finally {
    await jira.close()
  }
}
