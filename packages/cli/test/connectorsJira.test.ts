import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type JiraSiteModel, startJiraSite } from "../../test-support/jira-site"
import { adminApi, serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

/**
 * The guided Jira setup from the CLI (issue 31): in a script every setting is a flag (`--projects` in place of
 * Confluence's `--spaces`, the rest shared) and the administrator's token comes from stdin; a missing one fails at
 * once naming its flag (no prompt without a terminal).
 */

const AUTH = { email: "jira-admin@example.com", apiToken: "cli-jira-token-0123456789" }
const model: JiraSiteModel = {
  users: new Map([["acc-ann", { id: "acc-ann", email: "ann@example.com", displayName: "Ann" }]]),
  groups: new Map([["staff", new Set(["acc-ann"])]]),
  projects: new Map([["ENG", { key: "ENG", id: "1", name: "Engineering", lead: "acc-ann", schemeReadable: true, browse: [{ type: "group", parameter: "staff" }], roles: new Map() }]]),
  levels: new Map(),
  issues: new Map([["101", {
    id: "101", key: "ENG-1", projectKey: "ENG", summary: "Guide", description: "The zqcliticket.", status: "Open", assignee: null, reporter: "acc-ann",
    labels: [], updated: new Date(Date.now() - 3600_000), securityLevel: null, comments: [], userFields: {}
  }]])
}
let server: ServedLore
let site: Awaited<ReturnType<typeof startJiraSite>>
let home: string
const admin = (args: ReadonlyArray<string>, input?: string) => lore(args, { env: { XDG_CONFIG_HOME: home, CI: "1" }, ...(input === undefined ? {} : { input }) })

beforeAll(async () => {
  ensureBuilt()
  site = await startJiraSite(model, AUTH)
  server = await serveLore({ LORE_ALLOWED_PRIVATE_HOSTS: site.host })
  home = newConfigHome()
  expect((await adminApi(server)("POST", "/api/admin/knowledge-spaces", { key: "eng", name: "Engineering" })).status).toBe(201)
  const login = await admin(["login", "--server", server.url, "--token", server.adminToken])
  expect(login.code, login.stderr).toBe(0)
}, 180_000)
afterAll(async () => {
  await server?.stop()
  await site?.close()
})

describe("lore connectors add --kind JIRA", () => {
  it("takes every setting from flags and the token from stdin, and names a missing flag in CI", { timeout: 240_000 }, async () => {
    const missing = await admin(["connectors", "add", "--kind", "JIRA", "--key", "tickets", "--space", "eng", "--deployment", "CLOUD", "--base-url", site.baseUrl])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--projects")

    const added = await admin(["connectors", "add", "--kind", "JIRA", "--key", "tickets", "--space", "eng", "--trust", "--deployment", "cloud",
      "--base-url", site.baseUrl, "--projects", "ENG", "--email", AUTH.email, "--credential-stdin", "--json"], AUTH.apiToken)
    expect(added.code, added.stderr).toBe(0)
    expect(added.json()).toMatchObject({ sourceSystem: "JIRA", credentialSet: true, identityTrust: "TRUSTED", sourceConfig: { deployment: "CLOUD", baseUrl: site.baseUrl, projects: ["ENG"] } })
    expect(added.stdout + added.stderr).not.toContain(AUTH.apiToken)

    const tested = await admin(["connectors", "test", "tickets", "--kind", "JIRA", "--json"])
    expect(tested.code, tested.stderr).toBe(0)
    expect(tested.json()).toMatchObject({ authenticated: true, canReadContent: true })

    const crawled = await admin(["connectors", "crawl", "tickets", "--kind", "JIRA", "--json"])
    expect(crawled.code, crawled.stderr).toBe(0)
    expect(crawled.json().recentAttempts.find((a: { component: string }) => a.component === "content")).toMatchObject({ outcome: "SUCCEEDED", objectsMaterialized: 1 })
  })
})
