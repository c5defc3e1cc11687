import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, uploaded, userClient, type Client } from "../knowledge/support"
import { http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Explaining access and reading the audit trail are not reading: a holder of access.explain or audit.read
 * sees a document's title only when they may read the document themselves (issue 10, points 15 and 8).
 */
describe("labels of resources the caller may not read", () => {
  let server: TestServer
  let admin: Call
  let auditor: Client & { id: string }
  let employee: Client & { id: string }
  let adminId: string
  let secret: { id: string }
  let handbook: { id: string }
  const SECRET_TITLE = "Merger plan Falcon"

  beforeAll(async () => {
    server = await startTestServer()
    admin = http(server.url, server.adminToken)
    const me = (await admin("GET", "/api/me")).body
    adminId = me.userId
    const general = (await admin("GET", "/api/knowledge-spaces/visible")).body.find((s: { key: string }) => s.key === "general").id
    const adminClient = client(server.url, server.adminToken)
    secret = await uploaded(adminClient, { spaceId: general, name: "falcon.md", bytes: "# Falcon\n\nWe buy the competitor.", classification: "RESTRICTED", title: SECRET_TITLE })
    handbook = await uploaded(adminClient, { spaceId: general, name: "handbook.md", bytes: "# Handbook\n\nWelcome.", classification: "INTERNAL", title: "Team handbook" })
    auditor = await userClient(admin, server.url, { email: "auditor@example.com", departmentId: me.departmentId, clearance: "STANDARD" })
    expect((await admin("POST", "/api/admin/roles/AUDITOR/members", { userId: auditor.id })).status).toBe(204)
    employee = await userClient(admin, server.url, { email: "employee@example.com", departmentId: me.departmentId, clearance: "STANDARD" })
  }, 120_000)
  afterAll(() => server?.dispose())

  const explain = (who: Call, userId: string, resourceId: string) =>
    who("POST", "/api/admin/access/explain", { userId, resourceType: "SOURCE", resourceId })

  it("an auditor explaining access to a document above their clearance sees no title", async () => {
    const denied = await explain(auditor.call, employee.id, secret.id)
    expect(denied.status).toBe(200)
    expect(denied.body.state).toBe("DENIED")
    expect(denied.body.reasonCode).toBe("CLEARANCE_TOO_LOW")
    expect(denied.body.resource).toMatchObject({ id: secret.id, label: "(hidden)", labelHidden: true, classification: "RESTRICTED" })
    expect(JSON.stringify(denied.body)).not.toContain("Falcon")

    // Explaining an allowed path (the admin reads it) names the space but not the document.
    const allowed = await explain(auditor.call, adminId, secret.id)
    expect(allowed.body.state).toBe("ALLOWED")
    expect(allowed.body.path[0].objectLabel).toBe("General")
    expect(allowed.body.path[1]).not.toHaveProperty("objectLabel")
    expect(JSON.stringify(allowed.body)).not.toContain("Falcon")
  })

  it("shows the title where the caller may read the document", async () => {
    const readable = await explain(auditor.call, employee.id, handbook.id)
    expect(readable.body.resource).toMatchObject({ label: "Team handbook", labelHidden: false, contextLabel: "General" })
    const byAdmin = await explain(admin, employee.id, secret.id)
    expect(byAdmin.body.resource).toMatchObject({ label: SECRET_TITLE, labelHidden: false })
  })

  const auditEvents = async (who: Call) => {
    const reply = await who("GET", "/api/admin/audit?pageSize=200")
    expect(reply.status).toBe(200)
    return reply.body.items as Array<{ action: string; resourceType: string; resourceId: string; resourceLabel: string | null; details: Record<string, unknown> }>
  }

  it("the audit trail labels resources for an auditor only where they may see them, and withholds a hidden document's details", async () => {
    const events = await auditEvents(auditor.call)
    const secretUpload = events.find((e) => e.action === "source.upload" && e.resourceId === secret.id)!
    expect(secretUpload.resourceLabel).toBeNull()
    expect(secretUpload.details).toEqual({ classification: "RESTRICTED", withheld: expect.arrayContaining(["title", "fileName"]) })
    expect(JSON.stringify(events)).not.toContain("Falcon")
    expect(JSON.stringify(events)).not.toContain("falcon.md")

    const handbookUpload = events.find((e) => e.action === "source.upload" && e.resourceId === handbook.id)!
    expect(handbookUpload.resourceLabel).toBe("Team handbook")
    expect(handbookUpload.details).toMatchObject({ title: "Team handbook", fileName: "handbook.md" })

    // Resources outside the access model: labelled as the administration lists show them.
    const roleAdd = events.find((e) => e.action === "role.member.add" && e.details.userId === auditor.id)!
    expect(roleAdd.resourceLabel).toBe("AUDITOR")
    const spaceCreate = events.find((e) => e.action === "knowledge_space.create")!
    expect(spaceCreate.resourceLabel).toBe("General")
    const userCreate = events.find((e) => e.action === "user.create")!
    expect(userCreate.resourceLabel).toBe((await admin("GET", "/api/me")).body.email)
  })

  it("the administrator, who may read everything, sees every label", async () => {
    const events = await auditEvents(admin)
    const secretUpload = events.find((e) => e.action === "source.upload" && e.resourceId === secret.id)!
    expect(secretUpload.resourceLabel).toBe(SECRET_TITLE)
    expect(secretUpload.details).toMatchObject({ title: SECRET_TITLE, fileName: "falcon.md" })
  })

  it("a deleted document's events keep its details hidden from readers who could not read it", async () => {
    expect((await admin("DELETE", `/api/sources/${secret.id}`)).status).toBe(200)
    const events = await auditEvents(auditor.call)
    const deletion = events.find((e) => e.action === "source.delete" && e.resourceId === secret.id)!
    expect(deletion.resourceLabel).toBeNull()
    expect(JSON.stringify(events)).not.toContain("Falcon")
  })
})
