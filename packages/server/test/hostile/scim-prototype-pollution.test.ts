import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { enabledConnection, expectScimError, oktaUser, PATCH_OP, scimClient, type ScimCall } from "../provisioning/support"
import { http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Issue 29, finding 1: SCIM PATCH paths, PATCH values, POST/PUT bodies and projections reached scim-patch and
 * the projection code with `__proto__`, `prototype` and `constructor`, polluting Object.prototype of the whole
 * process. The server runs in this process, so the pollution (or its absence) is checked right here.
 */
let server: TestServer
let admin: Call
let scim: ScimCall
let userId = ""
let token = ""

// Kept to undo what the unguarded code does (vitest shares this worker with other files: isolate is off).
const originalHasOwnProperty = Object.prototype.hasOwnProperty
const undoPollution = () => {
  for (const key of ["polluted", "x", "hasOwnProperty"]) {
    if (key !== "hasOwnProperty") delete (Object.prototype as any)[key]
  }
  if (Object.prototype.hasOwnProperty !== originalHasOwnProperty) {
    Object.defineProperty(Object.prototype, "hasOwnProperty", { value: originalHasOwnProperty, writable: true, configurable: true, enumerable: false })
  }
}

beforeAll(async () => {
  server = await startTestServer()
  admin = http(server.url, server.adminToken)
  token = (await enabledConnection(admin, { alias: "pollution" })).token
  scim = scimClient(server.url, token)
  const created = await scim("POST", "/Users", oktaUser(`victim-${Date.now()}@example.com`))
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  userId = created.body.id
})
afterAll(async () => {
  undoPollution()
  await server?.dispose()
})

/** Nothing reached Object.prototype, and the server still answers and serves clean resources. */
const expectUnpolluted = async () => {
  expect(({} as any).polluted).toBeUndefined()
  expect(({} as any).x).toBeUndefined()
  expect(Object.prototype.hasOwnProperty).toBe(originalHasOwnProperty)
  expect(Object.prototype.hasOwnProperty.call({ a: 1 }, "a")).toBe(true)
  const health = await fetch(`${server.url}/api/health`)
  expect(health.status).toBe(200)
  const fresh = await scim("POST", "/Users", oktaUser(`fresh-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`))
  expect(fresh.status, JSON.stringify(fresh.body)).toBe(201)
  expect(fresh.body.polluted).toBeUndefined()
  expect(fresh.body.x).toBeUndefined()
  expect(fresh.body.emails[0].polluted).toBeUndefined()
}

const patch = (operation: Record<string, unknown>) => scim("PATCH", `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [operation] })

describe("SCIM refuses every path and key that names a prototype", () => {
  it.each([
    ["__proto__", { polluted: "yes" }],
    ["constructor.prototype.polluted", "yes"],
    ["urn:x:__proto__", { polluted: "yes" }],
    ["emails[type eq \"work\"].__proto__", { polluted: "yes" }],
    ["name.constructor", { prototype: { polluted: "yes" } }]
  ])("PATCH path %s is 400 invalidPath", async (path, value) => {
    expectScimError(await patch({ op: "add", path, value }), 400, "invalidPath")
    expectScimError(await patch({ op: "replace", path, value }), 400, "invalidPath")
    await expectUnpolluted()
  })

  it.each([
    `{"__proto__.x":1}`,
    `{"__proto__":{"polluted":"yes"}}`,
    `{"name":{"constructor.prototype.polluted":"yes"}}`,
    `{"emails":[{"value":"a@example.com","__proto__":{"polluted":"yes"}}]}`,
    `{"urn:x:__proto__":{"polluted":"yes"}}`
  ])("a PATCH value with a denied key at any depth is 400 invalidValue: %s", async (value) => {
    // Sent as JSON text: JSON.parse makes "__proto__" an own key, as it arrives on the wire.
    const reply = await fetch(`${server.url}/scim/v2/Users/${userId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
      body: `{"schemas":["${PATCH_OP}"],"Operations":[{"op":"add","value":${value}}]}`
    })
    const body = await reply.json()
    expect(reply.status, JSON.stringify(body)).toBe(400)
    expect(body.scimType).toBe("invalidValue")
    await expectUnpolluted()
  })

  it("POST and PUT bodies with __proto__ or constructor keys are 400 invalidValue", async () => {
    const user = JSON.stringify(oktaUser(`proto-${Date.now()}@example.com`)).slice(0, -1)
    for (const [method, path] of [["POST", "/Users"], ["PUT", `/Users/${userId}`], ["POST", "/Groups"]] as const) {
      for (const extra of [`"__proto__":{"polluted":"yes"}`, `"constructor":{"prototype":{"polluted":"yes"}}`, `"name":{"__proto__.polluted":"yes"}`]) {
        const body = path === "/Groups" ? `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"g${Date.now()}",${extra}}` : `${user},${extra}}`
        const reply = await fetch(`${server.url}/scim/v2${path}`, {
          method, headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" }, body
        })
        const answer = await reply.json()
        expect(reply.status, `${method} ${path} ${extra}: ${JSON.stringify(answer)}`).toBe(400)
        expect(answer.scimType).toBe("invalidValue")
      }
    }
    await expectUnpolluted()
  })

  it.each([
    "excludedAttributes=__proto__.hasOwnProperty",
    "excludedAttributes=constructor.prototype.hasOwnProperty",
    "attributes=__proto__",
    "attributes=constructor.prototype",
    "attributes=urn:x:__proto__"
  ])("GET with %s is 400 invalidPath, on lists and single resources", async (query) => {
    expectScimError(await scim("GET", `/Users?${query}`), 400, "invalidPath")
    expectScimError(await scim("GET", `/Users/${userId}?${query}`), 400, "invalidPath")
    expectScimError(await scim("GET", `/Groups?${query}`), 400, "invalidPath")
    await expectUnpolluted()
  })

  it("a filter naming __proto__ is 400 invalidFilter", async () => {
    expectScimError(await scim("GET", `/Users?filter=${encodeURIComponent('__proto__.polluted eq "yes"')}`), 400, "invalidFilter")
    expectScimError(await scim("GET", `/Users?filter=${encodeURIComponent('emails[constructor eq "x"]')}`), 400, "invalidFilter")
    await expectUnpolluted()
  })

  it("ordinary PATCHes and projections still work afterwards", async () => {
    const renamed = await patch({ op: "replace", path: "name.givenName", value: "Renamed" })
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200)
    expect(renamed.body.name.givenName).toBe("Renamed")
    const projected = await scim("GET", `/Users/${userId}?attributes=name.givenName`)
    expect(projected.body.name).toEqual({ givenName: "Renamed" })
    const excluded = await scim("GET", `/Users/${userId}?excludedAttributes=name,emails`)
    expect(excluded.body.name).toBeUndefined()
    expect(excluded.body.userName).toBeDefined()
    await expectUnpolluted()
  })
})

