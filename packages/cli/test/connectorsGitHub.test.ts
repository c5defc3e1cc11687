import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type GitHubModel, makeAppKey, startGitHub } from "../../test-support/github-site"
import { adminApi, serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

/**
 * The guided GitHub setup from the CLI (issue 31): in a script every setting is a flag and the App's private key comes
 * from a file or stdin (or a token from stdin); a missing setting fails at once naming its flag; no key in output.
 */

const key = makeAppKey()
const model: GitHubModel = {
  org: "acme", appId: 31, installationId: 310, basePermission: "none", users: new Map(), members: new Set(),
  samlEmails: new Map(), verifiedEmails: new Map(), teams: new Map(), repositories: new Map(), clock: 0
}
model.repositories.set("core", { id: 1, name: "core", visibility: "public", defaultBranch: "main", collaborators: new Set(), teams: new Set(), issues: new Map(), discussions: new Map(), files: new Map() })
let server: ServedLore
let github: Awaited<ReturnType<typeof startGitHub>>
let home: string
const admin = (args: ReadonlyArray<string>, input?: string) => lore(args, { env: { XDG_CONFIG_HOME: home, CI: "1" }, ...(input === undefined ? {} : { input }) })

beforeAll(async () => {
  ensureBuilt()
  github = await startGitHub(model, key.publicKeyPem)
  server = await serveLore({ LORE_ALLOWED_PRIVATE_HOSTS: github.host, LORE_CONNECTOR_BASE_URLS: `github=${github.baseUrl},github-graphql=${github.baseUrl}/graphql` })
  home = newConfigHome()
  const api = adminApi(server)
  expect((await api("POST", "/api/admin/knowledge-spaces", { key: "eng", name: "Eng" })).status).toBe(201)
  const login = await admin(["login", "--server", server.url, "--token", server.adminToken])
  expect(login.code, login.stderr).toBe(0)
}, 180_000)
afterAll(async () => {
  await server?.stop()
  await github?.close()
})

describe("lore connectors add --kind GITHUB", () => {
  it("takes every setting from flags and the App's key from a file or stdin, and names a missing flag in CI", { timeout: 240_000 }, async () => {
    const missing = await admin(["connectors", "add", "--kind", "GITHUB", "--key", "code", "--space", "eng", "--owner", "acme"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--repositories")
    const noKey = await admin(["connectors", "add", "--kind", "GITHUB", "--key", "code", "--space", "eng", "--owner", "acme", "--repositories", "core", "--app-id", "31"])
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toContain("--installation-id")

    const file = join(tmpdir(), `lore-gh-${process.pid}.pem`)
    writeFileSync(file, key.privateKeyPem, { mode: 0o600 })
    const added = await admin(["connectors", "add", "--kind", "GITHUB", "--key", "code", "--space", "eng", "--trust", "--owner", "acme", "--repositories", "acme/core",
      "--include", "issues,markdown", "--app-id", "31", "--installation-id", "310", "--private-key-file", file, "--json"])
    expect(added.code, added.stderr).toBe(0)
    expect(added.json()).toMatchObject({ sourceSystem: "GITHUB", credentialSet: true, sourceConfig: { owner: "acme", repositories: ["core"], include: ["ISSUES", "MARKDOWN"] } })
    expect(added.stdout + added.stderr).not.toContain("PRIVATE KEY")
    const tested = await admin(["connectors", "test", "code", "--kind", "GITHUB", "--json"])
    expect(tested.code, tested.stderr).toBe(0)
    expect(tested.json()).toMatchObject({ authenticated: true, canReadContent: true })

    const piped = await admin(["connectors", "add", "--kind", "GITHUB", "--key", "piped", "--space", "eng", "--owner", "acme", "--repositories", "core",
      "--app-id", "31", "--installation-id", "310", "--credential-stdin", "--json"], key.privateKeyPem)
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.json()).toMatchObject({ credentialSet: true, sourceConfig: { include: ["ISSUES", "PULL_REQUESTS", "DISCUSSIONS", "MARKDOWN"] } })
    const badUrl = await admin(["connectors", "add", "--kind", "GITHUB", "--key", "ghes", "--space", "eng", "--owner", "acme", "--repositories", "core", "--github-base-url", "http://10.1.2.3/api/v3"])
    expect(badUrl.code).toBe(6)
    expect(badUrl.stderr).toContain("sourceConfig.baseUrl")
  })
})
