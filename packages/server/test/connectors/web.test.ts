import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultWebCrawl } from "../../src/Config"
import { fetchUrl } from "../../src/connectors/web/Fetch"
import { backends, client, type Client, eventually, listAll, search, userClient } from "../knowledge/support"
import { pageWithChrome, type Site, startSite } from "./site"

/**
 * The WEB connector end to end over real HTTP: a node:http site on 127.0.0.1 (sitemap, robots.txt, chrome
 * around the content, ETag and Last-Modified, a required Authorization header) crawled through the admin API.
 * The first crawl indexes the main content of the pages within the prefix, not the disallowed page nor the one
 * outside; everyone with a grant on the space finds them; a re-crawl is conditional and yields exactly the
 * changed, added and removed pages; a crawl stopped mid-way resumes from its checkpoint with nothing duplicated;
 * the SSRF guard refuses loopback when the server does not allow it; the credential is never echoed.
 */

const TOKEN = "Bearer zq-site-token-0123456789"
const words = (topic: string) => `The ${topic} page explains ${topic} in enough plain words to be indexed and then found by search.`

const seedDocs = (site: Site) => {
  site.pages.set("/robots.txt", { body: `User-agent: *\nDisallow: /docs/private/\nCrawl-delay: 30\nSitemap: ${site.url}/sitemap.xml\n`, type: "text/plain", validators: "none" })
  site.pages.set("/sitemap.xml", {
    type: "application/xml",
    validators: "none",
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>${site.url}/docs/</loc></url><url><loc>${site.url}/docs/d.html</loc></url><url><loc>${site.url}/blog/listed.html</loc></url>
    </urlset>`
  })
  site.pages.set("/docs/", { body: pageWithChrome("Docs home", `<p>${words("zqhomeword")}</p>`, ["a.html", "c.txt", "private/secret.html", "/blog/outside.html", "moved.html", "away.html", "logo.png", "a.html#part", "hidden.html"]) })
  site.pages.set("/docs/hidden.html", { body: pageWithChrome("Hidden", `<p>${words("zqnoindexword")}</p>`).replace("<head>", `<head><meta name="robots" content="noindex">`) })
  site.pages.set("/docs/a.html", { body: pageWithChrome("Alpha guide", `<h2>Setup</h2><p>${words("zqalphaone")}</p>`, ["b.html"]) })
  site.pages.set("/docs/b.html", { body: pageWithChrome("Bravo notes", `<p>${words("zqbravo")}</p>`, [], "article"), validators: "last-modified" })
  site.pages.set("/docs/c.txt", { body: `Charlie\n\n${words("zqcharlie")}\n`, type: "text/plain; charset=utf-8", validators: "both" })
  site.pages.set("/docs/d.html", { body: pageWithChrome("Delta", `<p>${words("zqdelta")}</p>`, [], "body") })
  site.pages.set("/docs/logo.png", { body: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), type: "image/png" })
  site.pages.set("/docs/private/secret.html", { body: pageWithChrome("Secret", `<p>${words("zqsecret")}</p>`) })
  site.pages.set("/blog/outside.html", { body: pageWithChrome("Outside", `<p>${words("zqoutside")}</p>`) })
  site.pages.set("/blog/listed.html", { body: pageWithChrome("Listed", `<p>${words("zqlisted")}</p>`) })
}

describe.each(backends)("the WEB connector on $name", { timeout: 300_000 }, (backend) => {
  let server: Awaited<ReturnType<(typeof backends)[number]["start"]>> & { restart?: () => Promise<any> }
  let site: Site
  let admin: Client
  let spaceId: string
  const users: Record<string, Client & { id: string }> = {}
  const finds = async (who: Client, word: string) => (await search(who, word)).length > 0
  const activity = async (key: string) => (await admin.call("GET", `/api/admin/connectors/WEB/${key}/activity`)).body as Record<string, any>
  const attempts = async (key: string) => (await activity(key)).recentAttempts as Array<Record<string, any>>
  const crawled = async (key: string, count: number) => {
    const list = await eventually(() => attempts(key), (a) => a.length >= count, `crawl ${count} of ${key} recorded`, 120_000)
    return list[0]!
  }
  const settle = () => eventually(() => listAll(users.alice!), (l) => l.statusCounts.processing === 0, "ingestion settles", 120_000)

  beforeAll(async () => {
    site = await startSite()
    seedDocs(site)
    site.requiredAuthorization = TOKEN
    // robots.txt asks for 30 s between requests; the server caps Crawl-delay at 150 ms.
    server = await backend.start({ webCrawl: { allowPrivateAddresses: true, fetchTimeoutMs: 20_000, maxCrawlDelayMs: 150 } })
    admin = client(server.url, server.adminToken)
    const docs = (await admin.call("POST", "/api/admin/departments", { name: "Docs" })).body.id
    const other = (await admin.call("POST", "/api/admin/departments", { name: "Other" })).body.id
    spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "site", name: "Site" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "DEPARTMENT", subjectId: docs })).status).toBe(204)
    users.alice = await userClient(admin.call, server.url, { email: "alice@example.com", departmentId: docs })
    users.bob = await userClient(admin.call, server.url, { email: "bob@example.com", departmentId: docs })
    users.dave = await userClient(admin.call, server.url, { email: "dave@example.com", departmentId: other })
  })
  afterAll(async () => {
    await server?.dispose()
    await site?.close()
  })

  it("validates a WEB config with 422 field errors", async () => {
    expect((await admin.call("GET", "/api/admin/connectors/sources")).body.map((k: any) => k.sourceSystem)).toContain("WEB")
    const invalid = await admin.call("PUT", "/api/admin/connectors/WEB/docs", {
      knowledgeSpaceId: spaceId,
      sourceConfig: { baseUrl: "ftp://example.com/", maxPages: 0, sitemap: "yes", classification: "SECRET", bogus: 1 }
    })
    expect(invalid.status, JSON.stringify(invalid.body)).toBe(422)
    expect(invalid.body.code).toBe("INVALID_CONNECTOR_CONFIG")
    expect(invalid.body.errors.map((e: any) => e.path).sort()).toEqual([
      "sourceConfig.baseUrl", "sourceConfig.bogus", "sourceConfig.classification", "sourceConfig.maxPages", "sourceConfig.sitemap"
    ])
    const missing = await admin.call("PUT", "/api/admin/connectors/WEB/docs", { knowledgeSpaceId: spaceId, sourceConfig: {} })
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: "sourceConfig.baseUrl" })])
    const outside = await admin.call("PUT", "/api/admin/connectors/WEB/docs", {
      knowledgeSpaceId: spaceId, sourceConfig: { startUrls: [`${site.url}/blog/`], prefixes: [`${site.url}/docs/`] }
    })
    expect(outside.body.errors).toEqual([expect.objectContaining({ path: "sourceConfig.startUrls[0]", message: "is outside every prefix" })])
    const withUser = await admin.call("PUT", "/api/admin/connectors/WEB/docs", { knowledgeSpaceId: spaceId, sourceConfig: { baseUrl: "http://user:zqpassword@127.0.0.1/" } })
    expect(withUser.status).toBe(422)
    expect(JSON.stringify(withUser.body)).not.toContain("zqpassword")

    const saved = await admin.call("PUT", "/api/admin/connectors/WEB/docs", { knowledgeSpaceId: spaceId, sourceConfig: { baseUrl: `${site.url}/docs/`, maxPages: 50 } })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect(saved.body).toMatchObject({ sourceSystem: "WEB", sourceConnectionKey: "docs", credentialSet: false })
  })

  it("tests the connection: authentication, robots, and a credential never echoed", async () => {
    expect((await admin.call("POST", "/api/admin/connectors/WEB/docs/test")).body).toMatchObject({ authenticated: false, errorCode: "AUTHENTICATION_FAILED" })
    const malformed = await admin.call("PUT", "/api/admin/connectors/WEB/docs/credential", { credential: "zqnoschemetoken" })
    expect(malformed.status).toBe(422)
    expect(malformed.body.code).toBe("INVALID_CONNECTOR_CREDENTIAL")
    expect(JSON.stringify(malformed.body)).not.toContain("zqnoschemetoken")
    expect((await admin.call("PUT", "/api/admin/connectors/WEB/docs/credential", { credential: TOKEN })).status).toBe(204)

    const tested = await admin.call("POST", "/api/admin/connectors/WEB/docs/test")
    expect(tested.body, JSON.stringify(tested.body)).toMatchObject({ authenticated: true, canReadContent: true, errorCode: null, accountName: new URL(site.url).host })
    const blocked = await admin.call("POST", "/api/admin/connectors/WEB/test", { knowledgeSpaceId: spaceId, sourceConfig: { baseUrl: `${site.url}/docs/private/` }, credential: TOKEN })
    expect(blocked.body).toMatchObject({ authenticated: false, errorCode: "BLOCKED_BY_ROBOTS" })
    const scopes = await admin.call("GET", "/api/admin/connectors/WEB/docs/scopes")
    expect(scopes.body).toEqual([{ key: `${site.url}/docs/`, displayName: `${site.url}/docs/`, reachable: true, admissible: true, instruction: null }])
    for (const reply of [tested, blocked, scopes, await admin.call("GET", "/api/admin/connectors/WEB"), await admin.call("GET", "/api/admin/connectors/WEB/docs/activity")]) {
      expect(JSON.stringify(reply.body)).not.toContain("zq-site-token")
    }
    expect(site.log.filter((entry) => entry.status !== 401).every((entry) => entry.authorization === TOKEN)).toBe(true)
  })

  it("the first crawl indexes the main content of the pages within the prefix, for everyone in the space", async () => {
    site.delayMs = 100
    const before = site.log.length
    expect((await admin.call("POST", "/api/admin/connectors/WEB/docs/crawl")).status).toBe(202)
    const again = await admin.call("POST", "/api/admin/connectors/WEB/docs/crawl")
    expect(again.status).toBe(409)
    expect(again.body.code).toBe("CRAWL_RUNNING")
    const attempt = await crawled("docs", 1)
    site.delayMs = 0
    expect(attempt, JSON.stringify(attempt)).toMatchObject({ outcome: "SUCCEEDED", objectsMaterialized: 5, objectsFailed: 0, objectsRetired: 0 })
    const requests = site.log.slice(before)
    expect(requests.every((entry) => entry.authorization === TOKEN)).toBe(true)
    expect(site.served("/robots.txt")).toBeGreaterThanOrEqual(1)
    expect(requests.filter((entry) => entry.path === "/robots.txt")).toHaveLength(1)
    // Disallowed by robots.txt, outside the prefix, or a redirect out of it: never fetched.
    expect(site.served("/docs/private/secret.html")).toBe(0)
    expect(site.served("/blog/outside.html")).toBe(0)
    expect(site.served("/blog/listed.html")).toBe(0)
    // Each page once (the fragment link is the same page).
    expect(requests.filter((entry) => entry.path === "/docs/a.html")).toHaveLength(1)

    await settle()
    for (const word of ["zqhomeword", "zqalphaone", "zqbravo", "zqcharlie", "zqdelta"]) {
      expect(await finds(users.alice!, word), word).toBe(true)
      expect(await finds(users.bob!, word), word).toBe(true)
      expect(await finds(users.dave!, word), `${word} for a user without a grant`).toBe(false)
    }
    expect(site.served("/docs/hidden.html")).toBe(1)
    for (const chrome of ["zqnoindexword", "zqnavword", "zqfooterword", "zqheaderword", "zqasideword", "zqscriptword", "zqstyleword", "zqsecret", "zqoutside", "zqlisted"]) {
      expect(await finds(users.alice!, chrome), chrome).toBe(false)
    }
    const sources = (await listAll(users.alice!)).items.filter((s) => s.sourceSystem === "WEB")
    expect(sources.map((s) => s.title).sort()).toEqual(["Alpha guide", "Bravo notes", "Delta", "Docs home", "c.txt"])
    expect(sources.every((s) => s.aclAuthority === "LORE" && s.status === "READY" && s.classification === "INTERNAL")).toBe(true)
    const hit = (await search(users.alice!, "zqalphaone"))[0]!
    expect(hit.title).toBe("Alpha guide")
    expect(hit.content).not.toContain("zqnavword")
    const explained = await admin.call("POST", "/api/admin/access/explain", { userId: users.bob!.id, resourceType: "SOURCE", resourceId: sources[0]!.id })
    expect(explained.body.state).toBe("ALLOWED")
    expect((await activity("docs"))).toMatchObject({ objectsTotal: 5, objectsActive: 5 })
  })

  it("a re-crawl is conditional and yields exactly the changed, added and removed pages", async () => {
    site.pages.set("/docs/a.html", { body: pageWithChrome("Alpha guide", `<h2>Setup</h2><p>${words("zqalphatwo")}</p>`) })
    site.pages.delete("/docs/b.html")
    site.pages.set("/docs/e.html", { body: pageWithChrome("Echo", `<p>${words("zqecho")}</p>`) })
    const sitemap = site.pages.get("/sitemap.xml")!
    site.pages.set("/sitemap.xml", { ...sitemap, body: String(sitemap.body).replace("</urlset>", `<url><loc>${site.url}/docs/e.html</loc></url></urlset>`) })
    const before = site.log.length

    expect((await admin.call("POST", "/api/admin/connectors/WEB/docs/crawl")).status).toBe(202)
    const attempt = await crawled("docs", 2)
    expect(attempt, JSON.stringify(attempt)).toMatchObject({ outcome: "SUCCEEDED", objectsMaterialized: 1, objectsRotated: 1, objectsRetired: 1, objectsFailed: 0 })
    const requests = site.log.slice(before)
    const status = (path: string) => requests.filter((entry) => entry.path === path).map((entry) => entry.status)
    // Unchanged pages answer 304 to If-None-Match (ETag) or If-Modified-Since (Last-Modified).
    expect(status("/docs/")).toEqual([304])
    expect(status("/docs/c.txt")).toEqual([304])
    expect(status("/docs/d.html")).toEqual([304])
    // A type Lore does not index is not indexed, but its validators are kept too.
    expect(status("/docs/logo.png")).toEqual([304])
    expect(status("/docs/a.html")).toEqual([200])
    expect(status("/docs/e.html")).toEqual([200])
    expect(requests.find((entry) => entry.path === "/docs/a.html")!.conditional).toBe(true)
    expect(requests.find((entry) => entry.path === "/docs/e.html")!.conditional).toBe(false)

    await eventually(() => finds(users.alice!, "zqecho"), Boolean, "the added page is found")
    await eventually(() => finds(users.alice!, "zqalphatwo"), Boolean, "the changed page is found")
    expect(await finds(users.alice!, "zqalphaone")).toBe(false)
    expect(await finds(users.alice!, "zqbravo")).toBe(false)
    expect(await finds(users.alice!, "zqdelta")).toBe(true)
    expect(await activity("docs")).toMatchObject({ objectsTotal: 6, objectsActive: 5, objectsArchived: 1 })

    // Nothing changed: a third crawl fetches conditionally and yields nothing, paced by the (capped) Crawl-delay.
    const third = site.log.length
    expect((await admin.call("POST", "/api/admin/connectors/WEB/docs/crawl")).status).toBe(202)
    expect(await crawled("docs", 3)).toMatchObject({ outcome: "SUCCEEDED", objectsMaterialized: 0, objectsRotated: 0, objectsRetired: 0 })
    const times = site.log.slice(third).filter((entry) => entry.path !== "/robots.txt").map((entry) => entry.at)
    expect(times.length).toBeGreaterThan(5)
    // Arrival gaps jitter with the connection (a request sent 150 ms after the last may arrive a little sooner).
    const gaps = times.slice(1).map((at, i) => at - times[i]!)
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(100)
    expect(gaps.reduce((a, b) => a + b, 0) / gaps.length).toBeGreaterThanOrEqual(145)
  })

  it("a site that is down fails the crawl and deletes nothing", async () => {
    site.down = true
    expect((await admin.call("POST", "/api/admin/connectors/WEB/docs/crawl")).status).toBe(202)
    const attempt = await crawled("docs", 4)
    site.down = false
    expect(attempt).toMatchObject({ outcome: "FAILED", errorCode: "SITE_UNREACHABLE", objectsRetired: 0, objectsMaterialized: 0 })
    expect(attempt.errorMessage).not.toContain("zq-site-token")
    expect(await activity("docs")).toMatchObject({ objectsActive: 5 })
    expect(await finds(users.alice!, "zqecho")).toBe(true)
    // Back up: the next crawl is conditional again (its validators were kept) and finds nothing changed.
    const before = site.log.length
    expect((await admin.call("POST", "/api/admin/connectors/WEB/docs/crawl")).status).toBe(202)
    expect(await crawled("docs", 5)).toMatchObject({ outcome: "SUCCEEDED", objectsMaterialized: 0, objectsRotated: 0, objectsRetired: 0 })
    expect(site.log.slice(before).filter((entry) => entry.path === "/docs/e.html").map((entry) => entry.status)).toEqual([304])
  })

  it("a crawl stopped mid-way resumes from its checkpoint with nothing duplicated", async () => {
    const PAGES = 70
    const links = Array.from({ length: PAGES }, (_, i) => `p${i + 1}.html`)
    site.pages.set("/many/index.html", { body: pageWithChrome("Many index", `<p>${words("zqmanyindex")}</p>`, links) })
    for (let i = 1; i <= PAGES; i++) site.pages.set(`/many/p${i}.html`, { body: pageWithChrome(`Many page ${i}`, `<p>${words(`zqmany${i}x`)}</p>`) })
    const saved = await admin.call("PUT", "/api/admin/connectors/WEB/many", { knowledgeSpaceId: spaceId, sourceConfig: { baseUrl: `${site.url}/many/index.html`, sitemap: false } })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect((await admin.call("PUT", "/api/admin/connectors/WEB/many/credential", { credential: TOKEN })).status).toBe(204)
    // The site hangs at the 30th request under /many/: the first step (20 fetches) is then stored, as the crawl
    // stores a step before it fetches for the next, and the second is part-way. Then the server stops.
    site.stallAt = { prefix: "/many/", count: 30 }
    expect((await admin.call("POST", "/api/admin/connectors/WEB/many/crawl")).status).toBe(202)
    await eventually(async () => site.stalled, Boolean, "the crawl reaches the 30th page", 60_000)
    server = await server.restart!()
    admin = client(server.url, server.adminToken)
    for (const name of Object.keys(users)) users[name] = { ...users[name]!, ...client(server.url, users[name]!.token) }
    const stopped = (await activity("many")).componentCheckpoints[0]
    expect(stopped.captureStatus).toBe("IN_PROGRESS")
    expect(JSON.parse(stopped.observedCursor).crawl).toMatchObject({ fetches: 20, queued: PAGES + 1 - 20 })
    expect(await attempts("many")).toEqual([])
    site.stalled = false

    const attempt = await crawled("many", 1)
    expect(attempt, JSON.stringify(attempt)).toMatchObject({ outcome: "SUCCEEDED", objectsFailed: 0 })
    const done = await activity("many")
    expect(done).toMatchObject({ objectsTotal: PAGES + 1, objectsActive: PAGES + 1 })
    expect(done.componentCheckpoints[0].captureStatus).toBe("COMPLETE")
    expect(JSON.parse(done.componentCheckpoints[0].observedCursor)).toMatchObject({ pagesIndexed: PAGES + 1, crawl: null, lastCrawl: { ok: PAGES + 1 } })
    // Resumed, not started over: the pages of the stored step were not fetched again; at most the unfinished
    // step's (20 fetches) were, and the request in flight at the stop.
    expect(site.served("/many/index.html")).toBe(1)
    expect(site.served("/many/p1.html")).toBe(1)
    expect(site.log.filter((entry) => entry.path.startsWith("/many/p")).length).toBeLessThanOrEqual(PAGES + 21)

    await settle()
    const many = (await listAll(users.alice!)).items.filter((s) => s.title.startsWith("Many "))
    expect(many).toHaveLength(PAGES + 1)
    expect(new Set(many.map((s) => s.title)).size).toBe(PAGES + 1)
    expect(many.every((s) => s.versionNumber === 1)).toBe(true)
    expect(await finds(users.alice!, `zqmany${PAGES}x`)).toBe(true)
  })

  it("the SSRF guard refuses loopback and private addresses unless the server allows them", async () => {
    const guarded = await backend.start()
    try {
      const guardedAdmin = client(guarded.url, guarded.adminToken)
      const space = (await guardedAdmin.call("POST", "/api/admin/knowledge-spaces", { key: "web", name: "Web" })).body.id
      const before = site.log.length
      const port = new URL(site.url).port
      for (const [baseUrl, path] of [[`${site.url}/docs/`, "sourceConfig.baseUrl"], [`http://localhost:${port}/docs/`, "sourceConfig.baseUrl"], [`http://[::1]:${port}/`, "sourceConfig.baseUrl"]] as const) {
        const refused = await guardedAdmin.call("PUT", "/api/admin/connectors/WEB/local", { knowledgeSpaceId: space, sourceConfig: { baseUrl } })
        expect(refused.status, baseUrl).toBe(422)
        expect(refused.body.code).toBe("INVALID_CONNECTOR_CONFIG")
        expect(refused.body.errors).toEqual([expect.objectContaining({ path, message: expect.stringContaining("loopback or private") })])
      }
      const unsaved = await guardedAdmin.call("POST", "/api/admin/connectors/WEB/test", { knowledgeSpaceId: space, sourceConfig: { startUrls: [`${site.url}/docs/`] }, credential: TOKEN })
      expect(unsaved.status).toBe(422)
      expect(unsaved.body.errors).toEqual([expect.objectContaining({ path: "sourceConfig.startUrls[0]" })])
      expect(JSON.stringify(unsaved.body)).not.toContain("zq-site-token")
      expect(site.log.length).toBe(before)
    } finally {
      await guarded.dispose()
    }

    // At fetch time the guard checks every resolved address (a name resolving to loopback) and every IP literal.
    const options = { ...defaultWebCrawl, headers: {}, timeoutMs: 5_000, maxBytes: 1_000_000, policy: { allowedPrivateHosts: [] }, followsTo: () => true }
    const port = new URL(site.url).port
    const before = site.log.length
    expect(await fetchUrl(new URL(`http://localhost:${port}/docs/`), options)).toMatchObject({ _tag: "Failure", code: "ADDRESS_NOT_ALLOWED" })
    expect(await fetchUrl(new URL(`${site.url}/docs/`), options)).toMatchObject({ _tag: "Failure", code: "ADDRESS_NOT_ALLOWED" })
    expect(await fetchUrl(new URL(`http://[::ffff:127.0.0.1]:${port}/docs/`), options)).toMatchObject({ _tag: "Failure", code: "ADDRESS_NOT_ALLOWED" })
    expect(site.log.length).toBe(before)
    // Allowed, but bounded: redirects off the crawl are not followed, and a body past the limit is abandoned.
    const allowed = { ...options, policy: { allowedPrivateHosts: [new URL(site.url).host] }, headers: { authorization: TOKEN } }
    expect(await fetchUrl(new URL(`${site.url}/docs/away.html`), { ...allowed, followsTo: (url: URL) => url.pathname.startsWith("/docs/") })).toMatchObject({ _tag: "Failure", code: "REDIRECT_NOT_FOLLOWED" })
    expect(await fetchUrl(new URL(`${site.url}/docs/moved.html`), { ...allowed, followsTo: (url: URL) => url.pathname.startsWith("/docs/") })).toMatchObject({ _tag: "Response", status: 200 })
    expect(await fetchUrl(new URL(`${site.url}/docs/a.html`), { ...allowed, maxBytes: 100 })).toMatchObject({ _tag: "Failure", code: "TOO_LARGE" })
  })
})
