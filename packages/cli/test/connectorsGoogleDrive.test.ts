import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeServiceAccountKey, startWorkspace, type WorkspaceModel } from "../../test-support/google-drive-site"
import { adminApi, serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

/**
 * The guided Google Drive setup from the CLI (issue 30): in a script every setting is a flag and the service account's
 * key JSON comes from stdin or --key-file; a missing setting fails at once naming its flag; the key never shows in output.
 */

const model: WorkspaceModel = {
  domain: "example.com",
  adminSubject: "admin@example.com",
  users: new Map([["admin@example.com", { name: "Admin" }], ["ann@example.com", { name: "Ann" }]]),
  groups: new Map(),
  sharedDrives: new Map([["0ACliSharedDrive01", { name: "Engineering", permissionsReadable: true }]]),
  files: new Map(),
  seq: 1
}
const account = makeServiceAccountKey()
let server: ServedLore
let workspace: Awaited<ReturnType<typeof startWorkspace>>
let home: string
const admin = (args: ReadonlyArray<string>, input?: string) => lore(args, { env: { XDG_CONFIG_HOME: home, CI: "1" }, ...(input === undefined ? {} : { input }) })

beforeAll(async () => {
  ensureBuilt()
  workspace = await startWorkspace(model, account)
  const urls = Object.entries(workspace.connectorBaseUrls).map(([name, url]) => `${name}=${url}`).join(",")
  server = await serveLore({ LORE_ALLOWED_PRIVATE_HOSTS: workspace.host, LORE_CONNECTOR_BASE_URLS: urls })
  home = newConfigHome()
  const api = adminApi(server)
  expect((await api("POST", "/api/admin/knowledge-spaces", { key: "docs", name: "Docs" })).status).toBe(201)
  const login = await admin(["login", "--server", server.url, "--token", server.adminToken])
  expect(login.code, login.stderr).toBe(0)
}, 180_000)
afterAll(async () => {
  await server?.stop()
  await workspace?.close()
})

describe("lore connectors add --kind GOOGLE_DRIVE", () => {
  it("takes every setting from flags and the key JSON from stdin or a file, and names a missing flag in CI", { timeout: 240_000 }, async () => {
    const missing = await admin(["connectors", "add", "--kind", "GOOGLE_DRIVE", "--key", "drive", "--space", "docs", "--users", "ann@example.com"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--admin-subject")
    const notJson = await admin(["connectors", "add", "--kind", "GOOGLE_DRIVE", "--key", "drive", "--space", "docs", "--admin-subject", "admin@example.com", "--credential-stdin"], account.key.private_key)
    expect(notJson.code).toBe(2)
    expect(notJson.stdout + notJson.stderr).not.toContain("PRIVATE KEY")

    const added = await admin(["connectors", "add", "--kind", "GOOGLE_DRIVE", "--key", "drive", "--space", "docs", "--trust", "--admin-subject", "admin@example.com",
      "--shared-drives", "0ACliSharedDrive01", "--users", "ann@example.com", "--credential-stdin", "--permissions-every", "10m", "--json"], JSON.stringify(account.key))
    expect(added.code, added.stderr).toBe(0)
    expect(added.json()).toMatchObject({
      sourceSystem: "GOOGLE_DRIVE", credentialSet: true, identityTrust: "TRUSTED", permissionSyncIntervalSeconds: 600,
      sourceConfig: { adminSubject: "admin@example.com", sharedDrives: ["0ACliSharedDrive01"], users: ["ann@example.com"] }
    })
    expect(added.stdout + added.stderr).not.toContain("PRIVATE KEY")

    const file = join(mkdtempSync(join(tmpdir(), "lore-gd-key-")), "key.json")
    writeFileSync(file, JSON.stringify(account.key))
    const fromFile = await admin(["connectors", "add", "--kind", "GOOGLE_DRIVE", "--key", "drive2", "--space", "docs", "--admin-subject", "admin@example.com", "--shared-drives", "all", "--key-file", file, "--json"])
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(fromFile.json()).toMatchObject({ credentialSet: true, sourceConfig: { adminSubject: "admin@example.com" } })
    expect(fromFile.json().sourceConfig).not.toHaveProperty("sharedDrives")

    const tested = await admin(["connectors", "test", "drive", "--kind", "GOOGLE_DRIVE", "--json"])
    expect(tested.code, tested.stderr).toBe(0)
    expect(tested.json()).toMatchObject({ authenticated: true, canReadContent: true })
  })
})
