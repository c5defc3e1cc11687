import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/** Every /api/admin endpoint of the committed OpenAPI document, with placeholder path parameters. */
const adminEndpoints = () => {
  const spec = JSON.parse(readFileSync(new URL("../../../../spec/openapi.json", import.meta.url), "utf8"))
  const endpoints: Array<{ method: string; path: string }> = []
  for (const [path, operations] of Object.entries<Record<string, unknown>>(spec.paths)) {
    if (!path.startsWith("/api/admin")) continue
    for (const method of Object.keys(operations)) {
      const concrete = path.replace(/\{role\}/g, "AUDITOR").replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000")
      endpoints.push({ method: method.toUpperCase(), path: concrete })
    }
  }
  return endpoints
}

describe("administration permissions", () => {
  let server: TestServer
  let employee: Call
  let anonymous: Call
  beforeAll(async () => {
    server = await startTestServer()
    const admin = http(server.url, server.adminToken)
    const [department] = (await admin("GET", "/api/admin/departments")).body
    employee = (await createUser(admin, server.url, { email: "employee@example.com", departmentId: department.id })).call
    anonymous = http(server.url)
  })
  afterAll(() => server.dispose())

  const endpoints = adminEndpoints()

  it("covers the administration surface", () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(22)
  })

  it.each(endpoints)("$method $path: 403 for an employee, 401 without credentials", async ({ method, path }) => {
    const body = ["POST", "PUT", "PATCH"].includes(method) ? {} : undefined
    const forbidden = await employee(method, path, body)
    expect(forbidden.status).toBe(403)
    expect(forbidden.contentType).toContain("application/problem+json")
    expect(forbidden.body.code).toBe("PERMISSION_DENIED")
    const unauthenticated = await anonymous(method, path, body)
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.contentType).toContain("application/problem+json")
    expect(unauthenticated.body.code).toBe("UNAUTHENTICATED")
  })

  it("lets a platform role do exactly what it grants", async () => {
    const admin = http(server.url, server.adminToken)
    const [department] = (await admin("GET", "/api/admin/departments")).body
    const auditor = await createUser(admin, server.url, { email: "auditor@example.com", departmentId: department.id })
    expect((await auditor.call("GET", "/api/admin/audit")).status).toBe(403)
    expect((await admin("POST", "/api/admin/roles/AUDITOR/members", { userId: auditor.id })).status).toBe(204)
    expect((await auditor.call("GET", "/api/admin/audit")).status).toBe(200)
    expect((await auditor.call("GET", "/api/admin/users")).status).toBe(200)
    expect((await auditor.call("POST", "/api/admin/departments", { name: "Nope" })).status).toBe(403)
    const permissions = await admin("GET", `/api/admin/users/${auditor.id}/permissions`)
    expect(permissions.body.permissions["audit.read"]).toBe("ALLOWED")
    expect(permissions.body.permissions["users.manage"]).toBe("DENIED")
    expect((await admin("DELETE", `/api/admin/roles/AUDITOR/members/${auditor.id}`)).status).toBe(204)
    expect((await auditor.call("GET", "/api/admin/audit")).status).toBe(403)
  })

  it("records administrative changes in the audit log with the request id", async () => {
    const admin = http(server.url, server.adminToken)
    const created = await fetch(server.url + "/api/admin/departments", {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json", "x-request-id": "audit-probe-1" },
      body: JSON.stringify({ name: "Audited" })
    })
    expect(created.status).toBe(201)
    const department = await created.json()
    const page = await admin("GET", `/api/admin/audit?resourceType=department&resourceId=${department.id}`)
    expect(page.status).toBe(200)
    expect(page.body.items).toHaveLength(1)
    expect(page.body.items[0]).toMatchObject({ action: "department.create", requestId: "audit-probe-1", actorEmail: "admin@lore.local" })
  })

  it("pages the audit log with a cursor, newest first, each event once", async () => {
    const admin = http(server.url, server.adminToken)
    for (let i = 0; i < 5; i++) await admin("POST", "/api/admin/departments", { name: `Paged ${i}` })
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const page: any = await admin("GET", `/api/admin/audit?pageSize=2${cursor ? `&cursor=${cursor}` : ""}`)
      expect(page.status).toBe(200)
      seen.push(...page.body.items.map((item: any) => item.id))
      cursor = page.body.nextCursor
    } while (cursor)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.length).toBeGreaterThanOrEqual(7)
    expect((await admin("GET", "/api/admin/audit?cursor=garbage")).body.code).toBe("INVALID_CURSOR")
  })
})
