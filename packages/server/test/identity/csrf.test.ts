import { createLoreClient } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectProblem } from "../platform/expectProblem"
import { startTestServer, type TestServer } from "../support/server"

let server: TestServer
let sessionCookie: string
beforeAll(async () => {
  server = await startTestServer()
  const signIn = await fetch(`${server.url}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: server.adminToken })
  })
  expect(signIn.status).toBe(201)
  const setCookie = signIn.headers.getSetCookie().find((c) => c.startsWith("lore_session="))
  expect(setCookie).toMatch(/HttpOnly/i)
  sessionCookie = setCookie!.split(";")[0]!
})
afterAll(() => server?.dispose())

const createToken = (headers: Record<string, string>) =>
  fetch(`${server.url}/api/me/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ name: "csrf test" })
  })

describe("CSRF", () => {
  it("a cookie-authenticated POST without the X-CSRF-Token header is 403 CSRF_TOKEN_INVALID", async () => {
    await expectProblem(await createToken({ cookie: sessionCookie }), 403, "CSRF_TOKEN_INVALID")
  })

  it("a cookie-authenticated POST with a wrong token is 403 too", async () => {
    await expectProblem(await createToken({ cookie: sessionCookie, "x-csrf-token": "forged" }), 403, "CSRF_TOKEN_INVALID")
  })

  it("a cookie-authenticated GET needs no CSRF token", async () => {
    const response = await fetch(`${server.url}/api/me`, { headers: { cookie: sessionCookie } })
    expect(response.status).toBe(200)
  })

  it("a cookie-authenticated POST with the session's CSRF token succeeds", async () => {
    const csrf = await fetch(`${server.url}/api/session/csrf`, { headers: { cookie: sessionCookie } })
    const { headerName, parameterName, token } = (await csrf.json()) as { headerName: string; parameterName: string; token: string }
    expect(headerName).toBe("X-CSRF-Token")
    expect(parameterName).toBe("_csrf")
    const response = await createToken({ cookie: sessionCookie, [headerName]: token })
    expect(response.status).toBe(201)
  })

  it("a bearer POST needs no CSRF token", async () => {
    const response = await createToken({ authorization: `Bearer ${server.adminToken}` })
    expect(response.status).toBe(201)
    expect(((await response.json()) as { token: string }).token).toMatch(/^lore_pat_/)
  })

  it("the SDK's cookie mode fetches and sends the CSRF token itself", async () => {
    const browser = createLoreClient({ baseUrl: server.url, auth: "cookie" })
    await browser.session.signIn(server.adminToken)
    const issued = await browser.tokens.create({ name: "made in cookie mode" })
    expect(issued.token).toMatch(/^lore_pat_/)
    await browser.tokens.revoke(issued.id)
    const listed = await browser.tokens.list()
    expect(listed.find((t) => t.id === issued.id)?.status).toBe("REVOKED")
  })
})
