import http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  checkOutboundUrl,
  guardedAgents,
  guardedFetch,
  guardedLookup,
  type OutboundPolicy,
  resolveChecked
} from "../../src/outbound/Guard"

/**
 * The shared outbound guard against every loopback/private spelling an attacker tries: URLs refused before
 * anything is sent, names refused on what they resolve to, redirects to private addresses refused, and the
 * administrator's allow-list matched by name (and port). Only 127.0.0.1 servers started here are contacted.
 */

const none: OutboundPolicy = { allowedPrivateHosts: [] }

interface Server {
  readonly port: number
  readonly hits: Array<string>
  readonly close: () => Promise<void>
}

const startServer = (handler: (request: http.IncomingMessage, response: http.ServerResponse) => void, host = "127.0.0.1") =>
  new Promise<Server>((resolve) => {
    const hits: Array<string> = []
    const server = http.createServer((request, response) => {
      hits.push(`${request.method} ${request.url}${request.headers.authorization ? ` auth=${request.headers.authorization}` : ""}`)
      handler(request, response)
    })
    server.listen(0, host, () => resolve({
      port: (server.address() as AddressInfo).port,
      hits,
      close: () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()) })
    }))
  })

let target: Server
let redirector: Server

beforeAll(async () => {
  target = await startServer((_request, response) => response.end("secret from loopback"))
  redirector = await startServer((request, response) => {
    const to = new URL(request.url ?? "/", "http://x").searchParams.get("to") ?? "/"
    response.writeHead(302, { location: to }).end()
  })
})

afterAll(async () => {
  await target.close()
  await redirector.close()
})

const refusalOf = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error("expected the guard to refuse")
}

describe("checkOutboundUrl", () => {
  it.each([
    "http://127.0.0.1/", "http://127.1/", "http://2130706433/", "http://0x7f.1/", "http://0177.0.0.1/", "http://[::1]/",
    "http://[::ffff:127.0.0.1]/", "http://[::127.0.0.1]/", "http://[::]/", "http://0.0.0.0/", "http://169.254.169.254/latest/meta-data/",
    "http://10.1.2.3/", "http://172.16.0.1/", "http://192.168.1.1/", "http://100.64.0.1/", "http://[fe80::1]/", "http://[fd00::1]/",
    "http://localhost/", "http://LOCALHOST./", "http://api.localhost/", "http://[64:ff9b::7f00:1]/"
  ])("refuses %s", (url) => {
    const checked = checkOutboundUrl(url, none)
    expect(checked).toMatchObject({ ok: false, code: "ADDRESS_NOT_ALLOWED" })
  })

  it.each(["file:///etc/passwd", "ftp://example.com/", "gopher://example.com/", "ext::sh -c id", "javascript:alert(1)"])("refuses the scheme of %s", (url) => {
    expect(checkOutboundUrl(url, none).ok).toBe(false)
  })

  it("refuses credentials in the URL and does not quote them", () => {
    const checked = checkOutboundUrl("https://user:hunter2@example.com/", none)
    expect(checked).toMatchObject({ ok: false, code: "ADDRESS_NOT_ALLOWED" })
    expect(JSON.stringify(checked)).not.toContain("hunter2")
  })

  it("answers INVALID_URL for what is not a URL, and quotes at most 200 bytes of a huge host", () => {
    expect(checkOutboundUrl("not a url", none)).toMatchObject({ ok: false, code: "INVALID_URL" })
    const huge = checkOutboundUrl(`http://${"a".repeat(60)}.${"b".repeat(60)}.localhost/`, none)
    expect(huge.ok).toBe(false)
    if (!huge.ok) expect(Buffer.byteLength(huge.message)).toBeLessThan(400)
  })

  it("admits public addresses and names without resolving them", () => {
    expect(checkOutboundUrl("https://93.184.216.34/", none).ok).toBe(true)
    expect(checkOutboundUrl("https://example.com/x", none).ok).toBe(true)
  })

  it("admits a private host only as the administrator wrote it, and the port when the entry has one", () => {
    expect(checkOutboundUrl("http://127.0.0.1:8080/", { allowedPrivateHosts: ["127.0.0.1"] }).ok).toBe(true)
    expect(checkOutboundUrl("http://127.0.0.1:8080/", { allowedPrivateHosts: ["127.0.0.1:8080"] }).ok).toBe(true)
    expect(checkOutboundUrl("http://127.0.0.1:8081/", { allowedPrivateHosts: ["127.0.0.1:8080"] }).ok).toBe(false)
    expect(checkOutboundUrl("http://[::1]:9/", { allowedPrivateHosts: ["[::1]:9"] }).ok).toBe(true)
    // Another spelling of the same address is another host: the allow-list is by name, not by address.
    expect(checkOutboundUrl("http://10.0.0.1/", { allowedPrivateHosts: ["127.0.0.1"] }).ok).toBe(false)
    expect(checkOutboundUrl("http://git.internal:3000/", { allowedPrivateHosts: ["git.internal:3000"] }).ok).toBe(true)
  })
})

describe("guardedLookup and resolveChecked", () => {
  const lookup = (policy: OutboundPolicy, name: string) =>
    new Promise<string>((resolve, reject) =>
      guardedLookup(policy)(name, {}, (error, address) => (error ? reject(error) : resolve(String(address)))))

  it("refuses a name that resolves to loopback, and allows it when listed", async () => {
    expect((await refusalOf(lookup(none, "localhost"))).code).toBe("ADDRESS_NOT_ALLOWED")
    expect(await lookup({ allowedPrivateHosts: ["localhost"] }, "localhost")).toMatch(/^(127\.0\.0\.1|::1)$/)
  })

  it("checks before pinning: loopback names and literals refused, allowed ones resolved", async () => {
    expect((await refusalOf(resolveChecked(new URL("http://localhost:1/"), none))).code).toBe("ADDRESS_NOT_ALLOWED")
    expect((await refusalOf(resolveChecked(new URL("http://[::1]/"), none))).code).toBe("ADDRESS_NOT_ALLOWED")
    expect((await refusalOf(resolveChecked(new URL("http://2130706433/"), none))).code).toBe("ADDRESS_NOT_ALLOWED")
    expect(await resolveChecked(new URL("http://127.0.0.1:5/"), { allowedPrivateHosts: ["127.0.0.1"] })).toEqual({ address: "127.0.0.1", family: 4 })
    expect(await resolveChecked(new URL("http://[::1]:5/"), { allowedPrivateHosts: ["[::1]"] })).toEqual({ address: "::1", family: 6 })
    const pinned = await resolveChecked(new URL("http://localhost:5/"), { allowedPrivateHosts: ["localhost:5"] })
    expect(["127.0.0.1", "::1"]).toContain(pinned.address)
  })
})

describe("guardedFetch", () => {
  it("refuses loopback in every spelling and sends nothing", async () => {
    const fetch = guardedFetch(none)
    const before = target.hits.length
    for (const host of ["127.0.0.1", "2130706433", "0x7f.1", "localhost", "[::ffff:127.0.0.1]"]) {
      const error = await refusalOf(fetch(`http://${host}:${target.port}/`))
      expect(error.code, host).toBe("ADDRESS_NOT_ALLOWED")
    }
    expect(target.hits.length).toBe(before)
  })

  it("reaches a private host the administrator allowed by name, as a global Response", async () => {
    const response = await guardedFetch({ allowedPrivateHosts: [`127.0.0.1:${target.port}`] })(`http://127.0.0.1:${target.port}/ok`)
    expect(response).toBeInstanceOf(Response)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe("secret from loopback")
    expect(response.url).toBe(`http://127.0.0.1:${target.port}/ok`)
  })

  it("refuses a redirect from an allowed host to a private address that is not allowed", async () => {
    const fetch = guardedFetch({ allowedPrivateHosts: [`127.0.0.1:${redirector.port}`] })
    const before = target.hits.length
    for (const to of [`http://127.0.0.1:${target.port}/`, `http://localhost:${target.port}/`, `http://[::1]:${target.port}/`, "http://169.254.169.254/latest/meta-data/"]) {
      const error = await refusalOf(fetch(`http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(to)}`))
      expect(error.code, to).toBe("ADDRESS_NOT_ALLOWED")
    }
    expect(target.hits.length).toBe(before)
  })

  it("on a redirect to another origin, drops the credential, and a 302 turns a POST into a GET", async () => {
    const fetch = guardedFetch({ allowedPrivateHosts: ["127.0.0.1"] })
    const to = encodeURIComponent(`http://127.0.0.1:${target.port}/landed`)
    const answer = await fetch(`http://127.0.0.1:${redirector.port}/?to=${to}`, { method: "POST", body: "x=1", headers: { authorization: "Bearer zq-secret" } })
    expect(await answer.text()).toBe("secret from loopback")
    expect(target.hits.at(-1)).toBe("GET /landed")
  })

  it("follows a redirect between allowed hosts, and stops after maxRedirects", async () => {
    const policy = { allowedPrivateHosts: ["127.0.0.1"] }
    const followed = await guardedFetch(policy)(`http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(`http://127.0.0.1:${target.port}/next`)}`)
    expect(await followed.text()).toBe("secret from loopback")
    expect(followed.redirected).toBe(true)
    const loop = `http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(`http://127.0.0.1:${redirector.port}/`)}`
    await expect(guardedFetch(policy, { maxRedirects: 2 })(loop)).rejects.toThrow(/redirects/)
  })
})

describe("guardedAgents", () => {
  const get = (url: string, agent: http.Agent) =>
    new Promise<string>((resolve, reject) => {
      http.get(url, { agent }, (response) => {
        let text = ""
        response.on("data", (chunk) => (text += chunk))
        response.on("end", () => resolve(text))
      }).on("error", reject)
    })

  it("refuses loopback literals and names through node:http, and reaches allowed hosts", async () => {
    const refused = guardedAgents(none)
    const before = target.hits.length
    expect((await refusalOf(get(`http://127.0.0.1:${target.port}/`, refused.http))).code).toBe("ADDRESS_NOT_ALLOWED")
    expect((await refusalOf(get(`http://localhost:${target.port}/`, refused.http))).code).toBe("ADDRESS_NOT_ALLOWED")
    expect(target.hits.length).toBe(before)
    const allowed = guardedAgents({ allowedPrivateHosts: ["127.0.0.1"] })
    expect(await get(`http://127.0.0.1:${target.port}/`, allowed.http)).toBe("secret from loopback")
    allowed.http.destroy()
  })
})
