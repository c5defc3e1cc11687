import { startServer } from "@lore/server"
import { ConfigProvider, Effect, Either, Option } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Settings } from "../../src/Config"
import { parsePublicUrl, parseTrustedProxies, publicOrigin } from "../../src/domain/PublicUrl"
import { enabledConnection, oktaUser } from "../provisioning/support"
import { http } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Issue 29, finding 7: SCIM `meta.location` and the single sign-on redirect URI followed X-Forwarded-Host and
 * X-Forwarded-Proto from anyone. Now LORE_PUBLIC_URL decides; without it the Host header does, and forwarding
 * headers count only from a peer listed in LORE_TRUSTED_PROXIES. The tests' peer is 127.0.0.1.
 */
let issuer = ""
let provider: Server

/** A real OpenID discovery document on loopback: enough for Lore to build an authorization URL. */
const startDiscovery = async () => {
  provider = createServer((request, response) => {
    if (request.url === "/.well-known/openid-configuration") {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({
        issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"], subject_types_supported: ["public"], id_token_signing_alg_values_supported: ["RS256"]
      }))
      return
    }
    response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve))
  issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
}

interface Observed {
  readonly location: string
  readonly locationHeader: string
  readonly discovery: string
  readonly redirectUri: string
}

const forwarded = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" }

/** What one server answers when the request carries X-Forwarded-Host: evil.example. */
const observe = async (server: TestServer): Promise<Observed> => {
  const admin = http(server.url, server.adminToken)
  const token = (await enabledConnection(admin, { alias: `urls-${Date.now()}` })).token
  const sso = await admin("PUT", "/api/admin/sso", { enabled: true, issuer, clientId: "lore", clientSecret: "secret-0123456789", version: 0 })
  expect(sso.status, JSON.stringify(sso.body)).toBe(200)
  const created = await fetch(`${server.url}/scim/v2/Users`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json", ...forwarded },
    body: JSON.stringify(oktaUser(`urls-${Date.now()}@example.com`))
  })
  const user = await created.json()
  expect(created.status, JSON.stringify(user)).toBe(201)
  const config = await (await fetch(`${server.url}/scim/v2/ServiceProviderConfig`, { headers: { authorization: `Bearer ${token}`, ...forwarded } })).json()
  const start = await fetch(`${server.url}/api/session/sso/start`, { redirect: "manual", headers: forwarded })
  expect(start.status, await start.clone().text()).toBe(302)
  const authorization = new URL(start.headers.get("location")!)
  expect(authorization.origin).toBe(issuer)
  return {
    location: user.meta.location,
    locationHeader: created.headers.get("location") ?? "",
    discovery: config.meta.location,
    redirectUri: authorization.searchParams.get("redirect_uri") ?? ""
  }
}

const servers: Array<TestServer> = []
beforeAll(async () => {
  await startDiscovery()
})
afterAll(async () => {
  await Promise.all(servers.map((s) => s.dispose()))
  provider?.close()
})

const start = async (options: Parameters<typeof startTestServer>[0]) => {
  const server = await startTestServer({ ssoAllowHttpIssuer: true, allowedPrivateHosts: [new URL(issuer).host], ...options })
  servers.push(server)
  return server
}

describe("absolute URLs over HTTP", () => {
  it("an untrusted peer's X-Forwarded-Host changes neither meta.location nor the SSO redirect URI", async () => {
    const server = await start({})
    const seen = await observe(server)
    expect(seen.location).toMatch(new RegExp(`^${server.url}/scim/v2/Users/[0-9a-f-]{36}$`))
    expect(seen.locationHeader).toBe(seen.location)
    expect(seen.discovery).toBe(`${server.url}/scim/v2/ServiceProviderConfig`)
    expect(seen.redirectUri).toBe(`${server.url}/api/session/sso/callback`)
    expect(JSON.stringify(seen)).not.toContain("evil.example")
  })

  it("a listed proxy's X-Forwarded-Host and -Proto do count", async () => {
    const server = await start({ trustedProxies: ["10.0.0.0/8", "127.0.0.0/8"] })
    const seen = await observe(server)
    expect(seen.location).toMatch(/^https:\/\/evil\.example\/scim\/v2\/Users\/[0-9a-f-]{36}$/)
    expect(seen.discovery).toBe("https://evil.example/scim/v2/ServiceProviderConfig")
    expect(seen.redirectUri).toBe("https://evil.example/api/session/sso/callback")
  })

  it("LORE_PUBLIC_URL decides over Host and every forwarding header", async () => {
    const server = await start({ publicUrl: "https://lore.example.com/", trustedProxies: ["127.0.0.1"] })
    const seen = await observe(server)
    expect(seen.location).toMatch(/^https:\/\/lore\.example\.com\/scim\/v2\/Users\/[0-9a-f-]{36}$/)
    expect(seen.redirectUri).toBe("https://lore.example.com/api/session/sso/callback")
  })

  it("an invalid public URL or proxy list stops the server from starting", async () => {
    // Refused while reading the settings, before a data dir or database is touched.
    const dataDir = "/nonexistent/lore-public-url-test"
    await expect(async () => startServer({ dataDir, publicUrl: "https://lore.example.com/lore" })).rejects.toThrow(/origin/)
    await expect(async () => startServer({ dataDir, trustedProxies: ["proxy.internal"] })).rejects.toThrow(/LORE_TRUSTED_PROXIES/)
  })
})

describe("the rules, request by request", () => {
  const request = (peer: string | undefined, headers: Record<string, string>) =>
    ({ headers, remoteAddress: Option.fromNullable(peer) }) as unknown as Parameters<ReturnType<typeof publicOrigin>>[0]
  const origin = (settings: Partial<Parameters<typeof publicOrigin>[0]>, peer: string | undefined, headers: Record<string, string>) =>
    publicOrigin({ publicUrl: Option.none(), trustedProxies: [], secureCookies: false, ...settings })(request(peer, headers))

  it("without a public URL: the Host header, https when cookies are Secure", () => {
    expect(origin({}, "203.0.113.9", { host: "lore.internal:8787" })).toBe("http://lore.internal:8787")
    expect(origin({ secureCookies: true }, "203.0.113.9", { host: "lore.internal" })).toBe("https://lore.internal")
    expect(origin({}, "203.0.113.9", {})).toBe("http://localhost")
  })

  it("forwarding headers count only from listed peers, IPv4 seen through IPv6 included", () => {
    const headers = { host: "lore.internal", "x-forwarded-host": "public.example, evil.example", "x-forwarded-proto": "https" }
    expect(origin({}, "10.1.2.3", headers)).toBe("http://lore.internal")
    expect(origin({ trustedProxies: ["10.0.0.0/8"] }, "10.1.2.3", headers)).toBe("https://public.example")
    expect(origin({ trustedProxies: ["10.0.0.0/8"] }, "::ffff:10.1.2.3", headers)).toBe("https://public.example")
    expect(origin({ trustedProxies: ["10.0.0.0/8"] }, "11.1.2.3", headers)).toBe("http://lore.internal")
    expect(origin({ trustedProxies: ["fd00::/8"] }, "fd00::1", headers)).toBe("https://public.example")
    expect(origin({ trustedProxies: ["fd00::/8"] }, undefined, headers)).toBe("http://lore.internal")
  })

  it("a Host or forwarded host that is not a host name gives localhost, never a URL part", () => {
    expect(origin({}, "127.0.0.1", { host: "evil.example/path?x=" })).toBe("http://localhost")
    expect(origin({}, "127.0.0.1", { host: "a@evil.example" })).toBe("http://localhost")
    expect(origin({ trustedProxies: ["127.0.0.1"] }, "127.0.0.1", { host: "lore", "x-forwarded-host": "evil.example\r\nx: y", "x-forwarded-proto": "javascript" })).toBe("http://localhost")
    expect(origin({}, "127.0.0.1", { host: "[::1]:8787" })).toBe("http://[::1]:8787")
  })

  it("parses LORE_PUBLIC_URL and LORE_TRUSTED_PROXIES strictly", () => {
    expect(parsePublicUrl("https://lore.example.com")).toEqual({ origin: "https://lore.example.com" })
    expect(parsePublicUrl("https://lore.example.com:8443/")).toEqual({ origin: "https://lore.example.com:8443" })
    for (const bad of ["lore.example.com", "ftp://lore.example.com", "https://lore.example.com/lore", "https://u:p@lore.example.com", "https://lore.example.com/?a=1", "https://lore.example.com/#x"]) {
      expect("error" in parsePublicUrl(bad), bad).toBe(true)
    }
    expect(parseTrustedProxies(" 10.0.0.0/8, 192.168.1.10 ,::1, fd00::/8,")).toEqual({ proxies: ["10.0.0.0/8", "192.168.1.10", "::1", "fd00::/8"] })
    for (const bad of ["10.0.0.0/33", "proxy.internal", "10.0.0.0/8/1", "::1/129", "10.0.0.0/x", "*"]) {
      expect("error" in parseTrustedProxies(bad), bad).toBe(true)
    }
  })

  it("Settings.load refuses an invalid LORE_PUBLIC_URL or LORE_TRUSTED_PROXIES at start", async () => {
    const load = (env: Record<string, string>) =>
      Effect.runPromise(Effect.either(Effect.withConfigProvider(Settings.load, ConfigProvider.fromMap(new Map(Object.entries(env))))))
    const good = await load({ LORE_PUBLIC_URL: "https://lore.example.com", LORE_TRUSTED_PROXIES: "10.0.0.1" })
    expect(Either.isRight(good) && Option.getOrNull(good.right.publicUrl)).toBe("https://lore.example.com")
    expect(Either.isRight(good) && good.right.trustedProxies).toEqual(["10.0.0.1"])
    const unset = await load({})
    expect(Either.isRight(unset) && Option.isNone(unset.right.publicUrl) && unset.right.trustedProxies.length === 0).toBe(true)
    expect(Either.isLeft(await load({ LORE_PUBLIC_URL: "https://lore.example.com/sub" }))).toBe(true)
    expect(Either.isLeft(await load({ LORE_TRUSTED_PROXIES: "everyone" }))).toBe(true)
  })
})
