/**
 * The CONFLUENCE kind's crawl (issue 30, point 12): 100,000 pages (CF_BENCH_PAGES) in one space of a loopback
 * Confluence (Data Center, a personal access token) that makes its CQL search pages on the fly (25 a page, paged by
 * `_links.next`, nothing held), walked step by step through `crawlConfluence` as the framework calls it: each page's
 * body (storage format rendered to text), its read restriction and its ancestors' (a tenth of the pages sit under a
 * restricted parent), its attachments listing, the space's permissions once a step, all over the guarded fetch.
 * Prints pages per second and the heap after each 10% (flat when pages are streamed: the kind keeps only the current
 * search page and its `_links.next`). Lore's ingestion (parsing, chunking, embedding, SQL) is not included: it is the
 * same for every kind and measured in bench/connectors.ts. Asserts nothing.
 */
import type { Models } from "confluence.js"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { Settings } from "../packages/server/src/Config"
import { crawlConfluence } from "../packages/server/src/connectors/confluence/Crawl"
import { crawlSteps } from "./lib/crawl-steps"

export const description = "Confluence crawl: pages/s and heap over 100,000 pages from a loopback Confluence (CQL pages streamed by _links.next)"

const PAGES = Number(process.env.CF_BENCH_PAGES ?? 100_000)
const LIMIT = 25
const SPACE = "ENG"
/** Parents 1..10 hold the pages; parent 1 is restricted to a group. */
const PARENTS = 10

const user = (n: number) => ({ type: "known", accountId: `acc-${n}`, accountType: "atlassian", email: `user${n}@example.com`, publicName: `User ${n}`, displayName: `User ${n}`, profilePicture: { path: "/a.png", width: 48, height: 48, isDefault: true }, _expandable: {}, _links: { self: `/rest/api/user?accountId=acc-${n}` } }) satisfies Models.User

const space = {
  id: 1,
  key: SPACE,
  name: "Engineering",
  type: "global",
  status: "current",
  _links: {},
  _expandable: {},
  permissions: [
    { operation: { operation: "read", targetType: "space" }, subjects: { group: { results: [{ type: "group", name: "engineering", id: "g-eng" }], size: 1 } }, anonymousAccess: false, unlicensedAccess: false },
    { operation: { operation: "read", targetType: "space" }, subjects: { user: { results: [user(1)], size: 1 } }, anonymousAccess: false, unlicensedAccess: false }
  ]
} as unknown as Models.Space

const contentOf = (n: number, base: string) => {
  const parent = String(1 + (n % PARENTS))
  return {
    id: String(1000 + n),
    type: "page",
    status: "current",
    title: `Page ${n}`,
    space: { id: 1, key: SPACE, name: "Engineering", type: "global", status: "current", _links: {}, _expandable: {} },
    ancestors: [{ id: parent, type: "page", status: "current", title: `Parent ${parent}`, _links: {}, _expandable: {} }],
    version: { number: 1, when: "2026-11-01T10:00:00.000Z", minorEdit: false, by: user(1), _links: {}, _expandable: {} },
    body: { storage: { value: `<h2>Page ${n}</h2><p>${"The quarterly planning notes for the engineering team. ".repeat(16)}</p>`, representation: "storage", _expandable: {} }, _expandable: {} },
    _links: { webui: `/spaces/${SPACE}/pages/${1000 + n}`, self: `${base}/rest/api/content/${1000 + n}` },
    _expandable: {}
  } as unknown as Models.Content
}

const startConfluence = async () => {
  let base = ""
  const json = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify(body))
  }
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base)
    const path = url.pathname
    if (path === "/wiki/rest/api/content/search") {
      const start = Number(url.searchParams.get("start") ?? 0)
      const results = Array.from({ length: Math.max(0, Math.min(LIMIT, PAGES - start)) }, (_, i) => contentOf(start + i, base))
      const next = new URL(url.href)
      next.searchParams.set("start", String(start + LIMIT))
      return json(res, {
        results,
        start,
        limit: LIMIT,
        size: results.length,
        _links: { self: `${base}${url.pathname}`, base, context: "/wiki", ...(start + LIMIT < PAGES ? { next: `${next.pathname}${next.search}` } : {}) }
      } satisfies Models.ContentArray)
    }
    if (path === `/wiki/rest/api/space/${SPACE}`) return json(res, space)
    const restriction = /^\/wiki\/rest\/api\/content\/(\d+)\/restriction\/byOperation\/read$/.exec(path)
    if (restriction) {
      const restricted = restriction[1] === "1"
      return json(res, {
        operation: "read",
        restrictions: {
          user: { results: [], start: 0, limit: 100, size: 0 },
          group: { results: restricted ? [{ type: "group", name: "leads", id: "g-leads" }] : [], start: 0, limit: 100, size: restricted ? 1 : 0 }
        },
        _links: {},
        _expandable: {}
      } as unknown as Models.ContentRestriction)
    }
    if (/^\/wiki\/rest\/api\/content\/\d+\/child\/attachment$/.test(path)) return json(res, { results: [], start: 0, limit: 50, size: 0, _links: { self: path } } satisfies Models.ContentArray)
    res.writeHead(404).end()
  }
  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, host: base.slice("http://".length), close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

export default async () => {
  const confluence = await startConfluence()
  const settings = Settings.make({ dataDir: tmpdir(), allowedPrivateHosts: [confluence.host] })
  const context = {
    sourceConfig: { deployment: "DATA_CENTER", baseUrl: `${confluence.base}/wiki`, spaces: [SPACE] },
    credential: JSON.stringify({ token: "bench-personal-access-token" }),
    settings
  }
  let restricted = 0
  try {
    await crawlSteps(crawlConfluence, context, {
      unit: "pages",
      expected: PAGES,
      note: "body, restrictions, attachments listing each",
      onPage: (page) => {
        restricted += page.documents.filter((d) => (d.acl?.requireAlso ?? []).length > 0).length
      }
    })
    console.log(`pages under a restricted parent (an ACL intersection): ${restricted}`)
  } finally {
    await confluence.close()
  }
}
