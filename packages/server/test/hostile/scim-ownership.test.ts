import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { enabledConnection, expectScimError, oktaUser, PATCH_OP, scimClient, type ScimCall } from "../provisioning/support"
import { createUser, http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Issue 29, finding 3: a provisioning token claimed the bootstrap administrator by POSTing their email as a
 * userName, then deactivated them. SCIM now manages only what it provisioned: an existing user is linked only
 * where the connection allows it (linkExistingUsers), never an administrator, and SCIM never offboards the
 * organization's last active administrator.
 */
let server: TestServer
let admin: Call
let adminId = ""
let adminEmail = ""
let departmentId = ""
let strict: ScimCall
let linking: ScimCall
/** Every administrator this file makes besides the bootstrap one, so the last-administrator case can switch them off. */
const otherAdministrators: Array<string> = []

const deactivate = (scim: ScimCall, id: string) =>
  scim("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "active", value: false }] })

beforeAll(async () => {
  server = await startTestServer()
  admin = http(server.url, server.adminToken)
  const me = await admin("GET", "/api/me")
  adminId = me.body.userId
  adminEmail = me.body.email
  expect(adminId).toMatch(/^[0-9a-f-]{36}$/)
  departmentId = (await admin("GET", "/api/admin/departments")).body[0].id
  strict = scimClient(server.url, (await enabledConnection(admin, { alias: "strict" })).token)
  linking = scimClient(server.url, (await enabledConnection(admin, { alias: "linking", linkExistingUsers: true })).token)
})
afterAll(() => server?.dispose())

describe("the bootstrap administrator cannot be claimed or offboarded through SCIM", () => {
  it("a POST with the administrator's email as userName or email is 409 uniqueness, whatever the connection allows", async () => {
    for (const scim of [strict, linking]) {
      expectScimError(await scim("POST", "/Users", oktaUser(adminEmail)), 409, "uniqueness")
      expectScimError(await scim("POST", "/Users", oktaUser(adminEmail.toUpperCase())), 409, "uniqueness")
      expectScimError(await scim("POST", "/Users", oktaUser(`other-${Date.now()}@example.com`, { emails: [{ primary: true, value: adminEmail, type: "work" }] })), 409, "uniqueness")
      // A userName that is the administrator's email claims them too, even with another email beside it.
      expectScimError(await scim("POST", "/Users", oktaUser(adminEmail, { emails: [{ primary: true, value: `elsewhere-${Date.now()}@example.com` }] })), 409, "uniqueness")
    }
  })

  it("the administrator is no SCIM user: GET, PATCH, PUT and DELETE of their id are 404", async () => {
    expectScimError(await strict("GET", `/Users/${adminId}`), 404)
    expectScimError(await deactivate(linking, adminId), 404)
    expectScimError(await linking("PUT", `/Users/${adminId}`, oktaUser(adminEmail, { active: false })), 404)
    expectScimError(await linking("DELETE", `/Users/${adminId}`), 404)
    expect((await linking("GET", `/Users?filter=${encodeURIComponent(`userName eq "${adminEmail}"`)}`)).body.totalResults).toBe(0)
  })

  it("the administrator's token still works and their account is unchanged", async () => {
    const me = await admin("GET", "/api/me")
    expect(me.status).toBe(200)
    const listed = (await admin("GET", "/api/admin/users")).body.find((u: any) => u.id === adminId)
    expect(listed.active).toBe(true)
  })
})

describe("existing users are linked only where the connection allows it", () => {
  it("without linkExistingUsers an invited user's email is 409; with it, the user is linked", async () => {
    const invited = await createUser(admin, server.url, { email: `invited-${Date.now()}@example.com`, departmentId })
    const address = (await invited.call("GET", "/api/me")).body.email
    expectScimError(await strict("POST", "/Users", oktaUser(address)), 409, "uniqueness")
    const linked = await linking("POST", "/Users", oktaUser(address))
    expect(linked.status, JSON.stringify(linked.body)).toBe(201)
    expect(linked.body.id).toBe(invited.id)
    // Now another connection's: neither connection may take it again.
    expectScimError(await linking("POST", "/Users", oktaUser(address.toUpperCase(), { externalId: "again" })), 409, "uniqueness")
    expectScimError(await strict("POST", "/Users", oktaUser(address)), 409, "uniqueness")
  })

  it("an administrator is never linked, by role ADMIN or by ORG_ADMIN", async () => {
    const roleAdmin = await createUser(admin, server.url, { email: `role-admin-${Date.now()}@example.com`, departmentId, role: "ADMIN" })
    otherAdministrators.push(roleAdmin.id)
    expectScimError(await linking("POST", "/Users", oktaUser((await roleAdmin.call("GET", "/api/me")).body.email)), 409, "uniqueness")
    const orgAdmin = await createUser(admin, server.url, { email: `org-admin-${Date.now()}@example.com`, departmentId })
    expect((await admin("POST", "/api/admin/roles/ORG_ADMIN/members", { userId: orgAdmin.id })).status).toBe(204)
    otherAdministrators.push(orgAdmin.id)
    expectScimError(await linking("POST", "/Users", oktaUser((await orgAdmin.call("GET", "/api/me")).body.email)), 409, "uniqueness")
  })

  it("the connection's setting is shown, defaults to false and changes with the state body", async () => {
    const connections = (await admin("GET", "/api/admin/provisioning/connections")).body
    const strictConnection = connections.find((c: any) => c.alias === "strict")
    expect(strictConnection.linkExistingUsers).toBe(false)
    expect(connections.find((c: any) => c.alias === "linking").linkExistingUsers).toBe(true)
    const changed = await admin("PATCH", `/api/admin/provisioning/connections/${strictConnection.id}/state`, {
      operationalState: "ENABLED", version: strictConnection.version, linkExistingUsers: true
    })
    expect(changed.status, JSON.stringify(changed.body)).toBe(200)
    expect(changed.body.linkExistingUsers).toBe(true)
    const back = await admin("PATCH", `/api/admin/provisioning/connections/${strictConnection.id}/state`, {
      operationalState: "ENABLED", version: changed.body.version, linkExistingUsers: false
    })
    expect(back.body.linkExistingUsers).toBe(false)
    const kept = await admin("PATCH", `/api/admin/provisioning/connections/${strictConnection.id}/state`, { operationalState: "ENABLED", version: back.body.version })
    expect(kept.body.linkExistingUsers).toBe(false)
  })
})

describe("SCIM offboards administrators it manages, never the last one", () => {
  it("refuses to deactivate or delete the last active administrator with a fixed 403, and allows it once another remains", async () => {
    // Quinn is invited as an employee, linked by the linking connection, then made an administrator.
    const quinn = await createUser(admin, server.url, { email: `quinn-${Date.now()}@example.com`, departmentId })
    const linked = await linking("POST", "/Users", oktaUser((await quinn.call("GET", "/api/me")).body.email))
    expect(linked.status, JSON.stringify(linked.body)).toBe(201)
    expect((await admin("PATCH", `/api/admin/users/${quinn.id}`, { role: "ADMIN" })).status).toBe(200)

    // While the bootstrap administrator is active, SCIM may offboard Quinn (and bring them back).
    const off = await deactivate(linking, quinn.id)
    expect(off.status, JSON.stringify(off.body)).toBe(200)
    expect(off.body.active).toBe(false)
    const on = await linking("PATCH", `/Users/${quinn.id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "active", value: true }] })
    expect(on.status, JSON.stringify(on.body)).toBe(200)

    // Quinn deactivates every other administrator: Quinn is now the last active one.
    for (const other of [...otherAdministrators, adminId]) {
      const otherOff = await quinn.call("PATCH", `/api/admin/users/${other}`, { active: false })
      expect(otherOff.status, JSON.stringify(otherOff.body)).toBe(200)
    }

    const refusals = [
      await deactivate(linking, quinn.id),
      await linking("PUT", `/Users/${quinn.id}`, { ...oktaUser(linked.body.userName), active: false }),
      await linking("DELETE", `/Users/${quinn.id}`)
    ]
    for (const refused of refusals) {
      expectScimError(refused, 403)
      expect(refused.body.detail).toBe("SCIM may not deactivate or delete the organization's last active administrator")
    }
    expect((await quinn.call("GET", "/api/me")).status).toBe(200)
    expect((await linking("GET", `/Users/${quinn.id}`)).body.active).toBe(true)

    // With the bootstrap administrator back, Quinn may go.
    expect((await quinn.call("PATCH", `/api/admin/users/${adminId}`, { active: true })).status).toBe(200)
    const deleted = await linking("DELETE", `/Users/${quinn.id}`)
    expect(deleted.status).toBe(204)
    expect((await quinn.call("GET", "/api/me")).status).toBe(401)
  })
})
