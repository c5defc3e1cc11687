import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serveLore, type ServedLore } from "./support/serve"
import { closedPort, ensureBuilt, lore, newConfigHome } from "./support/cli"

// Hints a new user acts on (issue 33.6): `lore status` against a stopped server says where it looked and how to
// start one; `connectors add` says whether the kind needs a credential, and can make one.

let server: ServedLore
const env = () => ({ XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: server.url, LORE_TOKEN: server.adminToken })

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
})
afterAll(async () => {
  await server?.stop()
})

describe("hints", { timeout: 240_000 }, () => {
  it("lore status with the server down asks whether it runs there, and names lore serve", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`
    const down = await lore(["status"], { env: { XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: url } })
    expect(down.code).toBe(7)
    expect(down.stderr).toContain(`is the server running at ${url}? (lore serve starts one)`)
    const json = await lore(["--json", "status"], { env: { XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: url } })
    expect(json.json().error).toMatchObject({ status: 0, errors: [], detail: expect.stringContaining("lore serve starts one") })
  })

  it("connector kinds say whether a credential is REQUIRED, OPTIONAL or NONE", async () => {
    const kinds = (await lore(["--json", "connectors", "kinds"], { env: env() })).json()
    const byKind = Object.fromEntries(kinds.map((k: any) => [k.sourceSystem, k.credentialRequirement]))
    expect(byKind).toMatchObject({ PUSH: "REQUIRED", WEB: "OPTIONAL", GIT: "OPTIONAL" })
    for (const kind of kinds) expect(["REQUIRED", "OPTIONAL", "NONE"]).toContain(kind.credentialRequirement)
  })

  it("connectors add: a REQUIRED credential's next step names --generate-credential, which makes one of 32 random bytes, shown once", async () => {
    const plain = await lore(["connectors", "add", "--kind", "PUSH", "--key", "crm", "--space", "general"], { env: env() })
    expect(plain.code, plain.stderr).toBe(0)
    const said = plain.stdout + plain.stderr
    expect(said).toContain("Next: set its credential")
    expect(said).toContain("--generate-credential")
    expect(said).toMatch(/24 to 4096 characters/)

    const made = await lore(["--json", "connectors", "add", "--kind", "PUSH", "--key", "erp", "--space", "general", "--generate-credential"], { env: env() })
    expect(made.code, made.stderr).toBe(0)
    const saved = made.json()
    expect(saved).toMatchObject({ sourceConnectionKey: "erp", credentialSet: true })
    expect(saved.credential).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(saved.credential, "base64url")).toHaveLength(32)
    // The credential works: the indexing API takes it, and the server never shows it again.
    const pushed = await fetch(`${server.url}/api/indexing/PUSH/erp/documents?limit=1`, { headers: { authorization: `Bearer ${saved.credential}` } })
    expect(pushed.status).toBe(200)
    const listed = await lore(["--json", "connectors", "list", "--kind", "PUSH"], { env: env() })
    expect(listed.stdout).not.toContain(saved.credential)
    const again = (await lore(["--json", "connectors", "add", "--kind", "PUSH", "--key", "ops", "--space", "general", "--generate-credential"], { env: env() })).json()
    expect(again.credential).not.toBe(saved.credential)

    // An OPTIONAL credential is offered, not asked for.
    const web = await lore(["connectors", "add", "--kind", "WEB", "--key", "handbook", "--space", "general", "--set", "baseUrl=https://handbook.example.com/"], { env: env() })
    expect(web.code, web.stderr).toBe(0)
    expect(web.stdout + web.stderr).not.toContain("Next: set its credential")
    expect(web.stdout + web.stderr).toContain("Optional: a credential")

    // Tables name spaces by key, not by id.
    const table = await lore(["connectors", "list"], { env: env() })
    expect(table.stdout).toMatch(/handbook.*general/)
    expect(table.stdout).not.toContain(saved.knowledgeSpaceId)
  })
})
