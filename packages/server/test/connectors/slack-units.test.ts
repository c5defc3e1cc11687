import type { Member } from "../../src/connectors/slack/Types"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Settings } from "../../src/Config"
import { slackClient } from "../../src/connectors/slack/Client"
import { readSlackConfig, readSlackCredential } from "../../src/connectors/slack/Config"
import { daysBefore } from "../../src/connectors/slack/Crawl"
import { aclOfChannel, channelGroup, isFullMember, organizationId, readDirectory } from "../../src/connectors/slack/Directory"
import { parseThreadExternalId, plainText, startsThread } from "../../src/connectors/slack/Render"
import { startSlackSite, type SlackSiteModel } from "./slack-site"

/** The SLACK kind's parsers and mappings, each with its hostile input (issue 31, point 1). */

const TOKEN = "xoxb-1111111111-2222222222-unitsunitsunits"
const errorPaths = (read: ReturnType<typeof readSlackConfig>) => (read.ok ? [] : read.errors.map((e) => e.path))

describe("the Slack sourceConfig and credential", () => {
  it("accepts ids and names, defaults rescanDays, and names each bad field", () => {
    expect(readSlackConfig({ channels: ["C0123ABCD", "G0123ABCD", "eng-team", "C0123ABCD"] })).toEqual({ ok: true, config: { channels: ["C0123ABCD", "G0123ABCD", "eng-team"], rescanDays: 7 } })
    expect(errorPaths(readSlackConfig({ channels: [] }))).toEqual(["sourceConfig.channels"])
    expect(errorPaths(readSlackConfig({ channels: "C0123ABCD" }))).toEqual(["sourceConfig.channels"])
    expect(errorPaths(readSlackConfig({ channels: Array.from({ length: 501 }, (_, i) => `c${i}`) }))).toEqual(["sourceConfig.channels"])
    expect(errorPaths(readSlackConfig({ channels: ["#eng", "Eng Team", "x".repeat(81), { id: 1 }, "ok"], rescanDays: 1.5, __proto__: { polluted: 1 }, constructor: 1 } as never)))
      .toEqual(["sourceConfig.channels[0]", "sourceConfig.channels[1]", "sourceConfig.channels[2]", "sourceConfig.channels[3]", "sourceConfig.rescanDays", "sourceConfig.constructor"])
    expect(errorPaths(readSlackConfig({ channels: ["eng"], rescanDays: -1 }))).toEqual(["sourceConfig.rescanDays"])
  })
  it("keeps a bot token and refuses anything else without repeating it", () => {
    expect(readSlackCredential({ token: TOKEN })).toEqual({ ok: true, secret: JSON.stringify({ token: TOKEN }) })
    for (const bad of [{ token: "s3cr3t-value" }, { token: TOKEN, extra: "s3cr3t-value" }, TOKEN, [TOKEN], { token: `xoxb-${"a".repeat(600)}` }, null]) {
      const read = readSlackCredential(bad)
      expect(read.ok).toBe(false)
      expect(JSON.stringify(read)).not.toContain("s3cr3t-value")
      expect(JSON.stringify(read)).not.toContain("1111111111")
    }
  })
})

describe("who reads a channel", () => {
  const member = (fields: Partial<Member>): Member => ({ id: "U1", team_id: "T1", profile: { email: "a@x.com" }, ...fields })
  it("the organization is the team's full members: never guests, bots, deleted users or other teams", () => {
    expect(isFullMember(member({}), "T1")).toBe(true)
    expect(isFullMember(member({ is_restricted: true }), "T1")).toBe(false)
    expect(isFullMember(member({ is_ultra_restricted: true, is_restricted: true }), "T1")).toBe(false)
    expect(isFullMember(member({ is_bot: true }), "T1")).toBe(false)
    expect(isFullMember(member({ id: "USLACKBOT" }), "T1")).toBe(false)
    expect(isFullMember(member({ deleted: true }), "T1")).toBe(false)
    expect(isFullMember(member({ team_id: "T2" }), "T1")).toBe(false)
  })
  it("a public channel: the organization and its other members; a private one: its members", () => {
    const directory = {
      teamId: "T1",
      organization: { id: organizationId("T1"), kind: "SOURCE_ORGANIZATION" as const, members: { users: [], groups: [] } },
      members: new Set(["U-ann", "U-ben"]),
      bots: new Set(["U-bot"]),
      users: new Map([["U-gus", { id: "U-gus", email: "gus@partner.example" }]])
    }
    const members = ["U-ann", "U-gus", "U-bot", "U-ext", "U-ann"]
    const publicChannel = { id: "C1", name: "general", isPrivate: false, isMember: true }
    const privateChannel = { id: "C2", name: "leads", isPrivate: true, isMember: true }
    expect(channelGroup(publicChannel, members, directory).members.users).toEqual([{ id: "U-gus", email: "gus@partner.example" }, { id: "U-ext" }])
    expect(channelGroup(privateChannel, members, directory).members.users.map((u) => u.id)).toEqual(["U-ann", "U-gus", "U-ext"])
    expect(aclOfChannel(publicChannel, "T1")).toMatchObject({ groups: [{ id: "channel:C1" }], organizations: [{ id: "team:T1" }] })
    expect(aclOfChannel(privateChannel, "T1").organizations).toBeUndefined()
  })
})

describe("threads", () => {
  it("start at parents and standalone messages, never at replies shown in the channel or system notices", () => {
    expect(startsThread({ ts: "1700000000.000100", text: "hi" })).toBe(true)
    expect(startsThread({ ts: "1700000000.000100", thread_ts: "1700000000.000100", reply_count: 2 })).toBe(true)
    expect(startsThread({ ts: "1700000001.000100", thread_ts: "1700000000.000100", subtype: "thread_broadcast" })).toBe(false)
    expect(startsThread({ ts: "1700000000.000100", subtype: "channel_join" })).toBe(false)
    expect(startsThread({ ts: "../../x" })).toBe(false)
    expect(parseThreadExternalId("C0123ABCD/1700000000.000100")).toEqual({ channelId: "C0123ABCD", ts: "1700000000.000100" })
    expect(parseThreadExternalId("C0123ABCD/../x")).toBeNull()
    expect(daysBefore("1700000000.000100", 7)).toBe("1699395200.000000")
    expect(daysBefore("100.5", 7)).toBe("0.000000")
  })
  it("render Slack's mrkdwn as text, mentions by name, within bounds", () => {
    const names = (id: string) => (id === "U1" ? "Ann" : null)
    expect(plainText("hi <@U1> and <@U2|bob> in <#C1|eng>, <!here>: <https://x.example/a?b=1|the doc> &amp; <https://y.example> &lt;3", names))
      .toBe("hi @Ann and @bob in #eng, @here: [the doc](https://x.example/a?b=1) & https://y.example <3")
    expect(plainText("<".repeat(100_000), names).length).toBeLessThanOrEqual(40_000)
  })
})

describe("the Slack client, against hostile answers", () => {
  let slack: Awaited<ReturnType<typeof startSlackSite>>
  const model: SlackSiteModel = {
    teamId: "T1", teamName: "Acme", botUserId: "U0BOT",
    users: new Map([["U0ANN", { id: "U0ANN", name: "Ann", email: "ann@example.com" }], ["U0GUS", { id: "U0GUS", name: "Gus", guest: "single" }]]),
    channels: new Map(), messages: new Map()
  }
  const settingsFor = (base: string, allowed: ReadonlyArray<string>) => Settings.make({ dataDir: "/tmp/unused", connectorBaseUrls: { slack: base }, allowedPrivateHosts: [...allowed] })
  beforeAll(async () => {
    slack = await startSlackSite(model, TOKEN)
  })
  afterAll(async () => {
    await slack?.close()
  })

  it("reads users.list page by page into the organization, the guest left out", async () => {
    const directory = await readDirectory(slackClient({ token: TOKEN }, settingsFor(slack.baseUrl, [slack.host])), "T1")
    expect(directory.organization.members.users).toEqual([{ id: "U0ANN", email: "ann@example.com", displayName: "Ann" }])
    expect(directory.users.get("U0GUS")).toMatchObject({ displayName: "Gus" })
  })
  it("refuses a body larger than it reads, one that is not JSON, and a refused token, each as a typed error", async () => {
    const client = slackClient({ token: TOKEN }, settingsFor(slack.baseUrl, [slack.host]))
    slack.state.hugeOnce = "auth.test"
    await expect(client.call("auth.test", (web) => web.auth.test())).rejects.toMatchObject({ code: "TOO_LARGE" })
    slack.state.malformedOnce = "auth.test"
    await expect(client.call("auth.test", (web) => web.auth.test())).rejects.toMatchObject({ code: "SOURCE_ERROR" })
    const other = slackClient({ token: "xoxb-9999999999-wrongwrongwrong" }, settingsFor(slack.baseUrl, [slack.host]))
    await expect(other.call("auth.test", (web) => web.auth.test())).rejects.toMatchObject({ code: "AUTHENTICATION_FAILED", status: 401 })
  })
  it("refuses Slack on a private address unless allowed, and a redirect to one", async () => {
    const refused = slackClient({ token: TOKEN }, settingsFor(slack.baseUrl, []))
    await expect(refused.call("auth.test", (web) => web.auth.test())).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
    const client = slackClient({ token: TOKEN }, settingsFor(slack.baseUrl, [slack.host]))
    slack.state.redirectOnce = { method: "auth.test", location: "http://169.254.169.254/latest/meta-data" }
    await expect(client.call("auth.test", (web) => web.auth.test())).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
  })
  it("waits out a 429 by its Retry-After and then paces the method", async () => {
    const client = slackClient({ token: TOKEN }, settingsFor(slack.baseUrl, [slack.host]))
    slack.state.throttleOnce = "auth.test"
    await expect(client.call("auth.test", (web) => web.auth.test())).resolves.toMatchObject({ ok: true, team_id: "T1" })
    expect(client.counters.throttled).toBe(1)
  })
})
