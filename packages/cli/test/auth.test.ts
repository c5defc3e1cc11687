import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ServedLore, serveLore } from "./support/serve"
import { ANSI, ensureBuilt, lore, newConfigHome } from "./support/cli"

let server: ServedLore
let home: string
const env = () => ({ XDG_CONFIG_HOME: home })
const configFile = () => join(home, "lore", "config.json")
const readConfig = () => JSON.parse(readFileSync(configFile(), "utf8"))

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
})
afterAll(() => server?.stop())
beforeEach(() => {
  home = newConfigHome()
})

const login = async (extra: ReadonlyArray<string> = []) => {
  const result = await lore(["login", "--server", server.url, "--token", server.adminToken, ...extra], { env: env() })
  expect(result.code, result.stderr).toBe(0)
  return result
}

describe("lore login / whoami / logout", () => {
  it("verifies the token, saves the profile 0600 in a 0700 directory, and whoami --json returns the caller", async () => {
    const loggedIn = await login(["--json"])
    expect(loggedIn.json()).toMatchObject({ profile: "default", server: server.url, user: { email: "admin@lore.local" } })
    expect(loggedIn.stdout).not.toContain(server.adminToken)

    expect(statSync(configFile()).mode & 0o777).toBe(0o600)
    expect(statSync(join(home, "lore")).mode & 0o777).toBe(0o700)
    expect(readConfig().profiles.default).toMatchObject({ server: server.url, token: server.adminToken })

    const whoami = await lore(["whoami", "--json"], { env: env() })
    expect(whoami.code, whoami.stderr).toBe(0)
    const me = whoami.json()
    expect(me).toMatchObject({ authenticated: true, email: "admin@lore.local", role: "ADMIN" })
    for (const field of ["userId", "organizationId", "departmentId", "departmentName", "name", "clearance", "platformRoles"]) {
      expect(me).toHaveProperty(field)
    }
  })

  it("rejects a bad token with exit 3 and saves nothing", async () => {
    const result = await lore(["login", "--server", server.url, "--token", "lore_pat_not_a_real_token_at_all_000000"], { env: env() })
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/^error: .*nothing was saved.*\(code [A-Z_]+, request id .+\)/)
    expect(() => statSync(configFile())).toThrow()

    // and a later bad login leaves an existing profile untouched
    await login()
    const again = await lore(["login", "--server", server.url, "--token", "lore_pat_still_wrong_0000000000000000"], { env: env() })
    expect(again.code).toBe(3)
    expect(readConfig().profiles.default.token).toBe(server.adminToken)
  })

  it("never prompts without a terminal: login without --token fails naming the flag (exit 2)", async () => {
    for (const extra of [{}, { CI: "1" }]) {
      const result = await lore(["login", "--server", server.url], { env: { ...env(), ...extra } })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain("pass --token")
    }
    const json = await lore(["login", "--server", server.url, "--json"], { env: { ...env(), CI: "true" } })
    expect(json.code).toBe(2)
    expect(json.json().error).toMatchObject({ code: "USAGE_ERROR", status: 0 })
    expect(json.json().error.detail).toContain("pass --token")
  })

  it("reads the token from stdin with --token -", async () => {
    const result = await lore(["login", "--server", server.url, "--token", "-"], { env: env(), input: `${server.adminToken}\n` })
    expect(result.code, result.stderr).toBe(0)
    expect(readConfig().profiles.default.token).toBe(server.adminToken)
  })

  it("logout removes the token but keeps the server; whoami then exits 3", async () => {
    await login()
    const logout = await lore(["logout", "--json"], { env: env() })
    expect(logout.code).toBe(0)
    expect(logout.json()).toEqual({ profile: "default", server: server.url, loggedOut: true })
    expect(readConfig().profiles.default).toEqual({ server: server.url })
    expect(statSync(configFile()).mode & 0o777).toBe(0o600)

    const whoami = await lore(["whoami", "--json"], { env: env() })
    expect(whoami.code).toBe(3)
    expect(whoami.json().error).toMatchObject({ status: 0, code: "NOT_AUTHENTICATED", requestId: null })

    const twice = await lore(["logout", "--json"], { env: env() })
    expect(twice.json().loggedOut).toBe(false)
  })

  it("keeps named profiles apart and --profile chooses", async () => {
    await login()
    const created = await lore(["tokens", "create", "second profile", "--json"], { env: env() })
    const secondToken: string = created.json().token
    const second = await lore(["login", "--profile", "work", "--server", server.url, "--token", secondToken], { env: env() })
    expect(second.code, second.stderr).toBe(0)
    expect(Object.keys(readConfig().profiles).sort()).toEqual(["default", "work"])
    expect(readConfig().profiles.work.token).toBe(secondToken)

    await lore(["logout"], { env: env() })
    expect((await lore(["whoami"], { env: env() })).code).toBe(3)
    expect((await lore(["whoami", "--profile", "work"], { env: env() })).code).toBe(0)
    expect((await lore(["whoami"], { env: { ...env(), LORE_PROFILE: "work" } })).code).toBe(0)
  })
})

describe("LORE_SERVER / LORE_TOKEN", () => {
  it("work without any saved profile", async () => {
    const result = await lore(["whoami", "--json"], { env: { ...env(), LORE_SERVER: server.url, LORE_TOKEN: server.adminToken } })
    expect(result.code, result.stderr).toBe(0)
    expect(result.json().email).toBe("admin@lore.local")
  })

  it("override the saved profile", async () => {
    await login()
    const badToken = await lore(["whoami", "--json"], { env: { ...env(), LORE_TOKEN: "lore_pat_overridden_0000000000000000000" } })
    expect(badToken.code).toBe(3)
    expect(badToken.json().error).toMatchObject({ status: 401 })

    const status = await lore(["status", "--json"], { env: { ...env(), LORE_TOKEN: server.adminToken } })
    expect(status.json()).toMatchObject({ credentials: "env", authenticated: true })
  })

  it("a saved token is never sent to another server", async () => {
    await login()
    const other = server.url.replace("127.0.0.1", "localhost")
    const viaFlag = await lore(["whoami", "--server", other], { env: env() })
    expect(viaFlag.code).toBe(3)
    expect(viaFlag.stderr).toContain("not logged in")
    const viaEnv = await lore(["status", "--json"], { env: { ...env(), LORE_SERVER: other } })
    expect(viaEnv.code, viaEnv.stderr).toBe(0)
    expect(viaEnv.json()).toMatchObject({ server: other, serverSource: "env", credentials: "none", authenticated: false })
  })
})

describe("lore status", () => {
  it("works without login, showing health only", async () => {
    const result = await lore(["status", "--json", "--server", server.url], { env: env() })
    expect(result.code, result.stderr).toBe(0)
    const status = result.json()
    expect(status).toMatchObject({ profile: "default", server: server.url, authenticated: false, user: null, credentials: "none" })
    expect(typeof status.health.status).toBe("string")
    // test/support/serve.ts runs the server on PostgreSQL when the test run has DATABASE_URL.
    expect(status.health.database).toBe(process.env.DATABASE_URL ? "postgresql" : "embedded")
  })

  it("shows who you are when logged in, and a rejected token without failing", async () => {
    await login()
    const result = await lore(["status", "--json"], { env: env() })
    expect(result.json()).toMatchObject({ server: server.url, serverSource: "profile", credentials: "profile", authenticated: true, user: { email: "admin@lore.local" } })

    const rejected = await lore(["status", "--json"], { env: { ...env(), LORE_TOKEN: "lore_pat_rejected_000000000000000000000" } })
    expect(rejected.code).toBe(0)
    expect(rejected.json()).toMatchObject({ authenticated: false, authError: { status: 401 } })
  })

  it("does not claim a vector store when the server has no embedding model (issue 10.7)", async () => {
    const json = (await lore(["status", "--json", "--server", server.url], { env: env() })).json()
    expect(json.health).toMatchObject({ embeddingModel: "none", vectorSearch: "off" })
    const plain = await lore(["status", "--server", server.url], { env: env() })
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toMatch(/^Vector search:\s+off: no embedding model, lexical \(BM25\) search only$/m)
    expect(plain.stdout).not.toMatch(/pgvector|exact-cosine/)
    // A hint is for people: stderr, so stdout holds only the result.
    expect(plain.stderr).toContain("Log in: lore login")
    expect(plain.stdout).not.toContain("lore login")
  })

  it("prints plain aligned text without escape codes when piped, even with FORCE_COLOR", async () => {
    await login()
    for (const args of [["status"], ["whoami"], ["tokens", "list"]]) {
      const result = await lore(args, { env: { ...env(), FORCE_COLOR: "1" } })
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).not.toMatch(ANSI)
      expect(result.stdout.length).toBeGreaterThan(0)
    }
    const whoami = await lore(["whoami"], { env: env() })
    expect(whoami.stdout).toMatch(/^Email:\s+admin@lore\.local$/m)
  })
})
