import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * OpenID Connect discovery goes through the outbound guard: an issuer on a loopback, link-local or private
 * address is refused when saved (400 INVALID_SSO_SETTINGS) unless LORE_ALLOWED_PRIVATE_HOSTS names it, so a
 * sign-in can never make Lore fetch the cloud metadata address or an internal service.
 */

let server: TestServer
let admin: Call

beforeAll(async () => {
  server = await startTestServer({ ssoAllowHttpIssuer: true, allowedPrivateHosts: ["10.1.2.3:9443"] })
  admin = http(server.url, server.adminToken)
})
afterAll(() => server?.dispose())

describe("SSO issuers", () => {
  it("on private addresses are refused when saved", async () => {
    for (const issuer of ["http://127.0.0.1:9/", "http://169.254.169.254/latest", "https://[::1]/", "https://2130706433/", "https://localhost/", "https://10.1.2.3:8443/"]) {
      const reply = await admin("PUT", "/api/admin/sso", { enabled: true, issuer, clientId: "lore", version: 0 })
      expect(reply.status, issuer).toBe(400)
      expect(reply.body.code).toBe("INVALID_SSO_SETTINGS")
    }
    expect((await admin("GET", "/api/admin/sso")).body).toMatchObject({ enabled: false, version: 0 })
  })

  it("listed by name (and port) are accepted", async () => {
    const saved = await admin("PUT", "/api/admin/sso", { enabled: false, issuer: "https://10.1.2.3:9443/", clientId: "lore", version: 0 })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
  })
})
