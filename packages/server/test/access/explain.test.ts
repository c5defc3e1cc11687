import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * The explanation must agree with the evaluator: for a generated population of users (departments,
 * roles, management, clearances) and spaces (every grant kind and relation), explain() is ALLOWED
 * exactly when the space is in the user's visible list (viewer) or upload targets (contributor).
 */
describe("access explanation agrees with the evaluator", () => {
  let server: TestServer
  let admin: Call
  const users: Array<{ id: string; call: Call; label: string }> = []
  const spaces: Array<{ id: string; key: string }> = []

  beforeAll(async () => {
    server = await startTestServer()
    admin = http(server.url, server.adminToken)
    const departments = [
      (await admin("POST", "/api/admin/departments", { name: "Red" })).body.id,
      (await admin("POST", "/api/admin/departments", { name: "Blue" })).body.id
    ]
    const roles = ["EMPLOYEE", "MANAGER"]
    const clearances = ["PUBLIC", "CONFIDENTIAL"]
    let n = 0
    for (const departmentId of departments) {
      for (const role of roles) {
        for (const clearance of clearances) {
          const user = await createUser(admin, server.url, { email: `u${n++}@example.com`, departmentId, role, clearance })
          users.push({ ...user, label: `${role}/${clearance}@${departmentId.slice(0, 4)}` })
        }
      }
    }
    // Managers of Red manage the department; one Blue employee holds KNOWLEDGE_ADMIN.
    await admin("POST", `/api/admin/departments/${departments[0]}/managers`, { userId: users[2]!.id })
    await admin("POST", "/api/admin/roles/KNOWLEDGE_ADMIN/members", { userId: users[4]!.id })
    const grants: Array<Record<string, string>> = [
      { relation: "viewer", kind: "DEPARTMENT", subjectId: departments[0]! },
      { relation: "contributor", kind: "DEPARTMENT_MANAGERS", subjectId: departments[0]! },
      { relation: "viewer", kind: "ROLE", role: "MANAGER" },
      { relation: "curator", kind: "ROLE", role: "KNOWLEDGE_ADMIN" },
      { relation: "contributor", kind: "USER", subjectId: users[5]!.id },
      { relation: "viewer", kind: "DEPARTMENT", subjectId: departments[1]! }
    ]
    for (const [index, grant] of grants.entries()) {
      const space = (await admin("POST", "/api/admin/knowledge-spaces", { key: `s${index}`, name: `Space ${index}` })).body
      await admin("POST", `/api/admin/knowledge-spaces/${space.id}/grants`, grant)
      spaces.push({ id: space.id, key: space.key })
    }
    const empty = (await admin("POST", "/api/admin/knowledge-spaces", { key: "nobody", name: "Nobody" })).body
    spaces.push({ id: empty.id, key: empty.key })
    // Deactivate one user: explanation must say DENIED everywhere for them.
    await admin("PATCH", `/api/admin/users/${users[7]!.id}`, { active: false })
  }, 180_000)
  afterAll(() => server.dispose())

  it("agrees for every user x space x relation", async () => {
    let allowed = 0
    let denied = 0
    for (const [index, user] of users.entries()) {
      const inactive = index === 7
      const visible = inactive ? [] : (await user.call("GET", "/api/knowledge-spaces/visible")).body.map((s: any) => s.id)
      const uploadable = inactive ? [] : (await user.call("GET", "/api/knowledge-spaces/upload-targets")).body.map((s: any) => s.id)
      for (const space of spaces) {
        for (const [relation, list] of [["viewer", visible], ["contributor", uploadable]] as const) {
          const explanation = await admin("POST", "/api/admin/access/explain", {
            userId: user.id, resourceType: "KNOWLEDGE_SPACE", resourceId: space.id, relation
          })
          expect(explanation.status).toBe(200)
          const expected = list.includes(space.id) ? "ALLOWED" : "DENIED"
          expect(explanation.body.state, `${user.label} ${relation} ${space.key}`).toBe(expected)
          if (expected === "ALLOWED") {
            allowed++
            expect(explanation.body.path[0]).toMatchObject({ objectType: "KNOWLEDGE_SPACE", relation: expect.any(String), kind: expect.any(String) })
            expect(explanation.body.blockedBy).toEqual([])
          } else {
            denied++
            expect(explanation.body.blockedBy[0].branch).toBe(inactive ? "USER" : "GRANT")
          }
          expect(explanation.body.policyVersion).toMatch(/^lore-access-1\.\d+$/)
        }
      }
    }
    // The population must exercise both outcomes to mean anything.
    expect(allowed).toBeGreaterThan(10)
    expect(denied).toBeGreaterThan(10)
  })

  it("answers 404 for unknown users and resources", async () => {
    const unknownUser = await admin("POST", "/api/admin/access/explain", {
      userId: "00000000-0000-4000-8000-000000000000", resourceType: "KNOWLEDGE_SPACE", resourceId: spaces[0]!.id
    })
    expect(unknownUser.status).toBe(404)
    expect(unknownUser.body.code).toBe("USER_NOT_FOUND")
    const unknownSpace = await admin("POST", "/api/admin/access/explain", {
      userId: users[0]!.id, resourceType: "KNOWLEDGE_SPACE", resourceId: "00000000-0000-4000-8000-000000000000"
    })
    expect(unknownSpace.body.code).toBe("RESOURCE_NOT_FOUND")
  })

  it("concurrent grant changes leave a consistent generation: one step per change", async () => {
    const generationNow = async () =>
      Number((await admin("GET", "/api/admin/roles")).body.policyVersion.split(".").pop())
    const before = await generationNow()
    const roles = ["EMPLOYEE", "MANAGER", "ADMIN", "ORG_ADMIN", "KNOWLEDGE_ADMIN", "ASSET_REVIEWER", "CONNECTOR_ADMIN", "AUDITOR"]
    const results = await Promise.all(
      roles.map((role) => admin("POST", `/api/admin/knowledge-spaces/${spaces[6]!.id}/grants`, { relation: "viewer", kind: "ROLE", role }))
    )
    expect(results.map((r) => r.status)).toEqual(roles.map(() => 204))
    expect(await generationNow()).toBe(before + roles.length)
    const space = (await admin("GET", "/api/admin/knowledge-spaces")).body.find((s: any) => s.id === spaces[6]!.id)
    expect(space.grants.filter((g: any) => g.kind === "ROLE")).toHaveLength(roles.length)
  })
})
