import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, eventually, search, userClient } from "../knowledge/support"
import { startTestServer, type TestServer } from "../support/server"
import { connectionRuns, wordsFound } from "./scenario"
import { type SlackSiteMessage, type SlackSiteModel, startSlackSite } from "./slack-site"

/**
 * SLACK end to end (issue 31, point 1), as users searching through /api/knowledge/search, against a loopback Slack
 * reached only through LORE_CONNECTOR_BASE_URLS (slack): channel names saved before the token and stored as ids once
 * it is set (an unknown one a 422 naming it), the initial crawl (threads with replies over two pages, one 429 waited
 * out by Retry-After), a public channel read by the workspace's members and its guest members only, a private one by
 * its members; an edit and a late reply caught by the rescan window; a member removed from a private channel (gone
 * for them after a permission sync that reads no message); a message deleted (retired by the sweep of the window);
 * the token revoked (reported; nothing becomes more visible).
 */

const TOKEN = "xoxb-1111111111-2222222222-abcdefABCDEF0123456789"
const day = 86_400
const now = Math.floor(Date.now() / 1000)
const ts = (secondsAgo: number, n = 0) => `${now - secondsAgo}.${String(100 + n).padStart(6, "0")}`

describe("the Slack connector", { timeout: 300_000 }, () => {
  let server: TestServer
  let slack: Awaited<ReturnType<typeof startSlackSite>>
  let admin: Client
  let ann: Client & { id: string }
  let ben: Client & { id: string }
  let gus: Client & { id: string }
  const release = ts(2 * day, 1)
  const lunch = ts(day, 2)
  const general: Array<SlackSiteMessage> = [
    { ts: release, user: "U0ANN", text: "The zqrelease process: tag, then ship <@U0BEN>" },
    { ts: ts(2 * day - 60, 3), user: "U0BEN", text: "Agreed, zqreplyone", threadTs: release },
    { ts: ts(2 * day - 120, 4), user: "U0GUS", text: "Thanks &amp; noted", threadTs: release },
    { ts: lunch, user: "U0BEN", text: "zqlunch at noon?" },
    { ts: ts(day - 10, 5), user: "U0ANN", text: "has joined the channel", subtype: "channel_join" },
    { ts: ts(30 * day, 6), user: "U0ANN", text: "The zqancient history" }
  ]
  const model: SlackSiteModel = {
    teamId: "T0LORE",
    teamName: "Acme",
    botUserId: "U0BOT",
    users: new Map([
      ["U0ANN", { id: "U0ANN", name: "Ann Example", email: "ann@example.com" }],
      ["U0BEN", { id: "U0BEN", name: "Ben Example", email: "ben@example.com" }],
      ["U0GUS", { id: "U0GUS", name: "Gus Guest", email: "gus@partner.example", guest: "multi" }],
      ["U0EXT", { id: "U0EXT", name: "Eve Connect", email: "eve@other.example", teamId: "T0OTHER" }],
      ["U0BOT", { id: "U0BOT", name: "Lore", bot: true }]
    ]),
    channels: new Map([
      ["C0GENERAL", { id: "C0GENERAL", name: "general", isPrivate: false, members: new Set(["U0ANN", "U0BEN", "U0GUS", "U0BOT"]) }],
      ["C0RANDOM", { id: "C0RANDOM", name: "random", isPrivate: false, members: new Set(["U0ANN", "U0BOT", "U0EXT"]) }],
      ["C0LEADS", { id: "C0LEADS", name: "leads", isPrivate: true, members: new Set(["U0ANN", "U0BEN", "U0BOT"]) }],
      ["C0WATER", { id: "C0WATER", name: "watercooler", isPrivate: false, members: new Set(["U0ANN"]) }]
    ]),
    messages: new Map([
      ["C0GENERAL", general],
      ["C0RANDOM", [{ ts: ts(3 * day, 7), user: "U0ANN", text: "zqrandom thoughts" }]],
      ["C0LEADS", [{ ts: ts(day, 8), user: "U0BEN", text: "zqsalary bands" }, { ts: ts(4 * day, 9), user: "U0ANN", text: "zqroadmap draft" }]]
    ])
  }
  const ALL = ["zqrelease", "zqreplyone", "zqlunch", "zqancient", "zqrandom", "zqsalary", "zqroadmap"]

  const path = "/api/admin/connectors/SLACK/acme"
  const { run } = connectionRuns(() => admin, path)
  let spaceId = ""

  beforeAll(async () => {
    slack = await startSlackSite(model, TOKEN)
    server = await startTestServer({ allowedPrivateHosts: [slack.host], connectorBaseUrls: { slack: slack.baseUrl } })
    admin = client(server.url, server.adminToken)
    const departmentId = (await admin.call("POST", "/api/admin/departments", { name: "Chat" })).body.id
    spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "chat", name: "Chat" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    ann = await userClient(admin.call, server.url, { email: "ann@example.com", departmentId })
    ben = await userClient(admin.call, server.url, { email: "ben@example.com", departmentId })
    gus = await userClient(admin.call, server.url, { email: "gus@partner.example", departmentId })
  })
  afterAll(async () => {
    await server?.dispose()
    await slack?.close()
  })

  it("stores channel names as ids once the token is set, and refuses unknown channels and bad fields naming them", async () => {
    const saved = await admin.call("PUT", path, { knowledgeSpaceId: spaceId, sourceConfig: { channels: ["general", "C0RANDOM", "leads"], rescanDays: 7 }, identityTrust: "TRUSTED", crawlEnabled: true, permissionSyncIntervalSeconds: 3600 })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    // Without a token the names are kept as given; setting it looks them up.
    expect(saved.body.sourceConfig.channels).toEqual(["general", "C0RANDOM", "leads"])
    const malformed = await admin.call("PUT", `${path}/credential`, { credential: { token: "not-a-slack-token-do-not-echo" } })
    expect(malformed.status).toBe(422)
    expect(JSON.stringify(malformed.body)).not.toContain("do-not-echo")
    expect((await admin.call("PUT", `${path}/credential`, { credential: { token: TOKEN } })).status).toBe(204)
    const stored = (await admin.call("GET", "/api/admin/connectors/SLACK")).body.find((c: any) => c.sourceConnectionKey === "acme")
    expect(stored.sourceConfig.channels).toEqual(["C0GENERAL", "C0RANDOM", "C0LEADS"])

    const unknown = await admin.call("PUT", path, { knowledgeSpaceId: spaceId, sourceConfig: { channels: ["general", "no-such-channel"] }, identityTrust: "TRUSTED", crawlEnabled: true })
    expect(unknown.status).toBe(422)
    expect((unknown.body.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(["sourceConfig.channels[1]"])
    const bad = await admin.call("PUT", "/api/admin/connectors/SLACK/bad", { knowledgeSpaceId: spaceId, sourceConfig: { channels: ["#general", 7], rescanDays: 400, extra: true } })
    expect(bad.status).toBe(422)
    expect((bad.body.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(["sourceConfig.channels[0]", "sourceConfig.channels[1]", "sourceConfig.rescanDays", "sourceConfig.extra"])
  })

  it("tests the token and lists one scope per channel, inadmissible where the app is not invited", async () => {
    expect((await admin.call("POST", `${path}/test`)).body).toMatchObject({ authenticated: true, accountName: "Acme", identityName: "U0BOT", canReadContent: true, errorCode: null })
    const probe = "/api/admin/connectors/SLACK/probe"
    expect((await admin.call("PUT", probe, { knowledgeSpaceId: spaceId, sourceConfig: { channels: ["C0WATER", "C0LEADS"] } })).status).toBe(200)
    expect((await admin.call("PUT", `${probe}/credential`, { credential: { token: TOKEN } })).status).toBe(204)
    const scopes = (await admin.call("GET", `${probe}/scopes`)).body as Array<any>
    expect(scopes.find((s) => s.key === "C0LEADS")).toMatchObject({ reachable: true, admissible: true, displayName: "🔒leads" })
    const water = scopes.find((s) => s.key === "C0WATER")
    expect(water).toMatchObject({ reachable: true, admissible: false })
    expect(water.instruction).toContain("/invite")
    expect((await admin.call("DELETE", probe)).status).toBe(204)
  })

  it("crawls each channel's threads with their permissions, through a 429", async () => {
    slack.state.throttleOnce = "conversations.history"
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsFailed: 0, objectsMaterialized: 6 })
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED" })
    expect(slack.state.answered429).toBe(1)
    await eventually(() => wordsFound(ann, ALL), (found) => found.length === ALL.length, "ann's threads ingested", 120_000)
    // Ben: a full member reads both public channels (random without being in it) and the private one he is in.
    expect(await wordsFound(ben, ALL)).toEqual(ALL)
    // Gus, a guest: only the public channel he is a member of.
    expect(await wordsFound(gus, ALL)).toEqual(["zqrelease", "zqreplyone", "zqlunch", "zqancient"])
    const listed = (await admin.call("GET", `${path}/documents`)).body.items as Array<any>
    expect(listed.find((d) => d.externalId === `C0GENERAL/${release}`).url).toBe(`https://acme.slack.com/archives/C0GENERAL/p${release.replace(".", "")}`)
    const hit = (await search(ann, "zqreplyone"))[0] as any
    expect(JSON.stringify(hit)).toContain("Ben Example")
  })

  it("catches an edit and a late reply in the rescan window, reading history from `oldest`", async () => {
    general[0]!.text = "The zqrelease process: tag, then ship. zqrevised"
    general[0]!.edited = true
    general.push({ ts: ts(600, 10), user: "U0ANN", text: "zqlatereply: done", threadTs: release })
    const calls = slack.state.historyOldest.length
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRotated: 1, objectsRetired: 0 })
    // Each channel read from `oldest`: its newest message then, less rescanDays (7); the 30-day-old thread is not read again.
    const oldest = slack.state.historyOldest.slice(calls)
    expect(oldest.length).toBeGreaterThanOrEqual(3)
    for (const value of oldest) expect(Number(value)).toBeGreaterThan(now - 29 * day)
    await eventually(() => wordsFound(ben, ["zqrevised", "zqlatereply"]), (found) => found.length === 2, "the edit searchable", 60_000)
  })

  it("a member removed from a private channel loses its threads after a permission sync that reads no message", async () => {
    model.channels.get("C0LEADS")!.members.delete("U0BEN")
    const before = { history: slack.served("conversations.history"), replies: slack.served("conversations.replies") }
    const { permissions } = await run("permissions")
    expect(permissions).toMatchObject({ outcome: "SUCCEEDED" })
    expect(slack.served("conversations.history")).toBe(before.history)
    expect(slack.served("conversations.replies")).toBe(before.replies)
    expect(await wordsFound(ben, ["zqsalary", "zqroadmap"])).toEqual([])
    expect(await wordsFound(ann, ["zqsalary", "zqroadmap"])).toEqual(["zqsalary", "zqroadmap"])
  })

  it("a deleted message is retired by the sweep of the window", async () => {
    general.splice(general.findIndex((m) => m.ts === lunch), 1)
    const { content } = await run("content")
    expect(content).toMatchObject({ outcome: "SUCCEEDED", objectsRetired: 1 })
    expect(await wordsFound(ann, ["zqlunch", "zqancient"])).toEqual(["zqancient"])
  })

  it("a revoked token is reported, and nothing becomes more visible", async () => {
    const before = { ann: await wordsFound(ann, ALL), ben: await wordsFound(ben, ALL), gus: await wordsFound(gus, ALL) }
    slack.state.revoked = true
    model.channels.get("C0LEADS")!.members.add("U0GUS")
    const { content, permissions } = await run()
    expect(content).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect(permissions).toMatchObject({ outcome: "FAILED", errorCode: "AUTHENTICATION_FAILED" })
    expect((await admin.call("POST", `${path}/test`)).body).toMatchObject({ authenticated: false, errorCode: "AUTHENTICATION_FAILED" })
    expect(await wordsFound(ann, ALL)).toEqual(before.ann)
    expect(await wordsFound(ben, ALL)).toEqual(before.ben)
    expect(await wordsFound(gus, ALL)).toEqual(before.gus)
  })
})
