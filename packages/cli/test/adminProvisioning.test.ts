import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

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
    expect(added).toMatchObject({ alias: "okta", operationalState: "DISABLED", providerProfile: "OKTA" })
    const missing = await admin(["admin", "provisioning", "add", "x"])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("--provider")

    const issued = (await ok(admin(["admin", "provisioning", "issue", "okta", "--json"]))).json()
    expect(issued.token).toMatch(/^lore_scim_/)
    expect(await scimStatus(issued.token)).toBe(403)
    expect((await ok(admin(["admin", "provisioning", "enable", "okta", "--json"]))).json().operationalState).toBe("ENABLED")
    expect(await scimStatus(issued.token)).toBe(200)

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
