import { createLoreClient } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.dispose())

describe("restart on the same data", () => {
  it("keeps users and tokens, and does not bootstrap again", async () => {
    const before = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const me = await before.me.get()
    const issued = await before.tokens.create({ name: "survives restart" })
    const revoked = await before.tokens.create({ name: "stays revoked" })
    await before.tokens.revoke(revoked.id)
    const organizationBefore = await before.me.organization()

    server = await server.restart()

    const admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    expect(await admin.me.get()).toMatchObject({ userId: me.userId, organizationId: me.organizationId })
    const organizationAfter = await admin.me.organization()
    expect(organizationAfter.users).toEqual(organizationBefore.users)
    expect(organizationAfter.departments).toEqual(organizationBefore.departments)

    const holder = createLoreClient({ baseUrl: server.url, token: issued.token })
    expect((await holder.me.get()).userId).toBe(me.userId)
    await expect(createLoreClient({ baseUrl: server.url, token: revoked.token }).me.get()).rejects.toMatchObject({
      status: 401,
      code: "INVALID_TOKEN"
    })
    const statuses = Object.fromEntries((await admin.tokens.list()).map((t) => [t.id, t.status]))
    expect(statuses).toMatchObject({ [issued.id]: "ACTIVE", [revoked.id]: "REVOKED" })
  })
})
