import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { enabledConnection, ERROR_SCHEMA, expectScimError, oktaUser, scimClient, type ScimCall } from "../provisioning/support"
import { http } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Issue 29, findings 5 and 6 on /scim/v2: inputs that answered 500 (an undecodable path, a startIndex past
 * PostgreSQL's integer, a filter date outside PostgreSQL's range, deeply nested filters), and 404/405 details
 * that repeated the request path. Each is now a SCIM 4xx, authenticated first, with a detail that repeats
 * nothing the caller sent.
 */
let server: TestServer
let scim: ScimCall
let token = ""

beforeAll(async () => {
  server = await startTestServer()
  token = (await enabledConnection(http(server.url, server.adminToken), { alias: "bad-input" })).token
  scim = scimClient(server.url, token)
  for (const n of [1, 2, 3]) expect((await scim("POST", "/Users", oktaUser(`bad-input-${n}@example.com`))).status).toBe(201)
})
afterAll(() => server?.dispose())

const raw = async (path: string, init: { method?: string; authorized?: boolean } = {}) => {
  const response = await fetch(`${server.url}${path}`, {
    method: init.method ?? "GET",
    headers: init.authorized === false ? {} : { authorization: `Bearer ${token}` }
  })
  const text = await response.text()
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text, body: JSON.parse(text) }
}

describe("undecodable and unknown paths: authenticate first, then a fixed 404", () => {
  const marker = "Zq7" + "w".repeat(300)
  it.each([
    "/scim/v2/%E0%A4%A",
    "/scim/v2/Users/%E0%A4%A",
    "/scim/v2/%ZZ",
    `/scim/v2/${marker}`,
    `/scim/v2/Users/00000000-0000-4000-8000-000000000000/${marker}`,
    `/scim/v2/Schemas/${marker}`,
    `/scim/v2/ResourceTypes/${marker}`
  ])("%s", async (path) => {
    const anonymous = await raw(path, { authorized: false })
    expect(anonymous.status, anonymous.text).toBe(401)
    expect(anonymous.body.schemas).toEqual([ERROR_SCHEMA])
    const known = await raw(path)
    expect(known.status, known.text).toBe(404)
    expect(known.contentType).toContain("application/scim+json")
    expect(known.body.schemas).toEqual([ERROR_SCHEMA])
    expect(known.text).not.toContain("Zq7ww")
    expect(known.text).not.toContain("%E0")
    expect(known.text).not.toContain("/scim/v2/")
  })

  it("a 405 names neither the method nor the path", async () => {
    const reply = await raw(`/scim/v2/ServiceProviderConfig?${marker}`, { method: "DELETE" })
    expect(reply.status).toBe(405)
    expect(reply.body.schemas).toEqual([ERROR_SCHEMA])
    expect(reply.text).not.toContain("DELETE")
    expect(reply.text).not.toContain("ServiceProviderConfig")
    const users = await raw(`/scim/v2/Users`, { method: "PUT" })
    expect(users.status).toBe(405)
    expect(users.text).not.toContain("/Users")
  })
})

describe("startIndex past 2^31-1 is an empty page", () => {
  it.each(["99999999999999999999", "2147483648", "9".repeat(400), "1e309"])("startIndex=%s", async (startIndex) => {
    for (const collection of ["Users", "Groups"]) {
      const reply = await scim("GET", `/${collection}?startIndex=${startIndex}&count=5`)
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      if (startIndex !== "1e309") {
        expect(reply.body.Resources).toEqual([])
        expect(reply.body.itemsPerPage).toBe(0)
      }
      expect(typeof reply.body.totalResults).toBe("number")
    }
  })

  it("the last index that fits still pages in SQL", async () => {
    const reply = await scim("GET", "/Users?startIndex=2147483647&count=5")
    expect(reply.status).toBe(200)
    expect(reply.body.Resources).toEqual([])
    expect(reply.body.totalResults).toBe(3)
  })
})

describe("filters past the limits are 400 invalidFilter", () => {
  const filtered = (filter: string) => scim("GET", `/Users?filter=${encodeURIComponent(filter)}`)

  it("a filter over 4,096 characters", async () => {
    expectScimError(await filtered(`userName eq "${"a".repeat(4100)}"`), 400, "invalidFilter")
    const atLimit = `userName eq "${"a".repeat(4096 - 'userName eq ""'.length)}"`
    expect(atLimit.length).toBe(4096)
    expect((await filtered(atLimit)).status).toBe(200)
  })

  it("500 nested not ( and 17 nested parentheses are refused; 16 levels still work", async () => {
    expectScimError(await filtered(`${"not (".repeat(500)}userName eq "x"${")".repeat(500)}`), 400, "invalidFilter")
    expectScimError(await filtered(`${"(".repeat(17)}userName eq "x"${")".repeat(17)}`), 400, "invalidFilter")
    expectScimError(await filtered(`emails[${"not (".repeat(16)}value eq "x"${")".repeat(16)}]`), 400, "invalidFilter")
    const parentheses = await filtered(`${"(".repeat(16)}userName eq "bad-input-1@example.com"${")".repeat(16)}`)
    expect(parentheses.status, JSON.stringify(parentheses.body)).toBe(200)
    expect(parentheses.body.totalResults).toBe(1)
    // 15 negations inside 15 parentheses: 16 levels of filter, an odd number of nots.
    const negations = await filtered(`${"not (".repeat(15)}userName eq "bad-input-1@example.com"${")".repeat(15)}`)
    expect(negations.status, JSON.stringify(negations.body)).toBe(200)
    expect(negations.body.totalResults).toBe(2)
  })

  it("a long flat or-list stays within the limits and answers", async () => {
    const terms = Array.from({ length: 150 }, (_, i) => `userName eq "bad-input-${i}@example.com"`).join(" or ")
    expect(terms.length).toBeLessThan(4096 * 2)
    const reply = await filtered(terms.slice(0, 4096).replace(/ or [^o]*$/, ""))
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.totalResults).toBe(3)
  })

  it.each([
    "-271821-04-20T00:00:00Z",
    "+275760-09-13T00:00:00Z",
    "0000-12-31T23:59:59Z",
    "10000-01-01T00:00:00Z",
    "not a date"
  ])("a date outside 0001-9999 (%s)", async (date) => {
    expectScimError(await filtered(`meta.created gt "${date}"`), 400, "invalidFilter")
    expectScimError(await filtered(`meta.lastModified lt "${date}"`), 400, "invalidFilter")
  })

  it("dates at the edges of the range are compared", async () => {
    const early = await filtered(`meta.created gt "0001-01-01T00:00:00Z"`)
    expect(early.status, JSON.stringify(early.body)).toBe(200)
    expect(early.body.totalResults).toBe(3)
    expect((await filtered(`meta.created lt "9999-12-31T23:59:59Z"`)).body.totalResults).toBe(3)
  })

  it("a parse error repeats at most 200 bytes of the filter", async () => {
    const marker = "Qx" + "y".repeat(3000)
    const reply = await filtered(`userName eq ${marker} and`)
    expectScimError(reply, 400, "invalidFilter")
    expect(JSON.stringify(reply.body)).not.toContain("y".repeat(201))
  })
})
