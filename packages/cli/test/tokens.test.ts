import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedLore, serveLore } from "./support/serve"
import { ANSI, closedPort, ensureBuilt, lore, newConfigHome } from "./support/cli"

let server: ServedLore
let home: string
const env = () => ({ XDG_CONFIG_HOME: home })

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  home = newConfigHome()
  const login = await lore(["login", "--server", server.url, "--token", server.adminToken], { env: env() })
  expect(login.code, login.stderr).toBe(0)
})
afterAll(() => server?.stop())

describe("lore tokens", () => {
  it("create prints the secret once, list shows it, revoke makes it fail with exit 3", async () => {
    const created = await lore(["tokens", "create", "ci pipeline", "--expires-in-days", "7", "--json"], { env: env() })
    expect(created.code, created.stderr).toBe(0)
    const issued = created.json()
    expect(issued).toMatchObject({ name: "ci pipeline", status: "ACTIVE" })
    expect(issued.token).toMatch(/^lore_pat_/)
    const days = (Date.parse(issued.expiresAt) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(6.9)
    expect(days).toBeLessThanOrEqual(7)

    const works = await lore(["whoami", "--json"], { env: { ...env(), LORE_TOKEN: issued.token } })
    expect(works.code, works.stderr).toBe(0)

    const listed = await lore(["tokens", "list", "--json"], { env: env() })
    expect(listed.code).toBe(0)
    const tokens = listed.json() as Array<Record<string, unknown>>
    expect(Array.isArray(tokens)).toBe(true)
    expect(tokens.find((t) => t.id === issued.id)).toMatchObject({ name: "ci pipeline", status: "ACTIVE", tokenPrefix: expect.any(String) })
    expect(listed.stdout).not.toContain(issued.token)

    const revoked = await lore(["tokens", "revoke", issued.id, "--json"], { env: env() })
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.json()).toEqual({ id: issued.id, revoked: true })

    const after = (await lore(["tokens", "list", "--json"], { env: env() })).json() as Array<Record<string, unknown>>
    expect(after.find((t) => t.id === issued.id)?.status).toBe("REVOKED")

    const rejected = await lore(["whoami", "--json"], { env: { ...env(), LORE_TOKEN: issued.token } })
    expect(rejected.code).toBe(3)
    const { error } = rejected.json()
    expect(error).toMatchObject({ status: 401, code: expect.stringMatching(/^[A-Z_]+$/) })
    expect(typeof error.detail).toBe("string")
    expect(error.requestId).toEqual(expect.any(String))
    expect(rejected.stderr).toBe("")
  })

  it("--no-expiry makes a token that never expires; without either flag the server's default applies", async () => {
    const forever = (await lore(["tokens", "create", "forever", "--no-expiry", "--json"], { env: env() })).json()
    expect(forever.expiresAt).toBeNull()
    const standard = (await lore(["tokens", "create", "standard", "--json"], { env: env() })).json()
    expect(standard.expiresAt).not.toBeNull()
  })

  it("prints a plain table and the one-time secret without escape codes when piped", async () => {
    const created = await lore(["tokens", "create", "plain output"], { env: { ...env(), FORCE_COLOR: "1" } })
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).not.toMatch(ANSI)
    expect(created.stdout).toMatch(/lore_pat_\S+/)
    const list = await lore(["tokens", "list"], { env: env() })
    const [header, ...rows] = list.stdout.trimEnd().split("\n")
    expect(header).toMatch(/^ID\s+NAME\s+PREFIX\s+STATUS\s+CREATED\s+EXPIRES\s+LAST USED$/)
    expect(rows.some((row) => row.includes("plain output"))).toBe(true)
    // columns line up: every row's STATUS starts where the header's does
    const statusAt = header!.indexOf("STATUS")
    for (const row of rows) expect(row.slice(statusAt)).toMatch(/^(ACTIVE|EXPIRED|REVOKED)/)
  })

  it("revoking an unknown token is not found (exit 5)", async () => {
    const result = await lore(["tokens", "revoke", "00000000-0000-4000-8000-000000000000", "--json"], { env: env() })
    expect(result.code).toBe(5)
    expect(result.json().error).toMatchObject({ status: 404 })
  })
})

describe("usage errors and failures", () => {
  const usage = [
    ["tokens", "create"],
    ["tokens", "create", "x", "--expires-in-days", "0"],
    ["tokens", "create", "x", "--expires-in-days", "abc"],
    ["tokens", "create", "x", "--expires-in-days", "5", "--no-expiry"],
    ["tokens", "revoke", "not-a-uuid"],
    ["whoami", "--bogus"],
    ["no-such-command"],
    ["tokens", "lsit"],
    ["status", "--server", "not a url"]
  ]
  it.each(usage)("exit 2 for %j", async (...args) => {
    const human = await lore(args, { env: env() })
    expect(human.code).toBe(2)
    expect(human.stdout).toBe("")
    expect(human.stderr).toMatch(/error: |Usage: /)
  })

  it("a usage error points to the help of the command that refused it, not the program's (issue 10.7)", async () => {
    for (const [args, help] of [
      [["tokens", "create", "x", "--expires-in-days", "0"], "lore tokens create --help"],
      [["tokens", "create"], "lore tokens create --help"],
      [["tokens", "revoke", "not-a-uuid"], "lore tokens revoke --help"],
      [["admin", "users", "update", "a@b.c", "--bogus"], "lore admin users update --help"],
      [["admin", "users", "update", "a@b.c"], "lore admin users update --help"],
      [["tokens", "lsit"], "lore tokens --help"],
      [["no-such-command"], "lore --help"]
    ] as const) {
      const result = await lore([...args], { env: env() })
      expect(result.code, args.join(" ")).toBe(2)
      expect(result.stderr, args.join(" ")).toContain(`See '${help}'.`)
    }
  })

  it("a group with no subcommand runs its list: lore --json tokens prints the tokens as JSON (issue 10.7)", async () => {
    const result = await lore(["--json", "tokens"], { env: env() })
    expect(result.code, result.stderr).toBe(0)
    const tokens = result.json() as Array<{ name: string }>
    expect(tokens.map((token) => token.name)).toContain("bootstrap")
    const plain = await lore(["tokens"], { env: env() })
    expect(plain.stdout).toMatch(/^ID\s+NAME\s+PREFIX\s+STATUS/)
  })

  it("--json reports a usage error as one JSON document on stdout", async () => {
    const result = await lore(["tokens", "create", "--json"], { env: env() })
    expect(result.code).toBe(2)
    expect(result.json()).toEqual({ error: { status: 0, code: "USAGE_ERROR", detail: expect.stringContaining("name"), requestId: null, errors: [] } })
  })

  it("exits 7 when the server is unreachable", async () => {
    const port = await closedPort()
    const human = await lore(["status", "--server", `http://127.0.0.1:${port}`], { env: env() })
    expect(human.code).toBe(7)
    expect(human.stderr).toMatch(/^error: .*\(code NETWORK_ERROR/)
    const json = await lore(["whoami", "--json"], { env: { ...env(), LORE_SERVER: `http://127.0.0.1:${port}`, LORE_TOKEN: "lore_pat_x" } })
    expect(json.code).toBe(7)
    expect(json.json().error).toMatchObject({ status: 0, code: "NETWORK_ERROR" })
  })

  it("--help lists the exit codes and exits 0", async () => {
    const result = await lore(["--help"])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("Exit codes:")
    expect(result.stdout).toMatch(/7\s+server unreachable/)
  })
})
