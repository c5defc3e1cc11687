import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type SlackSiteModel, startSlackSite } from "../../test-support/slack-site"
import { adminApi, serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

/**
 * The guided Slack setup from the CLI (issue 31): in a script the channels and rescan window are flags and the bot
 * token comes from stdin; a missing setting fails at once naming its flag (no prompt without a terminal); channel
 * names are stored as ids once the token is set, and an unknown one is refused naming it.
 */

const TOKEN = "xoxb-3333333333-4444444444-cliclicliclicli"
const now = Math.floor(Date.now() / 1000)
const model: SlackSiteModel = {
  teamId: "T0CLI",
  teamName: "Acme",
  botUserId: "U0BOT",
  users: new Map([["U0ANN", { id: "U0ANN", name: "Ann", email: "ann@example.com" }], ["U0BOT", { id: "U0BOT", name: "Lore", bot: true }]]),
  channels: new Map([["C0GENERAL", { id: "C0GENERAL", name: "general", isPrivate: false, members: new Set(["U0ANN", "U0BOT"]) }]]),
  messages: new Map([["C0GENERAL", [{ ts: `${now - 3600}.000100`, user: "U0ANN", text: "zqclislack hello" }]]])
}
let server: ServedLore
let slack: Awaited<ReturnType<typeof startSlackSite>>
let home: string
const admin = (args: ReadonlyArray<string>, input?: string) => lore(args, { env: { XDG_CONFIG_HOME: home, CI: "1" }, ...(input === undefined ? {} : { input }) })

beforeAll(async () => {
  ensureBuilt()
  slack = await startSlackSite(model, TOKEN)
  server = await serveLore({ LORE_ALLOWED_PRIVATE_HOSTS: slack.host, LORE_CONNECTOR_BASE_URLS: `slack=${slack.baseUrl}` })
  home = newConfigHome()
  const api = adminApi(server)
  expect((await api("POST", "/api/admin/knowledge-spaces", { key: "chat", name: "Chat" })).status).toBe(201)
  const login = await admin(["login", "--server", server.url, "--token", server.adminToken])
  expect(login.code, login.stderr).toBe(0)
}, 180_000)
afterAll(async () => {
  await server?.stop()
  await slack?.close()
})

describe("lore connectors add --kind SLACK", () => {
  it("takes the channels from flags and the token from stdin, stores names as ids, and names what is missing or unknown", { timeout: 240_000 }, async () => {
    const missing = await admin(["connectors", "add", "--kind", "SLACK", "--key", "acme", "--space", "chat"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--channels")
    const badDays = await admin(["connectors", "add", "--kind", "SLACK", "--key", "acme", "--space", "chat", "--channels", "general", "--rescan-days", "400"])
    expect(badDays.code).toBe(2)
    expect(badDays.stderr).toContain("--rescan-days")

    const unknown = await admin(["connectors", "add", "--kind", "SLACK", "--key", "acme", "--space", "chat", "--channels", "#general,nowhere", "--credential-stdin"], TOKEN)
    expect(unknown.code).toBe(6)
    expect(unknown.stderr).toContain("sourceConfig.channels[1]")
    expect(unknown.stdout + unknown.stderr).not.toContain(TOKEN)

    const added = await admin(["connectors", "add", "--kind", "SLACK", "--key", "acme", "--space", "chat", "--trust", "--channels", "#general",
      "--rescan-days", "3", "--credential-stdin", "--json"], TOKEN)
    expect(added.code, added.stderr).toBe(0)
    expect(added.json()).toMatchObject({ sourceSystem: "SLACK", credentialSet: true, identityTrust: "TRUSTED", sourceConfig: { channels: ["C0GENERAL"], rescanDays: 3 } })
    expect(added.stdout + added.stderr).not.toContain(TOKEN)

    const tested = await admin(["connectors", "test", "acme", "--kind", "SLACK", "--json"])
    expect(tested.code, tested.stderr).toBe(0)
    expect(tested.json()).toMatchObject({ authenticated: true, accountName: "Acme", canReadContent: true })

    const crawled = await admin(["connectors", "crawl", "acme", "--kind", "SLACK", "--json"])
    expect(crawled.code, crawled.stderr).toBe(0)
    expect(crawled.json().recentAttempts.find((a: { component: string }) => a.component === "content")).toMatchObject({ outcome: "SUCCEEDED", objectsMaterialized: 1 })
  })
})
