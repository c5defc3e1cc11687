import { createLoreClient, LoreApiError } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem } from "../platform/expectProblem"
import { startTestServer, type TestServer } from "../support/server"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.dispose())

const admin = () => createLoreClient({ baseUrl: server.url, token: server.adminToken })

describe("personal access tokens", () => {
  it("creates a token, shown once, that authenticates as its owner", async () => {
    const issued = await admin().tokens.create({ name: "ci pipeline", expiresInDays: 30 })
    expect(issued.token).toMatch(/^lore_pat_/)
    expect(issued).toMatchObject({ name: "ci pipeline", status: "ACTIVE", revokedAt: null })
    expect(issued.token.startsWith(issued.tokenPrefix)).toBe(true)
    const days = (Date.parse(issued.expiresAt!) - Date.parse(issued.createdAt)) / 86_400_000
    expect(days).toBeCloseTo(30, 0)

    const me = await createLoreClient({ baseUrl: server.url, token: issued.token }).me.get()
    expect(me.email).toBe("admin@lore.local")
  })

  it("expiresInDays: null makes a token that never expires", async () => {
    const issued = await admin().tokens.create({ name: "forever", expiresInDays: null })
    expect(issued.expiresAt).toBeNull()
  })

  it("lists tokens without their secrets", async () => {
    const issued = await admin().tokens.create({ name: "listed" })
    const listed = await admin().tokens.list()
    const entry = listed.find((t) => t.id === issued.id)
    expect(entry).toMatchObject({ name: "listed", status: "ACTIVE", tokenPrefix: issued.tokenPrefix })
    for (const token of listed) expect(token).not.toHaveProperty("token")
    // and the secret appears nowhere in the raw listing
    const raw = await fetch(`${server.url}/api/me/tokens`, { headers: { authorization: `Bearer ${server.adminToken}` } })
    expect(await raw.text()).not.toContain(issued.token)
  })

  it("a revoked token gets 401 problem+json INVALID_TOKEN", async () => {
    const issued = await admin().tokens.create({ name: "short-lived" })
    const holder = createLoreClient({ baseUrl: server.url, token: issued.token })
    await holder.me.get()

    await admin().tokens.revoke(issued.id)
    const listed = (await admin().tokens.list()).find((t) => t.id === issued.id)
    expect(listed?.status).toBe("REVOKED")
    expect(listed?.revokedAt).not.toBeNull()

    const error = await holder.me.get().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LoreApiError)
    expect(error).toMatchObject({ status: 401, code: "INVALID_TOKEN" })
    await expectProblem(await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${issued.token}` } }), 401, "INVALID_TOKEN")
  })

  it("revoking an unknown token is 404 problem+json", async () => {
    await expect(admin().tokens.revoke("00000000-0000-4000-8000-000000000000")).rejects.toMatchObject({ status: 404 })
  })

  it("revoking with a malformed id is 400 VALIDATION_FAILED", async () => {
    await expect(admin().tokens.revoke("not-a-uuid")).rejects.toMatchObject({ status: 400, code: "VALIDATION_FAILED" })
  })
})
