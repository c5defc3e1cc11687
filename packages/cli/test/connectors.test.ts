import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminApi, serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

/**
 * Connectors from the CLI (issue 16, PUSH): an admin adds a PUSH connection, sets its credential from stdin and
 * trusts it; a CI job pushes a folder with an ACL naming a source user; only the Lore user mapped to that
 * principal finds the documents.
 */

const SECRET = "push-secret-0123456789abcdefXYZ"
let server: ServedLore
let home: string
const users: Record<string, { id: string; token: string }> = {}
const admin = (args: ReadonlyArray<string>, input?: string) => lore(args, { env: { XDG_CONFIG_HOME: home }, ...(input === undefined ? {} : { input }) })
const ok = async (pending: ReturnType<typeof lore>) => {
  const result = await pending
  expect(result.code, `${result.stderr}${result.stdout}`).toBe(0)
  return result
}
const hits = async (who: string, words: string) => {
  const result = await ok(lore(["search", words, "--json"], { env: { LORE_SERVER: server.url, LORE_TOKEN: users[who]!.token } }))
  return JSON.stringify(result.json().evidence ?? [])
}

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  home = newConfigHome()
  const api = adminApi(server)
  const departmentId = (await (await api("POST", "/api/admin/departments", { name: "Sales" })).json()).id
  const space = await (await api("POST", "/api/admin/knowledge-spaces", { key: "crm", name: "CRM" })).json()
  expect((await api("POST", `/api/admin/knowledge-spaces/${space.id}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
  for (const name of ["ann", "bob"]) {
    const invitation = await (await api("POST", "/api/admin/invitations", { email: `${name}@example.com`, departmentId })).json()
    const accepted = await (await fetch(`${server.url}/api/invitations/accept`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: invitation.invitationCode })
    })).json()
    users[name] = { id: accepted.user.id, token: accepted.token.token }
  }
  await ok(admin(["login", "--server", server.url, "--token", server.adminToken]))
}, 120_000)
afterAll(async () => {
  await server?.stop()
})

describe("lore connectors, principals, connections and push", () => {
  it("adds a PUSH connection, pushes a folder with an ACL, maps the principal, and only the mapped user finds it", { timeout: 180_000 }, async () => {
    expect((await ok(admin(["connectors", "kinds", "--json"]))).json().map((k: { sourceSystem: string }) => k.sourceSystem)).toContain("PUSH")
    const missing = await admin(["connectors", "add", "--key", "crm"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--space")
    const added = (await ok(admin(["connectors", "add", "--kind", "PUSH", "--key", "crm", "--space", "crm", "--json"]))).json()
    expect(added).toMatchObject({ sourceSystem: "PUSH", sourceConnectionKey: "crm", identityTrust: "UNTRUSTED", credentialSet: false })

    const noCredential = await admin(["connectors", "credential", "crm"])
    expect(noCredential.code).toBe(2)
    expect(noCredential.stderr).toContain("--credential-stdin")
    await ok(admin(["connectors", "credential", "crm", "--credential-stdin"], SECRET))
    const listed = await ok(admin(["connectors", "list", "--json"]))
    expect(listed.json()).toEqual([expect.objectContaining({ sourceConnectionKey: "crm", credentialSet: true })])
    expect(listed.stdout).not.toContain(SECRET)
    expect((await ok(admin(["connectors", "test", "crm", "--json"]))).json()).toMatchObject({ authenticated: true })
    expect((await ok(admin(["connections", "trust", "crm", "--json"]))).json()).toMatchObject({ identityTrust: "TRUSTED" })
    expect((await ok(admin(["connectors", "scopes", "crm", "--json"]))).json()).toEqual([expect.objectContaining({ key: "documents", reachable: true })])
    expect((await ok(admin(["connectors", "edit", "crm", "--description", "CRM notes", "--json"]))).json())
      .toMatchObject({ identityTrust: "TRUSTED", credentialSet: true, sourceConfig: { description: "CRM notes" } })
    // Settings and the schedule: --set (JSON when it parses), --every (a duration); a field the kind refuses is 422 (exit 6).
    expect((await ok(admin(["connectors", "edit", "crm", "--set", "description=Quarterly CRM notes", "--every", "6h", "--json"]))).json())
      .toMatchObject({ sourceConfig: { description: "Quarterly CRM notes" }, contentCrawlIntervalSeconds: 21600, crawlEnabled: true })
    const refusedSetting = await admin(["connectors", "edit", "crm", "--set", "baseUrl=https://x.example", "--json"])
    expect(refusedSetting.code).toBe(6)
    expect(refusedSetting.stdout).toContain("sourceConfig.baseUrl")
    expect((await admin(["connectors", "edit", "crm", "--every", "soon"])).code).toBe(2)
    expect((await ok(admin(["connectors", "edit", "crm", "--every", "0", "--json"]))).json()).toMatchObject({ contentCrawlIntervalSeconds: 0, crawlEnabled: false })

    const folder = mkdtempSync(join(tmpdir(), "lore-push-"))
    mkdirSync(join(folder, "accounts"))
    writeFileSync(join(folder, "accounts", "zanzibar.md"), "# Zanzibar account\n\nThe Zanzibar account renews its quinoa contract every spring with a discount.\n")
    writeFileSync(join(folder, "notes.txt"), "Meeting notes: the Zanzibar quinoa shipment leaves the harbour on Tuesdays.\n")
    writeFileSync(join(folder, ".hidden"), "not pushed")
    const push = (input?: string) =>
      lore(["push", folder, "--connection", "crm", "--acl-user", "ann@corp.example", "--json", ...(input === undefined ? [] : ["--credential-stdin"])],
        { env: { LORE_SERVER: server.url, ...(input === undefined ? { LORE_CONNECTOR_CREDENTIAL: SECRET } : {}) }, ...(input === undefined ? {} : { input }) })
    const first = (await ok(push())).json()
    expect(first).toMatchObject({ connection: "crm", files: 2, counts: { MATERIALIZED: 2, UNCHANGED: 0 }, failed: [] })
    expect(first.results.map((r: { externalId: string }) => r.externalId)).toEqual(["accounts/zanzibar.md", "notes.txt"])
    expect((await ok(push(SECRET))).json().counts).toMatchObject({ UNCHANGED: 2 })
    const wrong = await push("wrong-secret-0123456789abcdefXYZ")
    expect(wrong.code).toBe(3)

    const principals = (await ok(admin(["principals", "list", "--json"]))).json()
    expect(principals).toEqual([expect.objectContaining({ nativePrincipalId: "ann@corp.example", kind: "SOURCE_USER", sourceConnectionKey: "crm" })])
    const mapped = (await ok(admin(["principals", "map", "ann@corp.example", "ann@example.com", "--connection", "crm", "--json"]))).json()
    expect(mapped.mapping).toMatchObject({ appUserId: users.ann!.id, method: "MANUAL", status: "ACTIVE" })

    let found = ""
    for (let attempt = 0; attempt < 60 && !found.includes("Zanzibar"); attempt++) {
      found = await hits("ann", "Zanzibar quinoa")
      if (!found.includes("Zanzibar")) await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    expect(found).toContain("Zanzibar")
    expect(await hits("bob", "Zanzibar quinoa")).not.toContain("Zanzibar")

    const activity = (await ok(admin(["connectors", "activity", "crm", "--json"]))).json()
    expect(activity).toMatchObject({ sourceSystem: "PUSH", sourceConnectionKey: "crm", objectsActive: 2 })

    // --delete-missing mirrors the folder: a file removed locally is retired; an empty folder is refused.
    rmSync(join(folder, "notes.txt"))
    const mirrored = (await ok(lore(["push", folder, "--connection", "crm", "--acl-user", "ann@corp.example", "--delete-missing", "--json"],
      { env: { LORE_SERVER: server.url, LORE_CONNECTOR_CREDENTIAL: SECRET } }))).json()
    expect(mirrored.counts).toMatchObject({ UNCHANGED: 1, RETIRED: 1 })
    expect(mirrored.results).toContainEqual(expect.objectContaining({ externalId: "notes.txt", outcome: "RETIRED" }))
    expect((await ok(admin(["connectors", "activity", "crm", "--json"]))).json()).toMatchObject({ objectsActive: 1, objectsArchived: 1 })
    const empty = mkdtempSync(join(tmpdir(), "lore-push-empty-"))
    const refusedEmpty = await lore(["push", empty, "--connection", "crm", "--delete-missing"], { env: { LORE_SERVER: server.url, LORE_CONNECTOR_CREDENTIAL: SECRET } })
    expect(refusedEmpty.code).toBe(2)
    expect(refusedEmpty.stderr).toContain("--delete-missing would retire every document")

    expect((await ok(admin(["principals", "unmap", "ann@corp.example", "--json"]))).json().mapping).toBeNull()
    expect(await hits("ann", "Zanzibar quinoa")).not.toContain("Zanzibar")

    const refused = await admin(["connectors", "rm", "crm"])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("--yes")
    await ok(admin(["connectors", "rm", "crm", "--yes"]))
    expect((await ok(admin(["connectors", "list", "--json"]))).json()).toEqual([])
  })

  it("adds a GIT connection with its settings as JSON; its credential may be { username, token }", { timeout: 120_000 }, async () => {
    const settings = { repository: "https://git.example.com/team/handbook.git", branch: "main", paths: ["docs"], readers: { users: [{ id: "u-ann", email: "ann@example.com" }] } }
    const added = (await ok(admin(["connectors", "add", "--kind", "GIT", "--key", "handbook", "--space", "crm", "--trust", "--config", JSON.stringify(settings), "--json"]))).json()
    expect(added).toMatchObject({ sourceSystem: "GIT", sourceConnectionKey: "handbook", identityTrust: "TRUSTED", sourceConfig: settings })
    const invalid = await admin(["connectors", "add", "--kind", "GIT", "--key", "x", "--space", "crm", "--config", JSON.stringify({ repository: "ftp://example.com/x" }), "--json"])
    expect(invalid.code).toBe(6)
    expect(invalid.stdout + invalid.stderr).toContain("sourceConfig.repository")
    const edited = (await ok(admin(["connectors", "edit", "handbook", "--kind", "GIT", "--set", "paths=[\"docs\",\"guides\"]", "--json"]))).json()
    expect(edited).toMatchObject({ identityTrust: "TRUSTED", sourceConfig: { ...settings, paths: ["docs", "guides"] } })
    await ok(admin(["connectors", "credential", "handbook", "--kind", "GIT", "--credential-stdin"], JSON.stringify({ username: "oauth2", token: "git-token-value-0123" })))
    const listed = await ok(admin(["connectors", "list", "--kind", "GIT", "--json"]))
    expect(listed.json()).toEqual([expect.objectContaining({ sourceConnectionKey: "handbook", credentialSet: true })])
    expect(listed.stdout).not.toContain("git-token-value-0123")
    await ok(admin(["connectors", "rm", "handbook", "--kind", "GIT", "--yes"]))
  })
})
