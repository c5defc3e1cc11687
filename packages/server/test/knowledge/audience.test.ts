import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"
import { client, type Client, uploaded, userClient } from "./support"

/**
 * An upload's answer says who can read the document (issue 10 point 2): of the space's members (active users
 * with at least viewer on it), how many have a clearance that reaches its classification, and in words why.
 * The contract's default classification (CONFIDENTIAL) is above the invitation default (STANDARD): the answer
 * makes that visible instead of leaving an empty catalog unexplained.
 */
describe("an upload says who can read it", { timeout: 120_000 }, () => {
  let server: TestServer
  let admin: Client
  let general: string
  let department: string

  beforeAll(async () => {
    server = await startTestServer()
    admin = client(server.url, server.adminToken)
    department = (await admin.call("GET", "/api/me")).body.departmentId
    general = (await admin.call("GET", "/api/knowledge-spaces/visible")).body.find((s: { key: string }) => s.key === "general").id
    // Two colleagues with the invitation default (STANDARD) in the organization-wide space.
    for (const name of ["ada", "ben"]) await userClient(admin.call, server.url, { email: `${name}@example.com`, departmentId: department })
  })
  afterAll(() => server?.dispose())

  it("counts the space's members and those whose clearance reaches the classification", async () => {
    const confidential = await uploaded(admin, { spaceId: general, name: "handbook.md", type: "text/markdown", bytes: "# Handbook\n\nWelcome." })
    expect(confidential.classification).toBe("CONFIDENTIAL")
    expect(confidential.audience).toEqual({
      readers: 1,
      spaceMembers: 3,
      summary: "readable by 1 of 3 members of space general: CONFIDENTIAL needs clearance CONFIDENTIAL or RESTRICTED"
    })
    const internal = await uploaded(admin, { spaceId: general, name: "guide.md", type: "text/markdown", bytes: "# Guide\n\nFor everyone.", classification: "INTERNAL" })
    expect(internal.audience).toEqual({
      readers: 3,
      spaceMembers: 3,
      summary: "readable by 3 of 3 members of space general: INTERNAL needs clearance STANDARD, CONFIDENTIAL or RESTRICTED"
    })
    // Only the upload answers it; reads of the source do not recompute it.
    expect((await admin.call("GET", `/api/sources/${internal.id}`)).body.audience).toBeUndefined()
  })

  it("follows clearances, deactivations and grants, through the same evaluator", async () => {
    const carol = await userClient(admin.call, server.url, { email: "carol@example.com", departmentId: department, clearance: "CONFIDENTIAL" })
    const users = (await admin.call("GET", "/api/admin/users")).body as Array<{ id: string; email: string }>
    const ben = users.find((u) => u.email === "ben@example.com")!
    expect((await admin.call("PATCH", `/api/admin/users/${ben.id}`, { active: false })).status).toBe(200)
    const memo = await uploaded(admin, { spaceId: general, name: "memo.md", type: "text/markdown", bytes: "# Memo\n\nNumbers." })
    expect(memo.audience).toMatchObject({ readers: 2, spaceMembers: 3 })

    // A space granted to one user besides its creator counts just them.
    const lab = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "lab", name: "Lab" })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${lab}/grants`, { relation: "viewer", kind: "USER", subjectId: carol.id })).status).toBe(204)
    const note = await uploaded(admin, { spaceId: lab, name: "note.md", type: "text/markdown", bytes: "# Note\n\nLab.", classification: "RESTRICTED" })
    expect(note.audience).toEqual({ readers: 1, spaceMembers: 2, summary: "readable by 1 of 2 members of space lab: RESTRICTED needs clearance RESTRICTED" })
    const open = await uploaded(admin, { spaceId: lab, name: "open.md", type: "text/markdown", bytes: "# Open\n\nLab.", classification: "PUBLIC" })
    expect(open.audience?.summary).toBe("readable by 2 of 2 members of space lab: PUBLIC is readable at every clearance")
  })
})
