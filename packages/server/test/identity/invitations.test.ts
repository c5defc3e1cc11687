import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

describe("an invitation says what the invitee will be able to read", () => {
  let server: TestServer
  let admin: Call
  let general: string

  beforeAll(async () => {
    server = await startTestServer()
    admin = http(server.url, server.adminToken)
    general = (await admin("GET", "/api/me")).body.departmentId
  })
  afterAll(() => server?.dispose())

  it("the default STANDARD clearance reads PUBLIC and INTERNAL, in the spaces the invitee's grants reach", async () => {
    const reply = await admin("POST", "/api/admin/invitations", { email: "colleague@example.com", departmentId: general })
    expect(reply.status).toBe(201)
    expect(reply.body.canRead.classifications).toEqual(["PUBLIC", "INTERNAL"])
    expect(reply.body.canRead.knowledgeSpaces.map((s: { key: string }) => s.key)).toEqual(["general"])
    expect(reply.body.canRead.summary).toBe("Clearance STANDARD reads PUBLIC and INTERNAL documents, in knowledge space general")
  })

  it("a higher clearance reads more classifications, still only in the spaces its grants reach", async () => {
    const lab = (await admin("POST", "/api/admin/departments", { name: "Lab" })).body.id
    await admin("POST", "/api/admin/knowledge-spaces", { key: "lab-notes", name: "Lab notes" })
    const reply = await admin("POST", "/api/admin/invitations", { email: "chemist@example.com", departmentId: lab, clearance: "CONFIDENTIAL" })
    // `general` is granted to the whole organization; `lab-notes` to nobody but its creator.
    expect(reply.body.canRead.classifications).toEqual(["PUBLIC", "INTERNAL", "CONFIDENTIAL"])
    expect(reply.body.canRead.knowledgeSpaces.map((s: { key: string }) => s.key)).toEqual(["general"])
    expect(reply.body.canRead.summary).toBe("Clearance CONFIDENTIAL reads PUBLIC, INTERNAL and CONFIDENTIAL documents, in knowledge space general")
  })
})
