import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"
import { client, ingested, search } from "../knowledge/support"
import { CORE_GROUP, enabledConnection, expectScimError, oktaUser, PATCH_OP, scimClient } from "./support"

/**
 * Provisioning connections and their credentials under /api/admin/provisioning (state, versions, scopes,
 * rotation overlap, revocation), and what SCIM changes in Lore: users, deactivation that stops tokens and
 * sessions at once, groups that knowledge space grants name (kind GROUP), search, explanations, generations.
 */
let server: TestServer
let admin: Call

beforeAll(async () => {
  server = await startTestServer()
  admin = http(server.url, server.adminToken)
})
afterAll(() => server?.dispose())

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const poll = async (check: () => Promise<boolean>, what: string) => {
  const deadline = Date.now() + 15_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not reached`)
    await sleep(50)
  }
}

describe("connections", () => {
  it("start DISABLED; a stale version is 409; DISABLED is 403 and PAUSED 503 to their tokens", async () => {
    const created = await admin("POST", "/api/admin/provisioning/connections", { alias: "entra", providerProfile: "ENTRA_ID", usersEnabled: true, groupsEnabled: true })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({ alias: "entra", providerProfile: "ENTRA_ID", operationalState: "DISABLED", configurationStatus: "NEEDS_CREDENTIAL", version: 1, scimBaseUrl: "/scim/v2" })
    expect((await admin("POST", "/api/admin/provisioning/connections", { alias: "entra", providerProfile: "OKTA", usersEnabled: true, groupsEnabled: true })).body.code).toBe("PROVISIONING_ALIAS_TAKEN")
    const id = created.body.id
    const issued = await admin("POST", `/api/admin/provisioning/connections/${id}/credentials`, { usersScope: true, groupsScope: true })
    expect(issued.status).toBe(201)
    expect(issued.body.token).toMatch(/^lore_scim_[0-9a-f]{16}\./)
    const scim = scimClient(server.url, issued.body.token)
    expectScimError(await scim("GET", "/Users"), 403)

    const paused = await admin("PATCH", `/api/admin/provisioning/connections/${id}/state`, { operationalState: "PAUSED", version: 1 })
    expect(paused.status).toBe(200)
    expect(paused.body.version).toBe(2)
    expect(paused.body.configurationStatus).toBe("CONFIGURED")
    expectScimError(await scim("GET", "/Users"), 503)
    const stale = await admin("PATCH", `/api/admin/provisioning/connections/${id}/state`, { operationalState: "ENABLED", version: 1 })
    expect(stale.status).toBe(409)
    expect(stale.body.code).toBe("VERSION_CONFLICT")
    expect((await admin("PATCH", `/api/admin/provisioning/connections/${id}/state`, { operationalState: "ENABLED", version: 2 })).status).toBe(200)
    expect((await scim("GET", "/Users")).status).toBe(200)
    const listed = await admin("GET", "/api/admin/provisioning/connections")
    expect(listed.body.map((c: any) => c.alias)).toContain("entra")
    expect((await admin("PATCH", `/api/admin/provisioning/connections/00000000-0000-4000-8000-000000000000/state`, { operationalState: "ENABLED", version: 1 })).body.code).toBe("PROVISIONING_CONNECTION_NOT_FOUND")
  })

  it("need provisioning.manage", async () => {
    const departmentId = (await admin("GET", "/api/admin/departments")).body[0].id
    const someone = await createUser(admin, server.url, { email: "nobody-admin@example.com", departmentId })
    expect((await someone.call("GET", "/api/admin/provisioning/connections")).status).toBe(403)
  })
})

describe("credentials", () => {
  it("list without the secret, keep lastUsedAt, and refuse a credential with no scope", async () => {
    const { connection, token, credentialId } = await enabledConnection(admin, { alias: "listing" })
    expect((await scimClient(server.url, token)("GET", "/Users")).status).toBe(200)
    const listed = await admin("GET", `/api/admin/provisioning/connections/${connection.id}/credentials`)
    expect(listed.status).toBe(200)
    expect(JSON.stringify(listed.body)).not.toContain(token.split(".")[1])
    expect(listed.body[0]).toMatchObject({ id: credentialId, verifierKeyVersion: 1, usersScope: true, groupsScope: true, revokedAt: null, overlapEndsAt: null })
    expect(listed.body[0].token).toBeUndefined()
    expect(Date.parse(listed.body[0].lastUsedAt)).toBeGreaterThan(Date.now() - 60_000)
    const none = await admin("POST", `/api/admin/provisioning/connections/${connection.id}/credentials`, { usersScope: false, groupsScope: false })
    expect(none.status).toBe(400)
    expect(none.body.code).toBe("INVALID_PROVISIONING_CREDENTIAL")
  })

  it("rotation: both tokens work until overlapEndsAt, then only the new one", async () => {
    const { connection, token: oldToken, credentialId } = await enabledConnection(admin, { alias: "rotating" })
    const rotated = await admin("POST", `/api/admin/provisioning/connections/${connection.id}/credentials/${credentialId}/rotate`, { overlapSeconds: 2 })
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(201)
    expect(rotated.body.credentialId).not.toBe(credentialId)
    expect(rotated.body.replacesCredentialId).toBe(credentialId)
    const oldScim = scimClient(server.url, oldToken)
    const newScim = scimClient(server.url, rotated.body.token)
    expect((await oldScim("GET", "/Users")).status).toBe(200)
    expect((await newScim("GET", "/Users")).status).toBe(200)
    const listed = (await admin("GET", `/api/admin/provisioning/connections/${connection.id}/credentials`)).body
    const old = listed.find((c: any) => c.id === credentialId)
    expect(Date.parse(old.overlapEndsAt)).toBe(Date.parse(rotated.body.overlapEndsAt))
    await poll(async () => (await oldScim("GET", "/Users")).status === 401, "the old token stops after the overlap")
    expectScimError(await oldScim("GET", "/Users"), 401)
    expect((await newScim("GET", "/Users")).status).toBe(200)
    // A credential that no longer works cannot be rotated.
    const again = await admin("POST", `/api/admin/provisioning/connections/${connection.id}/credentials/${credentialId}/rotate`, {})
    expect(again.body.code).toBe("PROVISIONING_CREDENTIAL_REVOKED")
  })

  it("rotation defaults to a 24-hour overlap", async () => {
    const { connection, credentialId } = await enabledConnection(admin, { alias: "default-overlap" })
    const rotated = await admin("POST", `/api/admin/provisioning/connections/${connection.id}/credentials/${credentialId}/rotate`, {})
    const hours = (Date.parse(rotated.body.overlapEndsAt) - Date.now()) / 3600_000
    expect(hours).toBeGreaterThan(23.9)
    expect(hours).toBeLessThanOrEqual(24)
  })

  it("revocation stops a token at once and keeps it listed with revokedAt", async () => {
    const { connection, token, credentialId } = await enabledConnection(admin, { alias: "revoking" })
    const scim = scimClient(server.url, token)
    expect((await scim("GET", "/Users")).status).toBe(200)
    expect((await admin("DELETE", `/api/admin/provisioning/connections/${connection.id}/credentials/${credentialId}`)).status).toBe(204)
    expectScimError(await scim("GET", "/Users"), 401)
    const listed = (await admin("GET", `/api/admin/provisioning/connections/${connection.id}/credentials`)).body
    expect(listed.find((c: any) => c.id === credentialId).revokedAt).not.toBeNull()
    expect((await admin("DELETE", `/api/admin/provisioning/connections/${connection.id}/credentials/00000000-0000-4000-8000-000000000000`)).body.code).toBe("PROVISIONING_CREDENTIAL_NOT_FOUND")
  })

  it("scopes: a token without usersScope or groupsScope gets 403 on that resource", async () => {
    const groupsOnly = scimClient(server.url, (await enabledConnection(admin, { alias: "groups-only", usersScope: false })).token)
    expectScimError(await groupsOnly("GET", "/Users"), 403)
    expect((await groupsOnly("GET", "/Groups")).status).toBe(200)
    const usersOnly = scimClient(server.url, (await enabledConnection(admin, { alias: "users-only", groupsScope: false })).token)
    expectScimError(await usersOnly("POST", "/Groups", { schemas: [CORE_GROUP], displayName: "Nope" }), 403)
    expect((await usersOnly("GET", "/Users")).status).toBe(200)
  })
})

describe("effects in Lore", () => {
  const codeword = "zanzibarquokka"
  let spaceId = ""
  let departmentId = ""
  let dana: Awaited<ReturnType<typeof createUser>>
  let danaId = ""
  let groupId = ""
  const scimFor = { call: undefined as unknown as ReturnType<typeof scimClient> }

  const generation = async () => {
    const reply = await admin("POST", "/api/admin/access/explain", { userId: dana.id, resourceType: "KNOWLEDGE_SPACE", resourceId: spaceId })
    return { state: reply.body.state as string, policyVersion: Number(String(reply.body.policyVersion).split(".").pop()), body: reply.body }
  }

  beforeAll(async () => {
    departmentId = (await admin("POST", "/api/admin/departments", { name: "Field" })).body.id
    dana = await createUser(admin, server.url, { email: "dana@example.com", departmentId })
    spaceId = (await admin("POST", "/api/admin/knowledge-spaces", { key: "restricted-ops", name: "Restricted ops" })).body.id
    await ingested(client(server.url, server.adminToken), { spaceId, name: "ops.txt", type: "text/plain", classification: "INTERNAL", bytes: `The ${codeword} runbook explains the night shift handover.` })
    scimFor.call = scimClient(server.url, (await enabledConnection(admin, { alias: "effects", defaultClearance: "CONFIDENTIAL", linkExistingUsers: true })).token)
  })

  it("a provisioned user becomes a Lore user with the connection's clearance; an invited one is linked by email where the connection links existing users", async () => {
    const made = await scimFor.call("POST", "/Users", oktaUser("erin@example.com", { "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Logistics" } }))
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const erin = (await admin("GET", "/api/admin/users")).body.find((u: any) => u.id === made.body.id)
    expect(erin).toMatchObject({ email: "erin@example.com", clearance: "CONFIDENTIAL", active: true })
    const linked = await scimFor.call("POST", "/Users", oktaUser("DANA@example.com"))
    expect(linked.status, JSON.stringify(linked.body)).toBe(201)
    expect(linked.body.id).toBe(dana.id)
    danaId = linked.body.id
    const audit = await admin("GET", "/api/admin/audit-events?limit=50")
    if (audit.status === 200) expect(JSON.stringify(audit.body)).toContain("scim.user.link")
  })

  it("a GROUP grant on a provisioned group opens the space and its search results to its members", async () => {
    expect((await search(client(server.url, server.adminToken), codeword)).length).toBe(1)
    expect(await search(client(server.url, dana.token), codeword)).toEqual([])
    const group = await scimFor.call("POST", "/Groups", { schemas: [CORE_GROUP], displayName: "Night shift", members: [{ value: danaId }] })
    expect(group.status, JSON.stringify(group.body)).toBe(201)
    groupId = group.body.id
    const before = await generation()
    expect(before.state).toBe("DENIED")
    const granted = await admin("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "GROUP", subjectId: groupId })
    expect(granted.status, JSON.stringify(granted.body)).toBe(204)
    const spaces = (await admin("GET", "/api/admin/knowledge-spaces")).body
    const grant = spaces.find((s: any) => s.id === spaceId).grants.find((g: any) => g.kind === "GROUP")
    expect(grant).toMatchObject({ subjectId: groupId, subjectLabel: "Night shift", effective: true })
    const hits = await search(client(server.url, dana.token), codeword)
    expect(hits.length).toBe(1)
    const after = await generation()
    expect(after.state).toBe("ALLOWED")
    expect(after.body.path[0].kind).toBe("GROUP")
    expect(after.policyVersion).toBeGreaterThan(before.policyVersion)
    expect((await admin("POST", `/api/admin/knowledge-spaces/${spaceId}/grants`, { relation: "viewer", kind: "GROUP", subjectId: "00000000-0000-4000-8000-000000000000" })).status).toBe(400)
  })

  it("leaving the group over SCIM takes the results away and raises the generation", async () => {
    const before = await generation()
    const left = await scimFor.call("PATCH", `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${danaId}"]` }] })
    expect(left.status, JSON.stringify(left.body)).toBe(200)
    expect(await search(client(server.url, dana.token), codeword)).toEqual([])
    const after = await generation()
    expect(after.state).toBe("DENIED")
    expect(after.policyVersion).toBeGreaterThan(before.policyVersion)
    const back = await scimFor.call("PATCH", `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: danaId }] }] })
    expect(back.status).toBe(200)
    expect((await search(client(server.url, dana.token), codeword)).length).toBe(1)
  })

  it("deactivation stops the user's tokens, sessions and search results at once", async () => {
    const signIn = await fetch(`${server.url}/api/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: dana.token }) })
    expect(signIn.status).toBe(201)
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith("lore_session="))!.split(";")[0]!
    const me = () => fetch(`${server.url}/api/me`, { headers: { cookie } })
    expect((await me()).status).toBe(200)
    expect((await dana.call("GET", "/api/me")).status).toBe(200)
    const before = await generation()

    const off = await scimFor.call("PATCH", `/Users/${danaId}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] })
    expect(off.status, JSON.stringify(off.body)).toBe(200)
    const refused = await dana.call("GET", `/api/knowledge/search?q=${codeword}`)
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe("USER_DEACTIVATED")
    expect((await me()).status).toBe(401)
    const after = await generation()
    expect(after.state).toBe("DENIED")
    expect(after.body.blockedBy[0].branch).toBe("USER")
    expect(after.policyVersion).toBeGreaterThan(before.policyVersion)

    const on = await scimFor.call("PATCH", `/Users/${danaId}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "True" }] })
    expect(on.status).toBe(200)
    expect((await search(client(server.url, dana.token), codeword)).length).toBe(1)
  })
})
