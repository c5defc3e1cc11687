import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type SiteModel, startConfluenceSite } from "../../test-support/confluence-site"
import { adminApi, serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

/**
 * The guided Confluence setup from the CLI (issue 30): in a script every setting is a flag and the token comes from
 * stdin; a missing one fails at once naming its flag (no prompt without a terminal); the permission schedule is a
 * flag too; `connectors crawl --permissions` waits for the permission sync alone.
 */

const AUTH = { email: "bot@example.com", apiToken: "cli-confluence-token-0123456789" }
const model: SiteModel = {
  users: new Map([["acc-ann", { accountId: "acc-ann", email: "ann@example.com", displayName: "Ann" }]]),
  groups: new Map([["staff", new Set(["acc-ann"])]]),
  spaces: new Map([["ENG", { key: "ENG", name: "Engineering", readers: { users: [], groups: ["staff"] }, permissionsReadable: true }]]),
  contents: new Map([["700", { id: "700", type: "page", title: "Guide", spaceKey: "ENG", ancestors: [], body: "<h1>Guide</h1><p>zqcliguide</p>", lastModified: new Date(Date.now() - 3600_000), restriction: null, attachments: [] }]])
}
let server: ServedLore
let site: Awaited<ReturnType<typeof startConfluenceSite>>
let home: string
const admin = (args: ReadonlyArray<string>, input?: string) => lore(args, { env: { XDG_CONFIG_HOME: home, CI: "1" }, ...(input === undefined ? {} : { input }) })

beforeAll(async () => {
  ensureBuilt()
  site = await startConfluenceSite(model, AUTH)
  server = await serveLore({ LORE_ALLOWED_PRIVATE_HOSTS: site.host })
  home = newConfigHome()
  const api = adminApi(server)
  expect((await api("POST", "/api/admin/knowledge-spaces", { key: "docs", name: "Docs" })).status).toBe(201)
  const login = await admin(["login", "--server", server.url, "--token", server.adminToken])
  expect(login.code, login.stderr).toBe(0)
}, 180_000)
afterAll(async () => {
  await server?.stop()
  await site?.close()
})

describe("lore connectors add --kind CONFLUENCE", () => {
  it("takes every setting from flags and the token from stdin, and names a missing flag in CI", { timeout: 240_000 }, async () => {
    const missing = await admin(["connectors", "add", "--kind", "CONFLUENCE", "--key", "wiki", "--space", "docs"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--deployment")
    const tooOften = await admin(["connectors", "add", "--kind", "CONFLUENCE", "--key", "wiki", "--space", "docs", "--deployment", "CLOUD",
      "--base-url", site.baseUrl, "--spaces", "ENG", "--email", AUTH.email, "--credential-stdin", "--permissions-every", "30s"], AUTH.apiToken)
    expect(tooOften.code).toBe(2)
    expect(tooOften.stderr).toContain("--permissions-every")

    const added = await admin(["connectors", "add", "--kind", "CONFLUENCE", "--key", "wiki", "--space", "docs", "--trust", "--deployment", "cloud",
      "--base-url", site.baseUrl, "--spaces", "ENG", "--email", AUTH.email, "--credential-stdin", "--permissions-every", "10m", "--permission-max-age", "1d", "--json"], AUTH.apiToken)
    expect(added.code, added.stderr).toBe(0)
    expect(added.json()).toMatchObject({
      sourceSystem: "CONFLUENCE", credentialSet: true, identityTrust: "TRUSTED", permissionSyncIntervalSeconds: 600, permissionMaxAgeSeconds: 86400,
      sourceConfig: { deployment: "CLOUD", baseUrl: site.baseUrl, spaces: ["ENG"] }
    })
    expect(added.stdout + added.stderr).not.toContain(AUTH.apiToken)

    const tested = await admin(["connectors", "test", "wiki", "--kind", "CONFLUENCE", "--json"])
    expect(tested.code, tested.stderr).toBe(0)
    expect(tested.json()).toMatchObject({ authenticated: true })

    const crawled = await admin(["connectors", "crawl", "wiki", "--kind", "CONFLUENCE", "--json"])
    expect(crawled.code, crawled.stderr).toBe(0)
    expect(crawled.json().recentAttempts.find((a: { component: string }) => a.component === "content")).toMatchObject({ outcome: "SUCCEEDED", objectsMaterialized: 1 })
    const synced = await admin(["connectors", "crawl", "wiki", "--kind", "CONFLUENCE", "--permissions", "--json"])
    expect(synced.code, synced.stderr).toBe(0)
    expect(synced.json().recentAttempts.filter((a: { component: string }) => a.component === "permissions").length).toBeGreaterThanOrEqual(1)

    const edited = await admin(["connectors", "edit", "wiki", "--kind", "CONFLUENCE", "--permissions-every", "0", "--json"])
    expect(edited.code, edited.stderr).toBe(0)
    expect(edited.json()).toMatchObject({ permissionSyncIntervalSeconds: 0, permissionMaxAgeSeconds: 86400 })
  })
})
