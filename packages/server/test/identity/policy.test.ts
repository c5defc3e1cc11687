import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/** identity/Policy.ts: who may change what about a person, beyond the endpoint's permission. */
describe("people policy", () => {
  let server: TestServer
  let admin: Call
  let general: string
  let sales: string
  let me: { userId: string }

  beforeAll(async () => {
    server = await startTestServer()
    admin = http(server.url, server.adminToken)
    me = (await admin("GET", "/api/me")).body
    general = (await admin("GET", "/api/me")).body.departmentId
    sales = (await admin("POST", "/api/admin/departments", { name: "Sales" })).body.id
  })
  afterAll(() => server?.dispose())

  it("nobody changes their own clearance, role, department or active state; a name is one's own", async () => {
    for (const patch of [{ clearance: "STANDARD" }, { role: "MANAGER" }, { departmentId: sales }, { active: false }]) {
      const reply = await admin("PATCH", `/api/admin/users/${me.userId}`, patch)
      expect(reply.status, JSON.stringify(patch)).toBe(403)
      expect(reply.body.code).toBe("SELF_ADMINISTRATION")
    }
    expect((await admin("PATCH", `/api/admin/users/${me.userId}`, { name: "Ada Admin" })).status).toBe(200)
  })

  it("an administrator cannot raise their own clearance, even one below the top", async () => {
    const second = await createUser(admin, server.url, { email: "second@example.com", departmentId: general, role: "ADMIN", clearance: "CONFIDENTIAL" })
    const reply = await second.call("PATCH", `/api/admin/users/${second.id}`, { clearance: "RESTRICTED" })
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe("SELF_ADMINISTRATION")
    expect((await admin("GET", "/api/admin/users")).body.find((u: { id: string }) => u.id === second.id).clearance).toBe("CONFIDENTIAL")
  })

  it("nobody grants a clearance above their own, by update or by invitation", async () => {
    const limited = await createUser(admin, server.url, { email: "limited@example.com", departmentId: general, role: "ADMIN", clearance: "CONFIDENTIAL" })
    const target = await createUser(admin, server.url, { email: "target@example.com", departmentId: general })
    const raise = await limited.call("PATCH", `/api/admin/users/${target.id}`, { clearance: "RESTRICTED" })
    expect(raise.status).toBe(403)
    expect(raise.body.code).toBe("CLEARANCE_ABOVE_OWN")
    expect((await limited.call("PATCH", `/api/admin/users/${target.id}`, { clearance: "CONFIDENTIAL" })).status).toBe(200)
    const invite = await limited.call("POST", "/api/admin/invitations", { email: "spy@example.com", departmentId: general, clearance: "RESTRICTED" })
    expect(invite.status).toBe(403)
    expect(invite.body.code).toBe("CLEARANCE_ABOVE_OWN")
  })

  it("a department move ends the user's manager status in the old department, and the access it gave", async () => {
    const boss = await createUser(admin, server.url, { email: "boss@example.com", departmentId: general, role: "MANAGER" })
    expect((await admin("POST", `/api/admin/departments/${general}/managers`, { userId: boss.id })).status).toBe(200)
    const managersOnly = (await admin("POST", "/api/admin/knowledge-spaces", { key: "general-managers", name: "General managers" })).body.id
    await admin("POST", `/api/admin/knowledge-spaces/${managersOnly}/grants`, { relation: "viewer", kind: "DEPARTMENT_MANAGERS", subjectId: general })
    const sees = async () => (await boss.call("GET", "/api/knowledge-spaces/visible")).body.map((s: { id: string }) => s.id)
    expect(await sees()).toContain(managersOnly)
    const before = (await admin("GET", "/api/admin/departments")).body.find((d: { id: string }) => d.id === general)
    expect(before.managerUserIds).toContain(boss.id)
    const generation = async () => (await admin("GET", "/api/admin/roles")).body.policyVersion
    const was = await generation()
    expect((await admin("PATCH", `/api/admin/users/${boss.id}`, { departmentId: sales })).status).toBe(200)
    const after = (await admin("GET", "/api/admin/departments")).body.find((d: { id: string }) => d.id === general)
    expect(after.managerUserIds).not.toContain(boss.id)
    expect(await generation()).not.toBe(was)
    expect(await sees()).not.toContain(managersOnly)
  })
})
