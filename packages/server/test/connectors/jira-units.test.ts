import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Settings } from "../../src/Config"
import type { KindContext, SourceDocument } from "../../src/connectors/Kind"
import { organizationOf, principalsFor } from "../../src/connectors/jira/Acl"
import { jiraClient } from "../../src/connectors/jira/Client"
import { readJiraConfig, readJiraCredential } from "../../src/connectors/jira/Config"
import { crawlJira, issueIdOf, jqlDate, searchJql } from "../../src/connectors/jira/Crawl"
import { organizationMembership } from "../../src/connectors/jira/Groups"
import { syncJiraPermissions } from "../../src/connectors/jira/Permissions"
import { adfToText, wikiToText } from "../../src/connectors/jira/Render"
import { type JiraSiteModel, startJiraSite } from "./jira-site"

/** The Jira kind's parsers, ACL mapping and client, each with its hostile case; Data Center's v2 crawl against the fake. */

const model = (): JiraSiteModel => ({
  users: new Map([
    ["ann", { id: "ann", email: "ann@example.com", displayName: "Ann" }],
    ["ben", { id: "ben", email: "ben@example.com", displayName: "Ben" }],
    ["bot-app", { id: "bot-app", email: "app@example.com", displayName: "Automation", accountType: "app" }]
  ]),
  groups: new Map([["devs", new Set(["ann"])]]),
  projects: new Map([["DC", {
    key: "DC", id: "1", name: "Data Center", lead: "ben", schemeReadable: true,
    browse: [{ type: "projectRole", parameter: "10100" }, { type: "assignee" }, { type: "userCustomField", parameter: "customfield_10050" }, { type: "projectLead" }, { type: "sd.customer.portal.only" }],
    roles: new Map([["10100", { name: "Developers", users: ["ann"], groups: ["devs"] }]])
  }]]),
  levels: new Map(),
  issues: new Map([["501", {
    id: "501", key: "DC-7", projectKey: "DC", summary: "Upgrade the zqdcupgrade path", description: "Plan it.\n\n## Steps\n\nRun the zqdcsteps.",
    status: "Open", assignee: "ben", reporter: "ann", labels: ["ops"], updated: new Date(Date.now() - 3600_000), securityLevel: null,
    comments: [{ id: "1", author: "ben", body: "First", created: new Date() }, { id: "2", author: "ann", body: "Second", created: new Date() }, { id: "3", author: "ann", body: "zqthird", created: new Date() }],
    userFields: { customfield_10050: ["ann"] }
  }]])
})

const run = async <A extends { done: boolean; checkpoint: unknown }>(step: (checkpoint: unknown) => Effect.Effect<A>) => {
  const pages: Array<A> = []
  let checkpoint: unknown = null
  for (let i = 0; i < 50; i++) {
    const page = await Effect.runPromise(step(checkpoint))
    pages.push(page)
    checkpoint = page.checkpoint
    if (page.done) break
  }
  return pages
}

describe("Jira parsers, ACL mapping and client", () => {
  it("renders ADF and wiki markup to text with their headings, and survives hostile nesting", () => {
    const adf = { type: "doc", version: 1, content: [
      { type: "heading", attrs: { level: 1 }, content: [{ type: "text", text: "Start" }] },
      { type: "paragraph", content: [{ type: "text", text: "Hello " }, { type: "mention", attrs: { text: "@Ann" } }] },
      { type: "bulletList", content: [{ type: "listItem", content: [{ type: "paragraph", content: [{ type: "text", text: "one" }] }] }] },
      { type: "codeBlock", content: [{ type: "text", text: "npm test" }] }
    ] }
    const text = adfToText(adf)
    expect(text).toContain("## Start")
    expect(text).toContain("Hello @Ann")
    expect(text).toContain("- one")
    expect(text).toContain("```\nnpm test\n```")
    let deep: any = { type: "text", text: "zqdeep" }
    for (let i = 0; i < 50_000; i++) deep = { type: "paragraph", content: [deep] }
    expect(() => adfToText({ type: "doc", version: 1, content: [deep] })).not.toThrow()
    expect(adfToText("not a document")).toBe("")
    expect(adfToText({ type: "doc", content: "not an array" })).toBe("")
    expect(wikiToText("h1. Title\n* item\n** nested\n{code:java}x{code}\nsee [the docs|https://example.com]")).toBe("## Title\n- item\n  - nested\n```x```\nsee the docs")
  })

  it("reads config and credentials like Confluence's, refusing bad keys, private addresses and echoing no secret", () => {
    const settings = Settings.make({ dataDir: "/tmp" })
    const good = readJiraConfig({ deployment: "CLOUD", baseUrl: "https://acme.atlassian.net/", projects: ["eng", "OPS", "eng"] }, settings)
    expect(good).toMatchObject({ ok: true, config: { baseUrl: "https://acme.atlassian.net", projects: ["ENG", "OPS"], reconcileEveryHours: 24 } })
    const bad = readJiraConfig({ deployment: "CLOUD", baseUrl: "http://10.0.0.1", projects: ["ENG) OR project = SECRET", 7], reconcileEveryHours: -1 }, settings)
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.errors.map((e) => e.path)).toEqual(["sourceConfig.baseUrl", "sourceConfig.projects.0", "sourceConfig.projects.1", "sourceConfig.reconcileEveryHours"])
    expect(readJiraConfig({ deployment: "CLOUD", baseUrl: "https://acme.atlassian.net", projects: Array.from({ length: 501 }, (_, i) => `P${i}`) }, settings).ok).toBe(false)
    expect(readJiraCredential({ email: "a@example.com", apiToken: "t" })).toMatchObject({ ok: true })
    for (const hostile of [{ token: "secret-x", email: "a@example.com" }, "secret-y", { token: "secret\nz" }]) {
      const read = readJiraCredential(hostile)
      expect(read.ok).toBe(false)
      if (!read.ok) expect(read.message).not.toContain("secret")
    }
  })

  it("writes JQL dates in the account's time zone and maps only its own external ids", () => {
    expect(jqlDate("2026-01-01T00:00:00.000Z", "Asia/Kolkata")).toBe("2026/01/01 05:30")
    expect(jqlDate("2026-01-01T00:00:00.000Z", "Not/AZone")).toBe("2026/01/01 00:00")
    expect(searchJql(["A", "B"], "2026/01/01 05:30")).toBe('project in ("A", "B") AND updated >= "2026/01/01 05:30" ORDER BY updated ASC')
    expect(issueIdOf("issue:10001")).toBe("10001")
    for (const hostile of ["issue:../1", "issue:1 OR 1=1", "page:1", "issue:" + "9".repeat(30), "__proto__"]) expect(issueIdOf(hostile)).toBeNull()
  })

  it("resolves per-issue holders: reporter, assignee, user pickers; the organization for application roles", () => {
    const organization = organizationOf("https://acme.atlassian.net")
    const grant = { users: [{ id: "u1" }], groups: [{ id: "g1" }], organization: true, reporter: true, assignee: true, userFields: ["customfield_1"], groupFields: ["customfield_2"] }
    const principals = principalsFor(grant, { fields: {
      reporter: { accountId: "rep", emailAddress: "rep@example.com" }, assignee: null,
      customfield_1: [{ accountId: "picked" }, { nonsense: true }, "x"], customfield_2: { name: "pickers" }
    } }, organization)
    expect(principals.users.map((u) => u.id)).toEqual(["u1", "rep", "picked"])
    expect(principals.groups.map((g) => g.id)).toEqual(["g1", "pickers"])
    expect(principals.organizations).toEqual([{ id: "jira:acme.atlassian.net", displayName: "Everyone with access to acme.atlassian.net" }])
    expect(principalsFor({ ...grant, organization: false }, { fields: {} }, organization).organizations).toBeUndefined()
  })

  it("crawls Data Center over v2 (bearer, startAt, wiki markup) with roles, assignee, user pickers and the lead; syncs without content", async () => {
    const site = await startJiraSite(model(), { token: "dc-pat" })
    try {
      const settings = Settings.make({ dataDir: "/tmp", allowedPrivateHosts: [site.host] })
      const sourceConfig = { deployment: "DATA_CENTER", baseUrl: site.baseUrl, projects: ["DC"] }
      const context: KindContext = { sourceConfig, credential: JSON.stringify({ token: "dc-pat" }), settings }
      const pages = await run((checkpoint) => crawlJira(context, checkpoint))
      const documents = pages.flatMap((p) => p.documents) as Array<SourceDocument>
      expect(pages.flatMap((p) => p.failures ?? [])).toEqual([])
      expect(documents).toHaveLength(1)
      const text = new TextDecoder().decode(documents[0]!.bytes)
      expect(text).toContain("# DC-7: Upgrade the zqdcupgrade path")
      expect(text).toContain("### Steps")
      expect(text).toContain("zqthird")
      expect(text).toContain("Assignee: Ben")
      expect(documents[0]!.url).toBe(`${site.baseUrl}/browse/DC-7`)
      expect(documents[0]!.acl?.users.map((u) => u.id).sort()).toEqual(["ann", "ben"])
      expect(documents[0]!.acl?.groups.map((g) => g.id)).toEqual(["devs"])
      expect(documents[0]!.acl?.organizations).toBeUndefined()

      const before = site.state.served.contents
      const known = { page: (after: string | null) => Effect.succeed(after === null ? ["issue:501", "issue:999"] : []), notSeenSince: () => Effect.succeed([]) }
      const synced = await run((checkpoint) => syncJiraPermissions({ ...context, documents: known }, checkpoint))
      expect(site.state.served.contents).toBe(before)
      expect(synced.flatMap((p) => p.acls).map((a) => a.externalId)).toEqual(["issue:501"])
      expect(synced.flatMap((p) => p.groups)).toEqual([{ id: "devs", displayName: "devs", members: { users: [{ id: "ann", email: "ann@example.com", displayName: "Ann" }], groups: [] } }])
    } finally {
      await site.close()
    }
  })

  it("lists the organization's people without apps, and fails closed when the scheme cannot be read", async () => {
    const cloud = model()
    cloud.projects.get("DC")!.schemeReadable = false
    const site = await startJiraSite(cloud, { email: "admin@example.com", apiToken: "t" })
    try {
      const settings = Settings.make({ dataDir: "/tmp", allowedPrivateHosts: [site.host] })
      const config = { deployment: "CLOUD" as const, baseUrl: site.baseUrl, projects: ["DC"], reconcileEveryHours: 24 }
      const client = jiraClient(config, { email: "admin@example.com", apiToken: "t" }, settings)
      const organization = await organizationMembership(client, organizationOf(site.baseUrl))
      expect(organization.kind).toBe("SOURCE_ORGANIZATION")
      expect(organization.members.users.map((u) => u.id)).toEqual(["ann", "ben"])
      const pages = await run((checkpoint) => crawlJira({ sourceConfig: config, credential: JSON.stringify({ email: "admin@example.com", apiToken: "t" }), settings }, checkpoint))
      expect(pages.flatMap((p) => p.documents).map((d) => d.acl)).toEqual([{ users: [], groups: [], unresolved: true }])
    } finally {
      await site.close()
    }
  })

  it("refuses links and redirects elsewhere, bounds huge answers, reports malformed ones", async () => {
    const server = createServer((req, res) => {
      if (req.url?.startsWith("/redirect")) {
        res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" })
        return res.end()
      }
      if (req.url?.startsWith("/huge")) {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(64 * 1024 * 1024) })
        return res.end()
      }
      if (req.url?.startsWith("/malformed")) {
        res.writeHead(200, { "content-type": "application/json" })
        return res.end("{\"issues\": [")
      }
      res.writeHead(404)
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const settings = Settings.make({ dataDir: "/tmp", allowedPrivateHosts: [host] })
      const client = jiraClient({ deployment: "DATA_CENTER", baseUrl: `http://${host}`, projects: ["A"], reconcileEveryHours: 24 }, { token: "t" }, settings)
      await expect(client.json("https://evil.example.com/rest/api/2/search")).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
      await expect(client.json("/redirect")).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
      await expect(client.json("/huge")).rejects.toMatchObject({ code: "TOO_LARGE" })
      await expect(client.json("/malformed")).rejects.toMatchObject({ code: "SOURCE_ERROR" })
      const unguarded = Settings.make({ dataDir: "/tmp" })
      const pages = await run((checkpoint) => crawlJira({ sourceConfig: { deployment: "DATA_CENTER", baseUrl: "https://jira.example.com", projects: ["A"] }, credential: JSON.stringify({ token: "t" }), settings: unguarded }, checkpoint))
      expect(pages[0]!.failures?.[0]).toMatchObject({ fatal: true })
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
