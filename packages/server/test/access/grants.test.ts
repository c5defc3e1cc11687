import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

describe("grants and visibility", () => {
  let server: TestServer
  let admin: Call
  let sales: string
  let support: string
  let ann: Awaited<ReturnType<typeof createUser>>
  let space: string

  const visibleKeys = async (call: Call) => {
    const reply = await call("GET", "/api/knowledge-spaces/visible")
    expect(reply.status).toBe(200)
    return reply.body.map((s: { key: string }) => s.key).sort()
  }
  const uploadKeys = async (call: Call) => (await call("GET", "/api/knowledge-spaces/upload-targets")).body.map((s: { key: string }) => s.key).sort()

  beforeAll(async () => {
    server = await startTestServer()
    admin = http(server.url, server.adminToken)
    sales = (await admin("POST", "/api/admin/departments", { name: "Sales" })).body.id
    support = (await admin("POST", "/api/admin/departments", { name: "Support" })).body.id
    ann = await createUser(admin, server.url, { email: "ann@example.com", departmentId: sales })
    space = (await admin("POST", "/api/admin/knowledge-spaces", { key: "deals", name: "Deals" })).body.id
  })
  afterAll(() => server.dispose())

  const grantKinds = () => [
    { kind: "ORGANIZATION" },
    { kind: "DEPARTMENT", subjectId: sales },
    { kind: "ROLE", role: "EMPLOYEE" },
    { kind: "USER", subjectId: ann.id }
  ]

  it("starts with only the organization-wide space", async () => {
    expect(await visibleKeys(ann.call)).toEqual(["general"])
  })

  it.each(["ORGANIZATION", "DEPARTMENT", "ROLE", "USER"])("a %s grant shows the space at once, and its removal hides it", async (kind) => {
    const grant = grantKinds().find((g) => g.kind === kind)!
    expect((await admin("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", ...grant })).status).toBe(204)
    expect(await visibleKeys(ann.call)).toEqual(["deals", "general"])
    expect(await uploadKeys(ann.call)).toEqual([])
    const query = new URLSearchParams({ relation: "viewer", kind, ...(grant.subjectId ? { subjectId: grant.subjectId } : {}), ...(grant.role ? { role: grant.role } : {}) })
    expect((await admin("DELETE", `/api/admin/knowledge-spaces/${space}/grants?${query}`)).status).toBe(204)
    expect(await visibleKeys(ann.call)).toEqual(["general"])
  })

  it("a DEPARTMENT_MANAGERS grant reaches only the department's managers", async () => {
    expect((await admin("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "contributor", kind: "DEPARTMENT_MANAGERS", subjectId: sales })).status).toBe(204)
    expect(await visibleKeys(ann.call)).toEqual(["general"])
    expect((await admin("POST", `/api/admin/departments/${sales}/managers`, { userId: ann.id })).status).toBe(200)
    expect(await visibleKeys(ann.call)).toEqual(["deals", "general"])
    expect(await uploadKeys(ann.call)).toEqual(["deals"])
    expect((await admin("DELETE", `/api/admin/departments/${sales}/managers/${ann.id}`)).status).toBe(200)
    expect(await visibleKeys(ann.call)).toEqual(["general"])
    await admin("DELETE", `/api/admin/knowledge-spaces/${space}/grants?relation=contributor&kind=DEPARTMENT_MANAGERS&subjectId=${sales}`)
  })

  it("a user moved to another department loses that department's spaces", async () => {
    await admin("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", kind: "DEPARTMENT", subjectId: sales })
    expect(await visibleKeys(ann.call)).toEqual(["deals", "general"])
    expect((await admin("PATCH", `/api/admin/users/${ann.id}`, { departmentId: support })).status).toBe(200)
    expect(await visibleKeys(ann.call)).toEqual(["general"])
    await admin("PATCH", `/api/admin/users/${ann.id}`, { departmentId: sales })
    expect(await visibleKeys(ann.call)).toEqual(["deals", "general"])
  })

  it("rejects malformed grants with a stable code", async () => {
    const noSubject = await admin("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", kind: "USER" })
    expect(noSubject.status).toBe(400)
    expect(noSubject.body.code).toBe("INVALID_GRANT")
    const badRole = await admin("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", kind: "ROLE", role: "WIZARD" })
    expect(badRole.body.code).toBe("INVALID_GRANT")
    const unknownDepartment = await admin("POST", `/api/admin/knowledge-spaces/${space}/grants`, {
      relation: "viewer", kind: "DEPARTMENT", subjectId: "00000000-0000-4000-8000-000000000000"
    })
    expect(unknownDepartment.status).toBe(404)
    expect(unknownDepartment.body.code).toBe("DEPARTMENT_NOT_FOUND")
    const missing = await admin("DELETE", `/api/admin/knowledge-spaces/${space}/grants?relation=curator&kind=ORGANIZATION`)
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe("GRANT_NOT_FOUND")
  })

  it("lists spaces with their grants and a policy version that moves with changes", async () => {
    const before = (await admin("GET", "/api/admin/knowledge-spaces")).body.find((s: any) => s.key === "deals")
    expect(before.grantsComplete).toBe(true)
    expect(before.grants.some((g: any) => g.kind === "DEPARTMENT" && g.subjectLabel === "Sales" && g.effective)).toBe(true)
    await admin("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", kind: "ROLE", role: "MANAGER" })
    const after = (await admin("GET", "/api/admin/knowledge-spaces")).body.find((s: any) => s.key === "deals")
    expect(after.policyVersion).not.toBe(before.policyVersion)
    expect(after.audienceVersion).toBeGreaterThan(before.audienceVersion)
    const duplicate = await admin("POST", "/api/admin/knowledge-spaces", { key: "deals", name: "Again" })
    expect(duplicate.status).toBe(409)
    expect(duplicate.body.code).toBe("KNOWLEDGE_SPACE_KEY_TAKEN")
  })

  it("deactivated users get 401 with every token they hold, and come back when reactivated", async () => {
    const bob = await createUser(admin, server.url, { email: "bob@example.com", departmentId: sales })
    const second = (await bob.call("POST", "/api/me/tokens", { name: "second" })).body.token
    expect((await admin("PATCH", `/api/admin/users/${bob.id}`, { active: false })).status).toBe(200)
    for (const token of [bob.token, second]) {
      const reply = await http(server.url, token)("GET", "/api/me")
      expect(reply.status).toBe(401)
      expect(reply.body.code).toBe("USER_DEACTIVATED")
    }
    await admin("PATCH", `/api/admin/users/${bob.id}`, { active: true })
    expect((await bob.call("GET", "/api/me")).status).toBe(200)
  })

  it("keeps at least one effective manager grant on a space (access/Policy.ts)", async () => {
    const me = (await admin("GET", "/api/me")).body
    const owned = (await admin("POST", "/api/admin/knowledge-spaces", { key: "owned", name: "Owned" })).body.id
    const removeCreator = () => admin("DELETE", `/api/admin/knowledge-spaces/${owned}/grants?relation=manager&kind=USER&subjectId=${me.userId}`)
    const refused = await removeCreator()
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe("LAST_SPACE_MANAGER")
    expect((await admin("POST", `/api/admin/knowledge-spaces/${owned}/grants`, { relation: "manager", kind: "USER", subjectId: ann.id })).status).toBe(204)
    expect((await removeCreator()).status).toBe(204)
  })

  it("refuses an administrator's change to their own role or platform roles (so the last one cannot leave either)", async () => {
    const me = (await admin("GET", "/api/me")).body
    const demote = await admin("PATCH", `/api/admin/users/${me.userId}`, { role: "EMPLOYEE" })
    expect(demote.status).toBe(403)
    expect(demote.body.code).toBe("SELF_ADMINISTRATION")
    const leave = await admin("DELETE", `/api/admin/roles/ORG_ADMIN/members/${me.userId}`)
    expect(leave.status).toBe(403)
    expect(leave.body.code).toBe("SELF_ADMINISTRATION")
    expect((await admin("GET", "/api/me")).body).toMatchObject({ role: "ADMIN", platformRoles: ["ORG_ADMIN"] })
  })
})
