/**
 * The GITHUB kind's crawl (issue 31, point 4): 100,000 issues and pull requests (GH_BENCH_ITEMS) in one private
 * repository of a loopback GitHub that makes its pages on the fly (nothing held), walked step by step through
 * `crawlGitHub` as the framework calls it, with Octokit over the guarded fetch and a token credential: issues 50 a
 * page (every tenth with a comment, read too), then every issue number 100 a page for deletions. Prints items per
 * second and the heap after each 10% (flat when pages are streamed: the kind keeps one page and its cursor, the
 * numbers as ranges). Lore's ingestion (parsing, chunking, embedding, SQL) is not included: it is the same for every
 * kind and measured in bench/connectors.ts.
 *
 * Then the time from a permission change at the source to its enforcement: a member is removed from the
 * repository's team at the fake, and `syncGitHubPermissions` runs to its end over the documents Lore holds
 * (GH_BENCH_KNOWN, 1,000 by default: one repository read per step) and the repository's group; that sync's
 * duration is measured (GH_BENCH_SYNCS runs). At the default schedule (permissionSyncIntervalSeconds 300) a change
 * waits U(0, 300 s) for the next sync to start, so the composed figures are p50 = 150 s + sync p50 and
 * p95 = 285 s + sync p95 (the framework's application of the changed group, one SQL transaction, not included).
 * Asserts nothing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { Effect } from "effect"
import { Settings } from "../packages/server/src/Config"
import { crawlSteps } from "./lib/crawl-steps"
import { crawlGitHub } from "../packages/server/src/connectors/github/Crawl"
import { syncGitHubPermissions } from "../packages/server/src/connectors/github/Permissions"
import type { PermissionPage } from "../packages/server/src/connectors/Kind"

export const description = "GitHub crawl: items/s and heap over 100,000 issues from a loopback GitHub (pages streamed); permission change to enforcement"

const ITEMS = Number(process.env.GH_BENCH_ITEMS ?? 100_000)
const KNOWN = Number(process.env.GH_BENCH_KNOWN ?? 1000)
const SYNCS = Number(process.env.GH_BENCH_SYNCS ?? 20)
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")

const startGitHub = async () => {
  let base = ""
  const team = new Set(["ann", "ben"])
  const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(200, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }
  const user = (login: string, id: number) => ({ id, login, type: "User" })
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    const url = new URL(req.url ?? "/", base)
    const path = url.pathname
    if (path === "/repos/acme/core") return json(res, { id: 1, name: "core", private: true, visibility: "private", default_branch: "main", html_url: "https://github.example/acme/core", owner: { id: 1, login: "acme", type: "Organization" } })
    if (path === "/orgs/acme") return json(res, { id: 1, login: "acme", default_repository_permission: "none" })
    if (path === "/repos/acme/core/collaborators") return json(res, [user("ann", 11)])
    if (path === "/repos/acme/core/teams") return json(res, [{ id: 1, slug: "platform", name: "platform", permission: "pull" }])
    if (path === "/orgs/acme/teams/platform/members") return json(res, [...team].map((login, i) => user(login, 11 + i)))
    if (path === "/graphql") return json(res, { data: { organization: { samlIdentityProvider: null, membersWithRole: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } } } })
    if (path === "/repos/acme/core/issues") {
      const perPage = Number(url.searchParams.get("per_page") ?? 30)
      const page = Number(url.searchParams.get("page") ?? 1)
      const first = (page - 1) * perPage + 1
      const count = Math.max(0, Math.min(perPage, ITEMS - first + 1))
      const data = Array.from({ length: count }, (_, i) => {
        const number = first + i
        return {
          id: number, number, title: `Issue ${number}`, body: `The body of issue ${number}: ${"steps to reproduce and what happened. ".repeat(8)}`,
          state: number % 3 === 0 ? "closed" : "open", comments: number % 10 === 0 ? 1 : 0, user: user("ann", 11), labels: [], assignee: null,
          created_at: at(number), updated_at: at(number), closed_at: null, html_url: `https://github.example/acme/core/issues/${number}`,
          ...(number % 5 === 0 ? { pull_request: { url: "", html_url: null, diff_url: null, patch_url: null, merged_at: at(number) } } : {})
        }
      })
      const next: Record<string, string> = first + perPage <= ITEMS ? { link: `<${base}${path}?page=${page + 1}>; rel="next"` } : {}
      return json(res, data, next)
    }
    if (/^\/repos\/acme\/core\/(issues|pulls)\/\d+\/comments$/.test(path)) return json(res, [{ id: 1, body: "A comment with the workaround.", user: user("ben", 12), created_at: at(1) }])
    res.writeHead(404).end()
  }
  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, host: base.slice("http://".length), team, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

export default async () => {
  const github = await startGitHub()
  const settings = Settings.make({ dataDir: tmpdir(), allowedPrivateHosts: [github.host], connectorBaseUrls: { github: github.base, "github-graphql": `${github.base}/graphql` } })
  const context = {
    sourceConfig: { owner: "acme", repositories: ["core"], include: ["ISSUES", "PULL_REQUESTS"] },
    credential: JSON.stringify({ token: "github_pat_bench0000000000000000" }),
    settings
  }
  try {
    await crawlSteps(crawlGitHub, context, { unit: "items", expected: ITEMS, note: "issue pages then number pages; a comment request for every tenth" })

    // Permission change to enforcement: remove ben from the team, run a whole sync, see the group without him.
    const known = Array.from({ length: KNOWN }, (_, i) => `acme/core/issues/${i + 1}`).sort()
    const documents = {
      page: (after: string | null, limit: number) => Effect.succeed(known.filter((id) => after === null || id > after).slice(0, limit)),
      notSeenSince: () => Effect.succeed([] as ReadonlyArray<string>)
    }
    const durations: Array<number> = []
    for (let run = 0; run < SYNCS; run++) {
      if (run % 2 === 0) github.team.delete("ben")
      else github.team.add("ben")
      const begun = performance.now()
      let cursor: unknown = null
      let enforced = false
      for (;;) {
        const page: PermissionPage = await Effect.runPromise(syncGitHubPermissions({ ...context, documents }, cursor))
        const platform = page.groups.find((group) => group.id === "team:acme/platform")
        if (platform) enforced = platform.members.users.some((u) => u.displayName === "ben") === github.team.has("ben")
        cursor = page.checkpoint
        if (page.done) break
      }
      if (!enforced) throw new Error("the sync did not yield the changed team")
      durations.push(performance.now() - begun)
    }
    const sorted = [...durations].sort((a, b) => a - b)
    const [p50, p95] = [percentile(sorted, 50), percentile(sorted, 95)]
    console.log(`permission sync over ${KNOWN} documents + the repository's group, ${SYNCS} runs: p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms`)
    console.log(`change to enforcement at permissionSyncIntervalSeconds 300 (wait U(0,300 s) + sync): p50 ${(150 + p50 / 1000).toFixed(1)} s, p95 ${(285 + p95 / 1000).toFixed(1)} s`)
  } finally {
    await github.close()
  }
}
