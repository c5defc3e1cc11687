import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import Provider from "oidc-provider"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Single sign-on end to end: a real OpenID provider (oidc-provider) on loopback, Lore's openid-client flow
 * (authorization code + PKCE), a browser simulated with manual redirects and per-origin cookie jars.
 */
const CLIENT_SECRET = "lore-test-client-secret-0123456789"
const accounts = new Map<string, { email: string; email_verified: boolean; name: string }>()
let signInAs = "alice"
let lore: TestServer
let admin: Call
let issuer: string
let providerServer: Server

const startProvider = async (redirectUri: string) => {
  providerServer = createServer()
  await new Promise<void>((resolve) => providerServer.listen(0, "127.0.0.1", resolve))
  issuer = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    clients: [{
      client_id: "lore", client_secret: CLIENT_SECRET, redirect_uris: [redirectUri],
      grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic"
    }],
    pkce: { required: () => true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false,
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, ...accounts.get(id) }) }),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["oidc-provider-test-cookie-key"] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 }
  } as any)
  const callback = provider.callback()
  // The "login page": signs in as `signInAs` and consents, without a form.
  providerServer.on("request", async (req, res) => {
    if (req.url?.startsWith("/interaction/")) {
      const details = await provider.interactionDetails(req, res)
      const grant = new provider.Grant({ accountId: signInAs, clientId: String(details.params.client_id) })
      grant.addOIDCScope("openid email profile")
      const grantId = await grant.save()
      await provider.interactionFinished(req, res, { login: { accountId: signInAs }, consent: { grantId } }, { mergeWithLastSubmission: false })
      return
    }
    callback(req, res)
  })
}

/** A browser: cookies per origin, redirects followed by hand so each hop can be checked. */
const browser = () => {
  const jars = new Map<string, Map<string, string>>()
  const get = async (url: string, extraCookie?: string) => {
    const origin = new URL(url).origin
    const jar = jars.get(origin) ?? new Map<string, string>()
    jars.set(origin, jar)
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).concat(extraCookie ? [extraCookie] : []).join("; ")
    const response = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const [name, ...value] = pair!.split("=")
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(name!.trim())
      else jar.set(name!.trim(), value.join("="))
    }
    return response
  }
  /** Follows redirects from `url` until one leads back to Lore's callback; answers that callback URL. */
  const toCallback = async (url: string) => {
    let next = url
    for (let hop = 0; hop < 10; hop++) {
      if (next.startsWith(lore.url + "/api/session/sso/callback")) return next
      const response = await get(next)
      const location = response.headers.get("location")
      if (!location) throw new Error(`no redirect from ${next}: ${response.status} ${await response.text()}`)
      next = new URL(location, next).href
    }
    throw new Error("too many redirects")
  }
  const loreCookie = (name: string) => jars.get(lore.url)?.get(name)
  return { get, toCallback, loreCookie }
}

/** Starts a sign-in at Lore and walks the provider; answers the browser and Lore's callback URL (not yet visited). */
const signInUntilCallback = async (as: string, query = "") => {
  signInAs = as
  const b = browser()
  const start = await b.get(`${lore.url}/api/session/sso/start${query}`)
  expect(start.status, await start.clone().text()).toBe(302)
  expect(start.headers.getSetCookie().join(" ")).toMatch(/lore_sso_state=.*SameSite=Lax/i)
  const callback = await b.toCallback(start.headers.get("location")!)
  return { b, callback }
}

const problem = async (response: Response) => (await response.json()) as { code: string; status: number }

beforeAll(async () => {
  lore = await startTestServer({ ssoAllowHttpIssuer: true, allowedPrivateHosts: ["127.0.0.1"] })
  admin = http(lore.url, lore.adminToken)
  await startProvider(`${lore.url}/api/session/sso/callback`)
  accounts.set("alice", { email: "alice@example.com", email_verified: true, name: "Alice" })
  accounts.set("mallory", { email: "bob@example.com", email_verified: false, name: "Not Bob" })
  accounts.set("stranger", { email: "stranger@example.com", email_verified: true, name: "Stranger" })
  accounts.set("newcomer", { email: "newcomer@example.com", email_verified: true, name: "New Comer" })
  const departmentId = (await admin("GET", "/api/admin/departments")).body[0].id
  await createUser(admin, lore.url, { email: "alice@example.com", departmentId })
  await createUser(admin, lore.url, { email: "bob@example.com", departmentId })
})
afterAll(async () => {
  await lore?.dispose()
  await new Promise((resolve) => providerServer?.close(resolve))
})

describe("SSO settings", () => {
  it("are not configured at first, so a sign-in cannot start", async () => {
    const reply = await fetch(`${lore.url}/api/session/sso/start`, { redirect: "manual" })
    expect(reply.status).toBe(404)
    expect((await problem(reply)).code).toBe("SSO_NOT_CONFIGURED")
    expect((await admin("GET", "/api/admin/sso")).body).toMatchObject({ enabled: false, version: 0, clientSecretSet: false })
  })

  it("are saved with a write-only secret and a version", async () => {
    expect((await admin("PUT", "/api/admin/sso", { enabled: true, issuer: "ftp://example.com", clientId: "lore", version: 0 })).body.code).toBe("INVALID_SSO_SETTINGS")
    const saved = await admin("PUT", "/api/admin/sso", { enabled: true, issuer, clientId: "lore", clientSecret: CLIENT_SECRET, version: 0 })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect(saved.body).toMatchObject({ enabled: true, issuer, clientId: "lore", clientSecretSet: true, justInTimeCreation: false, version: 1, redirectPath: "/api/session/sso/callback" })
    expect(JSON.stringify(saved.body)).not.toContain(CLIENT_SECRET)
    expect((await admin("GET", "/api/admin/sso")).body.clientSecretSet).toBe(true)
    expect((await admin("PUT", "/api/admin/sso", { enabled: true, issuer, clientId: "lore", version: 0 })).status).toBe(409)
    const audit = JSON.stringify((await admin("GET", "/api/admin/audit-events?limit=20")).body)
    expect(audit).not.toContain(CLIENT_SECRET)
  })
})

describe("SSO sign-in", () => {
  it("signs a user in by verified email: the callback sets the session cookie and links the user", async () => {
    const { b, callback } = await signInUntilCallback("alice", "?returnTo=/welcome")
    const done = await b.get(callback)
    expect(done.status, await done.clone().text()).toBe(302)
    expect(done.headers.get("location")).toBe("/welcome")
    const session = b.loreCookie("lore_session")
    expect(session).toBeTruthy()
    const me = await fetch(`${lore.url}/api/me`, { headers: { cookie: `lore_session=${session}` } })
    expect(me.status).toBe(200)
    expect((await me.json()).email).toBe("alice@example.com")
    const alice = (await admin("GET", "/api/admin/users")).body.find((u: any) => u.email === "alice@example.com")
    expect(alice.signInLinked).toBe(true)
  })

  it("refuses a wrong state and a missing state cookie", async () => {
    const { b, callback } = await signInUntilCallback("alice")
    const wrong = new URL(callback)
    wrong.searchParams.set("state", "not-the-state")
    const refused = await b.get(wrong.href)
    expect(refused.status).toBe(400)
    expect((await problem(refused)).code).toBe("SSO_STATE_INVALID")
    const noCookie = await fetch(callback, { redirect: "manual" })
    expect(noCookie.status).toBe(400)
    expect((await problem(noCookie)).code).toBe("SSO_STATE_INVALID")
  })

  it("refuses a replayed code: the same callback again, and the old code under a fresh state", async () => {
    const { b, callback } = await signInUntilCallback("alice")
    const stateCookie = `lore_sso_state=${new URL(callback).searchParams.get("state")}`
    expect((await b.get(callback)).status).toBe(302)
    const again = await fetch(callback, { redirect: "manual", headers: { cookie: stateCookie } })
    expect(again.status).toBe(400)
    expect((await problem(again)).code).toBe("SSO_STATE_INVALID")
    // A fresh sign-in's state with the used code: the provider refuses the code (used, and not this PKCE verifier).
    const fresh = browser()
    const start = await fresh.get(`${lore.url}/api/session/sso/start`)
    const freshState = new URL(start.headers.get("location")!).searchParams.get("state")!
    const replay = new URL(callback)
    replay.searchParams.set("state", freshState)
    const refused = await fresh.get(replay.href)
    expect(refused.status).toBe(401)
    expect((await problem(refused)).code).toBe("SSO_CODE_REJECTED")
    expect(fresh.loreCookie("lore_session")).toBeUndefined()
  })

  it("refuses an unverified email, even one that matches a user", async () => {
    const { b, callback } = await signInUntilCallback("mallory")
    const refused = await b.get(callback)
    expect(refused.status).toBe(403)
    expect((await problem(refused)).code).toBe("SSO_USER_NOT_LINKED")
    expect(b.loreCookie("lore_session")).toBeUndefined()
  })

  it("refuses unknown users unless just-in-time creation is on", async () => {
    const { b, callback } = await signInUntilCallback("stranger")
    expect((await problem(await b.get(callback))).code).toBe("SSO_USER_NOT_LINKED")
    const version = (await admin("GET", "/api/admin/sso")).body.version
    expect((await admin("PUT", "/api/admin/sso", { enabled: true, issuer, clientId: "lore", justInTimeCreation: true, version })).status).toBe(200)
    const second = await signInUntilCallback("newcomer")
    expect((await second.b.get(second.callback)).status).toBe(302)
    const created = (await admin("GET", "/api/admin/users")).body.find((u: any) => u.email === "newcomer@example.com")
    expect(created).toMatchObject({ name: "New Comer", active: true, signInLinked: true, role: "EMPLOYEE" })
  })

  it("hands `lore login --sso` a token on its loopback redirect instead of a cookie", async () => {
    const { b, callback } = await signInUntilCallback("alice", `?cliRedirect=${encodeURIComponent("http://127.0.0.1:45678/callback?nonce=n1")}`)
    const done = await b.get(callback)
    expect(done.status).toBe(302)
    const target = new URL(done.headers.get("location")!)
    expect(target.origin).toBe("http://127.0.0.1:45678")
    expect(target.searchParams.get("nonce")).toBe("n1")
    const token = target.searchParams.get("token")!
    expect(token).toMatch(/^lore_pat_/)
    expect((await http(lore.url, token)("GET", "/api/me")).body.email).toBe("alice@example.com")
    expect(b.loreCookie("lore_session")).toBeUndefined()
    const refused = await fetch(`${lore.url}/api/session/sso/start?cliRedirect=${encodeURIComponent("https://evil.example/cb")}`, { redirect: "manual" })
    expect(refused.status).toBe(400)
  })
})
