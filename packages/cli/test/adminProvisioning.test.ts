import { spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serveLore, type ServedLore } from "./support/serve"
import { binary, ensureBuilt, lore, newConfigHome } from "./support/cli"

let server: ServedLore
let home: string
const admin = (args: ReadonlyArray<string>) => lore(args, { env: { XDG_CONFIG_HOME: home } })
const ok = async (pending: ReturnType<typeof lore>) => {
  const result = await pending
  expect(result.code, `${result.stderr}${result.stdout}`).toBe(0)
  return result
}
const scimStatus = async (token: string) =>
  (await fetch(`${server.url}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } })).status

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  home = newConfigHome()
  await ok(admin(["login", "--server", server.url, "--token", server.adminToken]))
})
afterAll(async () => {
  await server?.stop()
})

describe("lore admin provisioning", () => {
  it("adds, enables, issues, rotates and revokes; the tokens work against /scim/v2 accordingly", async () => {
    const added = (await ok(admin(["admin", "provisioning", "add", "okta", "--provider", "okta", "--json"]))).json()
    expect(added).toMatchObject({ alias: "okta", operationalState: "DISABLED", providerProfile: "OKTA", linkExistingUsers: false })
    const missing = await admin(["admin", "provisioning", "add", "x"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--provider")

    const issued = (await ok(admin(["admin", "provisioning", "issue", "okta", "--json"]))).json()
    expect(issued.token).toMatch(/^lore_scim_/)
    expect(await scimStatus(issued.token)).toBe(403)
    expect((await ok(admin(["admin", "provisioning", "enable", "okta", "--json"]))).json().operationalState).toBe("ENABLED")
    expect(await scimStatus(issued.token)).toBe(200)
    // linkExistingUsers changes only when a flag says so.
    expect((await ok(admin(["admin", "provisioning", "enable", "okta", "--link-existing-users", "--json"]))).json().linkExistingUsers).toBe(true)
    expect((await ok(admin(["admin", "provisioning", "enable", "okta", "--json"]))).json().linkExistingUsers).toBe(true)
    expect((await ok(admin(["admin", "provisioning", "enable", "okta", "--no-link-existing-users", "--json"]))).json().linkExistingUsers).toBe(false)

    const listed = await ok(admin(["admin", "provisioning", "list"]))
    expect(listed.stdout).toMatch(/okta\s+OKTA\s+enabled/)
    const rotated = (await ok(admin(["admin", "provisioning", "rotate", "okta", issued.credentialId, "--overlap-hours", "1", "--json"]))).json()
    expect(rotated.replacesCredentialId).toBe(issued.credentialId)
    expect(await scimStatus(issued.token)).toBe(200)
    expect(await scimStatus(rotated.token)).toBe(200)

    const credentials = (await ok(admin(["admin", "provisioning", "credentials", "okta", "--json"]))).json()
    expect(credentials).toHaveLength(2)
    expect(JSON.stringify(credentials)).not.toContain(rotated.token)
    await ok(admin(["admin", "provisioning", "revoke", "okta", issued.credentialId]))
    expect(await scimStatus(issued.token)).toBe(401)
    expect(await scimStatus(rotated.token)).toBe(200)

    expect((await ok(admin(["admin", "provisioning", "disable", "okta", "--json"]))).json().operationalState).toBe("DISABLED")
    expect(await scimStatus(rotated.token)).toBe(403)
    const unknown = await admin(["admin", "provisioning", "enable", "nope"])
    expect(unknown.code).toBe(5)
  })
})

describe("lore admin sso", () => {
  it("shows and sets the provider, the secret only from stdin and never shown", async () => {
    expect((await ok(admin(["admin", "sso", "--json"]))).json()).toMatchObject({ enabled: false, version: 0, clientSecretSet: false })
    const first = await admin(["admin", "sso", "set", "--enable"])
    expect(first.code).toBe(2)
    expect(first.stderr).toContain("--issuer")
    const set = await lore(["admin", "sso", "set", "--issuer", "https://login.example.com", "--client-id", "lore", "--client-secret-stdin", "--enable", "--json"],
      { env: { XDG_CONFIG_HOME: home }, input: "very-secret-client-secret" })
    expect(set.code, set.stderr).toBe(0)
    expect(set.json()).toMatchObject({ enabled: true, issuer: "https://login.example.com", clientId: "lore", clientSecretSet: true, version: 1 })
    expect(set.stdout).not.toContain("very-secret-client-secret")
    const shown = await ok(admin(["admin", "sso", "show"]))
    expect(shown.stdout).toContain("set (write-only)")
    expect((await ok(admin(["admin", "sso", "set", "--jit", "--json"]))).json()).toMatchObject({ justInTimeCreation: true, version: 2, clientSecretSet: true })
  })
})

describe("lore login --sso", () => {
  it("prints the sign-in URL and saves the token the server redirects to its loopback listener", async () => {
    const token = (await fetch(`${server.url}/api/me/tokens`, {
      method: "POST", headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" }, body: JSON.stringify({ name: "as if from sso" })
    }).then((r) => r.json())).token as string
    const fresh = newConfigHome()
    const child = spawn(process.execPath, [binary, "login", "--sso", "--no-browser", "--server", server.url, "--json"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", XDG_CONFIG_HOME: fresh, LORE_SSO_TIMEOUT_MS: "20000" }, stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c))
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding("utf8").on("data", (c: string) => {
        stderr += c
        const found = /(http:\/\/\S+\/api\/session\/sso\/start\S*)/.exec(stderr)
        if (found) resolve(found[1]!)
      })
      child.on("close", () => reject(new Error(`exited before printing the URL: ${stderr}`)))
    })
    const cliRedirect = new URL(url).searchParams.get("cliRedirect")!
    expect(cliRedirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?nonce=[0-9a-f]{32}$/)
    // What the server's callback does at the end of a browser sign-in: redirect to the listener with a token.
    const wrongNonce = await fetch(cliRedirect.replace(/nonce=[0-9a-f]+/, "nonce=0000") + `&token=${token}`)
    expect(wrongNonce.status).toBe(404)
    const page = await fetch(`${cliRedirect}&token=${encodeURIComponent(token)}`)
    expect(page.status).toBe(200)
    expect(await exited).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ server: server.url, user: { email: expect.any(String) } })
    const whoami = await lore(["whoami", "--json"], { env: { XDG_CONFIG_HOME: fresh } })
    expect(whoami.code, whoami.stderr).toBe(0)
  })
})
