import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

let server: TestServer
let admin: Call
beforeAll(async () => {
  server = await startTestServer()
  admin = http(server.url, server.adminToken)
})
afterAll(() => server?.dispose())

/** First start goes through the services, as Lore itself (the system actor): audited, and it moves the generation. */
describe("first start", () => {
  it("audits what it creates, with no actor user and the task named", async () => {
    const events = (await admin("GET", "/api/admin/audit?pageSize=200")).body.items as Array<Record<string, any>>
    const firstStart = events.filter((e) => e.details.system === "first-start").map((e) => e.action).reverse()
    expect(firstStart).toEqual(["department.create", "user.create", "role.member.add", "knowledge_space.create", "grant.add"])
    for (const event of events.filter((e) => e.details.system === "first-start")) {
      expect(event.actorUserId).toBeNull()
      expect(event.actorEmail).toBeNull()
    }
  })

  it("raises the authorization generation for each change of access it made", async () => {
    const policyVersion: string = (await admin("GET", "/api/admin/roles")).body.policyVersion
    // The organization starts at 1; the department, the ORG_ADMIN role, the space and its grant each raise it.
    expect(Number(policyVersion.split(".").pop())).toBeGreaterThanOrEqual(5)
  })

  it("leaves the space every member reads and the administrator manages, created by nobody in particular", async () => {
    const me = (await admin("GET", "/api/me")).body
    const general = (await admin("GET", "/api/admin/knowledge-spaces")).body.find((s: { key: string }) => s.key === "general")
    expect(general.grants.map((g: { relation: string; subject: string }) => `${g.relation} ${g.subject}`).sort())
      .toEqual(["manager USER:" + me.userId, "viewer ORGANIZATION"])
    expect(me.platformRoles).toEqual(["ORG_ADMIN"])
    expect(me.clearance).toBe("RESTRICTED")
  })
})
