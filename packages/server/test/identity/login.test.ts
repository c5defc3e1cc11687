import { createLoreClient, LoreApiError } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.dispose())

describe("bootstrap and login", () => {
  it("the bootstrap admin token authenticates as the admin of a new organization", async () => {
    const lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const me = await lore.me.get()
    expect(me).toMatchObject({ authenticated: true, email: "admin@lore.local", role: "ADMIN", authorizationProvider: "lore-access-token" })
    expect(me.platformRoles).toContain("ORG_ADMIN")
    expect(me.subject).toBe(`user:${me.userId}`)
    expect(me.departmentName).toBeTruthy()

    const organization = await lore.me.organization()
    expect(organization.organizationId).toBe(me.organizationId)
    expect(organization.departments.map((d) => d.id)).toContain(me.departmentId)
    expect(organization.users.map((u) => u.email)).toContain("admin@lore.local")
  })

  it("bootstrap creates a knowledge space the whole organization can see; upload targets are among the visible", async () => {
    const lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const visible = await lore.knowledgeSpaces.visible()
    expect(visible.length).toBeGreaterThanOrEqual(1)
    expect(visible[0]).toMatchObject({ id: expect.any(String), key: expect.any(String), name: expect.any(String) })
    const targets = await lore.knowledgeSpaces.uploadTargets()
    expect(Array.isArray(targets)).toBe(true)
    const visibleIds = visible.map((s) => s.id)
    for (const target of targets) expect(visibleIds).toContain(target.id)
  })

  it("without credentials, /api/me answers 401 problem+json, and the session says not authenticated", async () => {
    const anonymous = createLoreClient({ baseUrl: server.url })
    const error = await anonymous.me.get().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LoreApiError)
    expect(error).toMatchObject({ status: 401, code: "UNAUTHENTICATED" })
    expect((error as LoreApiError).requestId).toBeTruthy()
    await expect(anonymous.session.get()).resolves.toEqual({ authenticated: false })
  })

  it("a wrong token is refused with 401 INVALID_TOKEN", async () => {
    const lore = createLoreClient({ baseUrl: server.url, token: `lore_pat_${"0".repeat(40)}` })
    await expect(lore.me.get()).rejects.toMatchObject({ status: 401, code: "INVALID_TOKEN" })
  })

  it("cookie mode: signs in with a token, is the admin through the session cookie, signs out", async () => {
    const browser = createLoreClient({ baseUrl: server.url, auth: "cookie" })
    const session = await browser.session.signIn(server.adminToken)
    expect(session).toMatchObject({ authenticated: true, email: "admin@lore.local", role: "ADMIN", canManageMembers: true })

    const me = await browser.me.get()
    expect(me.authorizationProvider).toBe("lore-session")
    expect(await browser.session.get()).toMatchObject({ authenticated: true, userId: me.userId })

    await browser.session.signOut() // a DELETE: needs (and gets) the CSRF token
    await expect(browser.me.get()).rejects.toMatchObject({ status: 401 })
    expect(await browser.session.get()).toEqual({ authenticated: false })
  })

  it("a sign-in with a bad token is 401 problem+json and sets no session", async () => {
    const browser = createLoreClient({ baseUrl: server.url, auth: "cookie" })
    await expect(browser.session.signIn("lore_pat_nope")).rejects.toMatchObject({ status: 401 })
    await expect(browser.me.get()).rejects.toMatchObject({ status: 401, code: "UNAUTHENTICATED" })
  })
})
