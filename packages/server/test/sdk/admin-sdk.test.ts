import { createLoreClient, LoreApiError, type AuditEvent, type LoreClient } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"

/** The administration surface of @lore/sdk against a real server: every value checked is the server's. */
describe("SDK administration", () => {
  let server: TestServer
  let admin: LoreClient
  let departmentId: string
  let invitationId: string
  let code: string
  let member: { id: string; token: string; client: LoreClient }
  let spaceId: string

  beforeAll(async () => {
    server = await startTestServer()
    admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
  })
  afterAll(() => server.dispose())

  it("creates, renames and lists departments", async () => {
    const created = await admin.admin.departments.create("Research")
    expect(created).toMatchObject({ name: "Research", managerUserIds: [], memberCount: 0 })
    departmentId = created.id
    const renamed = await admin.admin.departments.rename(departmentId, "Research & Development")
    expect(renamed.name).toBe("Research & Development")
    const names = (await admin.admin.departments.list()).map((d) => d.name)
    expect(names).toContain("Research & Development")
  })

  it("invites; the invitee accepts without credentials and works with the token returned", async () => {
    const invitation = await admin.admin.invitations.create({ email: "rita@example.com", departmentId, clearance: "CONFIDENTIAL" })
    expect(invitation).toMatchObject({ email: "rita@example.com", status: "PENDING", departmentId, acceptedAt: null })
    expect(invitation.invitationCode.length).toBeGreaterThan(10)
    invitationId = invitation.id
    code = invitation.invitationCode

    const anonymous = createLoreClient({ baseUrl: server.url })
    const accepted = await anonymous.invitations.accept({ code, name: "Rita Researcher" })
    expect(accepted.user).toMatchObject({ email: "rita@example.com", name: "Rita Researcher", departmentId, clearance: "CONFIDENTIAL", active: true })
    expect(accepted.token.token).toMatch(/^lore_pat_/)
    const client = createLoreClient({ baseUrl: server.url, token: accepted.token.token })
    member = { id: accepted.user.id, token: accepted.token.token, client }
    expect(await client.me.get()).toMatchObject({ userId: member.id, email: "rita@example.com", departmentName: "Research & Development" })

    const listed = (await admin.admin.invitations.list()).find((i) => i.id === invitationId)
    expect(listed).toMatchObject({ status: "ACCEPTED", acceptedAppUserId: member.id })
    expect(listed?.acceptedAt).not.toBeNull()
  })

  it("refuses a reused code with a LoreApiError", async () => {
    const error = await createLoreClient({ baseUrl: server.url }).invitations.accept({ code }).catch((e: unknown) => e)
    expect(LoreApiError.is(error)).toBe(true)
    expect((error as LoreApiError).status).toBeGreaterThanOrEqual(400)
    expect((error as LoreApiError).requestId).toBeTruthy()
  })

  it("revokes a pending invitation", async () => {
    const pending = await admin.admin.invitations.create({ email: "late@example.com", departmentId })
    await admin.admin.invitations.revoke(pending.id)
    expect((await admin.admin.invitations.list()).find((i) => i.id === pending.id)?.status).toBe("REVOKED")
  })

  it("updates users, manages roles and department managers, reports permissions", async () => {
    const updated = await admin.admin.users.update(member.id, { name: "Rita R.", role: "MANAGER" })
    expect(updated).toMatchObject({ id: member.id, name: "Rita R.", role: "MANAGER" })
    expect((await admin.admin.users.list()).find((u) => u.id === member.id)?.name).toBe("Rita R.")

    expect((await admin.admin.users.permissions(member.id)).permissions["audit.read"]).toBe("DENIED")
    await admin.admin.roles.addMember("AUDITOR", member.id)
    const roles = await admin.admin.roles.list()
    expect(roles.roles.find((r) => r.role === "AUDITOR")?.assignees).toContain(member.id)
    expect((await admin.admin.users.permissions(member.id)).permissions["audit.read"]).toBe("ALLOWED")
    await admin.admin.roles.removeMember("AUDITOR", member.id)
    expect((await admin.admin.users.permissions(member.id)).permissions["audit.read"]).toBe("DENIED")

    expect((await admin.admin.departments.addManager(departmentId, member.id)).managerUserIds).toEqual([member.id])
    expect((await admin.admin.departments.removeManager(departmentId, member.id)).managerUserIds).toEqual([])
  })

  it("creates a space, grants it and explains access both ways", async () => {
    const options = await admin.admin.spaces.grantOptions()
    expect(options.find((o) => o.relation === "viewer")?.kinds).toContain("DEPARTMENT")

    const space = await admin.admin.spaces.create({ key: "lab-notes", name: "Lab notes", departmentId })
    expect(space).toMatchObject({ key: "lab-notes", name: "Lab notes", departmentId, active: true })
    spaceId = space.id
    const explainViewer = () => admin.admin.access.explain({ userId: member.id, resourceType: "KNOWLEDGE_SPACE", resourceId: spaceId, relation: "viewer" })

    const before = await explainViewer()
    expect(before.state).toBe("DENIED")
    expect(before.blockedBy.length).toBeGreaterThan(0)
    expect((await member.client.knowledgeSpaces.visible()).map((s) => s.key)).not.toContain("lab-notes")

    await admin.admin.spaces.addGrant(spaceId, { relation: "viewer", kind: "DEPARTMENT", subjectId: departmentId })
    const listed = (await admin.admin.spaces.list()).find((s) => s.id === spaceId)
    expect(listed?.grants).toContainEqual(
      expect.objectContaining({ relation: "viewer", kind: "DEPARTMENT", subjectId: departmentId, subjectLabel: "Research & Development", effective: true })
    )
    const allowed = await explainViewer()
    expect(allowed).toMatchObject({ state: "ALLOWED", resource: { id: spaceId, type: "KNOWLEDGE_SPACE" } })
    expect(allowed.path.length).toBeGreaterThan(0)
    expect(allowed.provenance.generation).toBeGreaterThan(before.provenance.generation)
    expect((await member.client.knowledgeSpaces.visible()).map((s) => s.key)).toContain("lab-notes")

    await admin.admin.spaces.removeGrant(spaceId, { relation: "viewer", kind: "DEPARTMENT", subjectId: departmentId })
    expect((await explainViewer()).state).toBe("DENIED")
    expect((await member.client.knowledgeSpaces.visible()).map((s) => s.key)).not.toContain("lab-notes")
  })

  it("forbids administration to a member with a typed error", async () => {
    const error = await member.client.admin.users.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LoreApiError)
    expect(error).toMatchObject({ status: 403, code: "PERMISSION_DENIED" })
  })

  it("lists the audit log by page and iterates all of it", async () => {
    const filtered = await admin.admin.audit.list({ resourceType: "department", resourceId: departmentId })
    expect(filtered.items.map((e) => e.action)).toContain("department.create")
    expect(filtered.items.every((e) => e.resourceId === departmentId)).toBe(true)

    const first = await admin.admin.audit.list({ pageSize: 2 })
    expect(first.items).toHaveLength(2)
    expect(first.nextCursor).toBeTruthy()
    const second = await admin.admin.audit.list({ pageSize: 2, cursor: first.nextCursor! })
    expect(second.items.map((e) => e.id)).not.toContain(first.items[0]!.id)

    const everything: Array<AuditEvent> = []
    for await (const event of admin.admin.audit.all({ pageSize: 3 })) everything.push(event)
    const unpaged = await admin.admin.audit.list({ pageSize: 200 })
    expect(unpaged.nextCursor).toBeNull()
    expect(everything.map((e) => e.id)).toEqual(unpaged.items.map((e) => e.id))
    expect(new Set(everything.map((e) => e.id)).size).toBe(everything.length)
    // newest first, one event per change made above (after first start's, which Lore itself made)
    const byPeople = everything.filter((e) => e.details.system !== "first-start")
    expect(byPeople.length).toBeLessThan(everything.length)
    expect([...new Set(byPeople.map((e) => e.action))]).toEqual([
      "grant.remove",
      "grant.add",
      "knowledge_space.create",
      "department.manager.remove",
      "department.manager.add",
      "role.member.remove",
      "role.member.add",
      "user.update",
      "invitation.revoke",
      "invitation.create",
      "invitation.accept",
      "department.rename",
      "department.create"
    ])
    const accepted = everything.find((e) => e.action === "invitation.accept")
    expect(accepted).toMatchObject({ actorUserId: member.id, actorEmail: "rita@example.com" })

    const future = await admin.admin.audit.list({ since: new Date(Date.now() + 60_000) })
    expect(future.items).toEqual([])
    await admin.admin.spaces.remove(spaceId)
    expect((await admin.admin.spaces.list()).map((s) => s.id)).not.toContain(spaceId)
  })
})
