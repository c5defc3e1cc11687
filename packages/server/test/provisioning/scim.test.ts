import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"
import { CORE_GROUP, ENTERPRISE, enabledConnection, expectScimError, oktaUser, PATCH_OP, scimClient, type ScimCall } from "./support"

/**
 * The SCIM 2.0 protocol at /scim/v2 as identity providers drive it: Okta's published test steps, the PATCH
 * requests Microsoft Entra ID sends, filters, paging, attribute projection, discovery and SCIM errors.
 */
let server: TestServer
let admin: Call
let scim: ScimCall

beforeAll(async () => {
  server = await startTestServer()
  admin = http(server.url, server.adminToken)
  scim = scimClient(server.url, (await enabledConnection(admin, { alias: "okta" })).token)
})
afterAll(() => server?.dispose())

describe("discovery and authentication", () => {
  it("serves ServiceProviderConfig, ResourceTypes and Schemas", async () => {
    const config = await scim("GET", "/ServiceProviderConfig")
    expect(config.status).toBe(200)
    expect(config.contentType).toContain("application/scim+json")
    expect(config.body.patch.supported).toBe(true)
    expect(config.body.filter.supported).toBe(true)
    const types = await scim("GET", "/ResourceTypes")
    expect(types.body.Resources.map((r: any) => r.name).sort()).toEqual(["Group", "User"])
    const schemas = await scim("GET", "/Schemas")
    expect(schemas.body.Resources.map((r: any) => r.id)).toContain(ENTERPRISE)
  })

  it("refuses personal access tokens, missing and unknown tokens with a SCIM 401", async () => {
    expectScimError(await scimClient(server.url, server.adminToken)("GET", "/Users"), 401)
    expectScimError(await scimClient(server.url, "lore_scim_0123456789abcdef.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")("GET", "/Users"), 401)
    const bare = await fetch(`${server.url}/scim/v2/Users`)
    expect(bare.status).toBe(401)
    expect((await bare.json()).schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"])
  })

  it("answers unknown SCIM paths with a SCIM 404, not problem+json", async () => {
    expectScimError(await scim("GET", "/Widgets"), 404)
  })
})

describe("Okta SCIM 2.0 test steps", () => {
  const userName = `okta.tester${Date.now()}@example.com`
  let id = ""

  it("1. GET /Users?count=1&startIndex=1 answers a ListResponse", async () => {
    const reply = await scim("GET", "/Users?count=1&startIndex=1")
    expect(reply.status).toBe(200)
    expect(reply.body.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:ListResponse"])
    expect(typeof reply.body.totalResults).toBe("number")
    expect(reply.body.startIndex).toBe(1)
  })

  it("2. a filter for an unknown userName finds nothing", async () => {
    const reply = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "nobody-random@example.com"')}`)
    expect(reply.status).toBe(200)
    expect(reply.body.totalResults).toBe(0)
    expect(reply.body.Resources).toEqual([])
  })

  it("3. POST /Users creates the user", async () => {
    const reply = await scim("POST", "/Users", oktaUser(userName))
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(reply.body.active).toBe(true)
    expect(reply.body.userName).toBe(userName)
    expect(reply.body.password).toBeUndefined()
    expect(reply.body.meta.resourceType).toBe("User")
    id = reply.body.id
  })

  it("4. GET /Users/{id} answers it", async () => {
    const reply = await scim("GET", `/Users/${id}`)
    expect(reply.status).toBe(200)
    expect(reply.body.userName).toBe(userName)
    expect(reply.body.name.givenName).toBe("Test")
  })

  it("5. filtering by its userName (any case) finds exactly it", async () => {
    const reply = await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName.toUpperCase()}"`)}&startIndex=1&count=100`)
    expect(reply.body.totalResults).toBe(1)
    expect(reply.body.Resources[0].id).toBe(id)
  })

  it("6. creating the same user again is 409 uniqueness", async () => {
    expectScimError(await scim("POST", "/Users", oktaUser(userName)), 409, "uniqueness")
  })

  it("7. PUT /Users/{id} replaces it", async () => {
    const reply = await scim("PUT", `/Users/${id}`, { ...oktaUser(userName), name: { givenName: "Changed", familyName: "User" } })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.name.givenName).toBe("Changed")
  })

  it("8. PATCH active false deactivates, true reactivates", async () => {
    const off = await scim("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: false } }] })
    expect(off.status, JSON.stringify(off.body)).toBe(200)
    expect(off.body.active).toBe(false)
    const listed = await admin("GET", "/api/admin/users")
    expect(listed.body.find((u: any) => u.id === id)?.active).toBe(false)
    const on = await scim("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active: true } }] })
    expect(on.body.active).toBe(true)
  })

  it("9. an unknown user id is a SCIM 404", async () => {
    expectScimError(await scim("GET", "/Users/010ae1d1-0000-4000-8000-000000000000"), 404)
    expectScimError(await scim("GET", "/Users/not-a-uuid"), 404)
  })

  it("DELETE removes the SCIM user and deactivates the Lore user", async () => {
    const made = await scim("POST", "/Users", oktaUser(`gone${Date.now()}@example.com`))
    expect((await scim("DELETE", `/Users/${made.body.id}`)).status).toBe(204)
    expectScimError(await scim("GET", `/Users/${made.body.id}`), 404)
    const listed = await admin("GET", "/api/admin/users")
    expect(listed.body.find((u: any) => u.id === made.body.id)?.active).toBe(false)
  })
})

describe("Microsoft Entra ID PATCH requests", () => {
  let id = ""
  const userName = `entra${Date.now()}@contoso.example`

  beforeAll(async () => {
    const made = await scim("POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENTERPRISE],
      externalId: "entra-1",
      userName,
      active: true,
      displayName: "Entra Person",
      title: "Engineer",
      emails: [{ primary: true, type: "work", value: userName }],
      name: { formatted: "Entra Person", familyName: "Person", givenName: "Entra" },
      [ENTERPRISE]: { department: "Research", manager: { value: "boss-1" } }
    })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    id = made.body.id
    const user = (await admin("GET", "/api/admin/users")).body.find((u: any) => u.id === id)
    const departments = (await admin("GET", "/api/admin/departments")).body
    expect(departments.find((d: any) => d.id === user.departmentId)?.name).toBe("Research")
  })

  it("applies capitalised operations, string booleans, filtered paths and extension paths", async () => {
    const reply = await scim("PATCH", `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: "Replace", path: "displayName", value: "Entra Renamed" },
        { op: "Add", path: 'emails[type eq "work"].value', value: `renamed.${userName}` },
        { op: "Replace", path: "name.givenName", value: "Renamed" },
        { op: "Replace", path: `${ENTERPRISE}:department`, value: "Finance" },
        { op: "Remove", path: "title" },
        { op: "Replace", path: "active", value: "False" }
      ]
    })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.displayName).toBe("Entra Renamed")
    expect(reply.body.emails[0].value).toBe(`renamed.${userName}`)
    expect(reply.body.name.givenName).toBe("Renamed")
    expect(reply.body[ENTERPRISE].department).toBe("Finance")
    expect(reply.body.title).toBeUndefined()
    expect(reply.body.active).toBe(false)
    const user = (await admin("GET", "/api/admin/users")).body.find((u: any) => u.id === id)
    expect(user.email).toBe(`renamed.${userName}`)
    expect(user.name).toBe("Entra Renamed")
    expect(user.active).toBe(false)
    const departments = (await admin("GET", "/api/admin/departments")).body
    expect(departments.find((d: any) => d.id === user.departmentId)?.name).toBe("Finance")
  })

  it("accepts Entra's path-less Replace with an object value", async () => {
    const reply = await scim("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", value: { active: "True", displayName: "Back" } }] })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.active).toBe(true)
    expect(reply.body.displayName).toBe("Back")
  })

  it("adds and removes group members the ways Entra and Okta send them", async () => {
    const other = (await scim("POST", "/Users", oktaUser(`member${Date.now()}@example.com`))).body.id
    const group = await scim("POST", "/Groups", { schemas: [CORE_GROUP], displayName: `Entra Group ${Date.now()}`, externalId: "g-1", members: [] })
    expect(group.status, JSON.stringify(group.body)).toBe(201)
    const gid = group.body.id
    const added = await scim("PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value: [{ value: id }, { value: other }] }] })
    expect(added.status, JSON.stringify(added.body)).toBe(200)
    expect(added.body.members.map((m: any) => m.value).sort()).toEqual([id, other].sort())
    // Entra: Remove with a value list.
    const removed = await scim("PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "Remove", path: "members", value: [{ value: other }] }] })
    expect(removed.status, JSON.stringify(removed.body)).toBe(200)
    expect(removed.body.members.map((m: any) => m.value)).toEqual([id])
    // Okta: Remove by a filtered path.
    const filtered = await scim("PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${id}"]` }] })
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200)
    expect(filtered.body.members).toEqual([])
    // Rename.
    const renamed = await scim("PATCH", `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "displayName", value: `Renamed ${gid}` }] })
    expect(renamed.body.displayName).toBe(`Renamed ${gid}`)
    expect((await scim("GET", `/Groups?filter=${encodeURIComponent(`displayName eq "renamed ${gid}"`)}&excludedAttributes=members`)).body.Resources[0].members).toBeUndefined()
    expect((await scim("DELETE", `/Groups/${gid}`)).status).toBe(204)
    expectScimError(await scim("GET", `/Groups/${gid}`), 404)
  })

  it("refuses a body that is not a PatchOp message", async () => {
    expectScimError(await scim("PATCH", `/Users/${id}`, { Operations: [{ op: "replace", value: { active: true } }] }), 400, "invalidValue")
    expectScimError(await scim("PATCH", `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: "explode", path: "title" }] }), 400)
  })
})

describe("filters, paging and projection", () => {
  const stamp = Date.now()
  const names = ["alice", "bob", "carol"].map((n) => `${n}.${stamp}@filters.example`)
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    for (const [i, name] of names.entries()) {
      const made = await scim("POST", "/Users", oktaUser(name, {
        title: i === 0 ? "Chief Engineer" : undefined,
        emails: [{ value: name, type: "work", primary: true }, ...(i === 1 ? [{ value: `home.${name}`, type: "home" }] : [])],
        active: i !== 2
      }))
      expect(made.status, JSON.stringify(made.body)).toBe(201)
      ids[name] = made.body.id
    }
  })

  const find = async (filter: string) => {
    const reply = await scim("GET", `/Users?filter=${encodeURIComponent(filter)}`)
    expect(reply.status, `${filter}: ${JSON.stringify(reply.body)}`).toBe(200)
    return (reply.body.Resources as Array<any>).map((r) => r.userName).filter((n: string) => names.includes(n)).sort()
  }

  it("supports eq, ne, co, sw, ew, pr, gt, lt, and, or, not and value paths, in SQL", async () => {
    const [alice, bob, carol] = names as [string, string, string]
    expect(await find(`userName sw "alice.${stamp}"`)).toEqual([alice])
    expect(await find(`userName ew "@filters.example" and userName co ".${stamp}@"`)).toEqual([alice, bob, carol])
    expect(await find(`userName ew "@filters.example" and active eq false`)).toEqual([carol])
    expect(await find(`userName ew "@filters.example" and active ne false`)).toEqual([alice, bob])
    expect(await find(`userName ew "@filters.example" and title pr`)).toEqual([alice])
    expect(await find(`title co "engineer"`)).toEqual([alice])
    expect(await find(`userName eq "${alice}" or userName eq "${carol}"`)).toEqual([alice, carol])
    expect(await find(`userName ew "@filters.example" and not (userName eq "${alice}")`)).toEqual([bob, carol])
    expect(await find(`emails[type eq "home" and value co "home."]`)).toEqual([bob])
    expect(await find(`emails.value eq "home.${bob}"`)).toEqual([bob])
    expect(await find(`emails co "${stamp}@filters" and emails.type eq "home"`)).toEqual([bob])
    expect(await find(`externalId eq "okta-${carol}"`)).toEqual([carol])
    expect(await find(`userName ew "@filters.example" and meta.created gt "2000-01-01T00:00:00Z"`)).toEqual([alice, bob, carol])
    expect(await find(`userName ew "@filters.example" and meta.created lt "2000-01-01T00:00:00Z"`)).toEqual([])
    expect(await find(`id eq "${ids[bob]}"`)).toEqual([bob])
  })

  it("answers 400 invalidFilter for a filter it cannot parse", async () => {
    expectScimError(await scim("GET", `/Users?filter=${encodeURIComponent('userName eq')}`), 400, "invalidFilter")
    expectScimError(await scim("GET", `/Users?filter=${encodeURIComponent('userName zz "x"')}`), 400, "invalidFilter")
  })

  it("pages with startIndex and count", async () => {
    const filter = encodeURIComponent(`userName ew "${stamp}@filters.example"`)
    const first = await scim("GET", `/Users?filter=${filter}&startIndex=1&count=2`)
    expect(first.body.totalResults).toBe(3)
    expect(first.body.itemsPerPage).toBe(2)
    const second = await scim("GET", `/Users?filter=${filter}&startIndex=3&count=2`)
    expect(second.body.itemsPerPage).toBe(1)
    expect(second.body.startIndex).toBe(3)
    const all = [...first.body.Resources, ...second.body.Resources].map((r: any) => r.userName).sort()
    expect(all).toEqual([...names].sort())
  })

  it("projects attributes and excludedAttributes", async () => {
    const only = await scim("GET", `/Users/${ids[names[0]!]}?attributes=userName,name.givenName`)
    expect(Object.keys(only.body).sort()).toEqual(["id", "meta", "name", "schemas", "userName"])
    expect(only.body.name).toEqual({ givenName: "Test" })
    const without = await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${names[0]}"`)}&excludedAttributes=emails,name`)
    expect(without.body.Resources[0].emails).toBeUndefined()
    expect(without.body.Resources[0].name).toBeUndefined()
    expect(without.body.Resources[0].userName).toBe(names[0])
  })
})
