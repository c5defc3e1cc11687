import { startServer, type RunningServer } from "@lore/server"
import { mkdtempSync, rmSync } from "node:fs"
import pg from "pg"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Lore caches the principal of a credential it has seen (identity/PrincipalCache.ts). Every change to
 * a credential or to who its holder is must still show on the very next request: each case below
 * uses the credential twice first (so its principal is cached), makes the change, and looks once.
 *
 * On PostgreSQL the cases run twice: changed and observed through one server, and changed through
 * server A but observed through server B, a second Lore on the same database (its own process state,
 * its own cache, its own listener).
 */
let a: TestServer
let b: RunningServer | undefined
let bDataDir: string | undefined
let departmentId: string

beforeAll(async () => {
  a = await startTestServer()
  if (a.databaseUrl) {
    bDataDir = mkdtempSync(join(tmpdir(), "lore-test-b-"))
    b = await startServer({ port: 0, dataDir: bDataDir, databaseUrl: a.databaseUrl })
  }
  departmentId = (await http(a.url, a.adminToken)("GET", "/api/admin/departments")).body[0].id
})

afterAll(async () => {
  await b?.stop()
  if (bDataDir) rmSync(bDataDir, { recursive: true, force: true })
  await a?.dispose()
})

let counter = 0
const newUser = async (role = "EMPLOYEE") => {
  counter += 1
  const admin = http(a.url, a.adminToken)
  const user = await createUser(admin, a.url, { email: `cached${counter}-${Date.now()}@example.com`, departmentId, role })
  return { ...user, admin, on: (url: string) => http(url, user.token) }
}

/** Uses the credential twice, so the observing server has cached its principal. */
const warm = async (call: Call) => {
  for (let i = 0; i < 2; i++) expect((await call("GET", "/api/me")).status).toBe(200)
}

const observers = () => [
  { name: "through the same server", url: () => a.url },
  ...(process.env.DATABASE_URL ? [{ name: "changed through server A, seen by server B", url: () => b!.url }] : [])
]

describe.each(observers())("a change takes effect on the next request, $name", ({ url }) => {
  it("a revoked token is refused", async () => {
    const user = await newUser()
    const second = await user.on(a.url)("POST", "/api/me/tokens", { name: "second" })
    expect(second.status).toBe(201)
    const holder = http(url(), second.body.token)
    await warm(holder)
    expect((await user.on(a.url)("DELETE", `/api/me/tokens/${second.body.id}`)).status).toBe(204)
    const after = await holder("GET", "/api/me")
    expect(after.status).toBe(401)
    expect(after.body.code).toBe("INVALID_TOKEN")
  })

  it("a deactivated user is refused", async () => {
    const user = await newUser()
    await warm(user.on(url()))
    expect((await user.admin("PATCH", `/api/admin/users/${user.id}`, { active: false })).status).toBe(200)
    const after = await user.on(url())("GET", "/api/me")
    expect(after.status).toBe(401)
    expect(after.body.code).toBe("USER_DEACTIVATED")
    // and reactivated, admitted again
    expect((await user.admin("PATCH", `/api/admin/users/${user.id}`, { active: true })).status).toBe(200)
    expect((await user.on(url())("GET", "/api/me")).status).toBe(200)
  })

  it("a changed role changes what the caller may do", async () => {
    const user = await newUser()
    await warm(user.on(url()))
    expect((await user.on(url())("GET", "/api/admin/users")).status).toBe(403)
    expect((await user.admin("PATCH", `/api/admin/users/${user.id}`, { role: "ADMIN" })).status).toBe(200)
    expect((await user.on(url())("GET", "/api/me")).body.role).toBe("ADMIN")
    expect((await user.on(url())("GET", "/api/admin/users")).status).toBe(200)
    expect((await user.admin("PATCH", `/api/admin/users/${user.id}`, { role: "EMPLOYEE" })).status).toBe(200)
    expect((await user.on(url())("GET", "/api/admin/users")).status).toBe(403)
  })

  it("a changed clearance shows at once", async () => {
    const user = await newUser()
    await warm(user.on(url()))
    expect((await user.on(url())("GET", "/api/me")).body.clearance).not.toBe("CONFIDENTIAL")
    expect((await user.admin("PATCH", `/api/admin/users/${user.id}`, { clearance: "CONFIDENTIAL" })).status).toBe(200)
    expect((await user.on(url())("GET", "/api/me")).body.clearance).toBe("CONFIDENTIAL")
  })

  it("a granted or removed platform role changes what the caller may do", async () => {
    const user = await newUser()
    await warm(user.on(url()))
    expect((await user.on(url())("GET", "/api/admin/audit")).status).toBe(403)
    expect((await user.admin("POST", "/api/admin/roles/AUDITOR/members", { userId: user.id })).status).toBe(204)
    expect((await user.on(url())("GET", "/api/admin/audit")).status).toBe(200)
    expect((await user.on(url())("GET", "/api/me")).body.platformRoles).toEqual(["AUDITOR"])
    expect((await user.admin("DELETE", `/api/admin/roles/AUDITOR/members/${user.id}`)).status).toBe(204)
    expect((await user.on(url())("GET", "/api/admin/audit")).status).toBe(403)
  })

  it("a moved user and a renamed department show at once", async () => {
    const user = await newUser()
    await warm(user.on(url()))
    const created = await user.admin("POST", "/api/admin/departments", { name: `Moved ${counter} ${Date.now()}` })
    expect(created.status).toBe(201)
    expect((await user.admin("PATCH", `/api/admin/users/${user.id}`, { departmentId: created.body.id })).status).toBe(200)
    expect((await user.on(url())("GET", "/api/me")).body).toMatchObject({ departmentId: created.body.id, departmentName: created.body.name })
    const renamed = `Renamed ${counter} ${Date.now()}`
    expect((await user.admin("PATCH", `/api/admin/departments/${created.body.id}`, { name: renamed })).status).toBe(200)
    expect((await user.on(url())("GET", "/api/me")).body.departmentName).toBe(renamed)
  })

  it("a signed-out session is refused", async () => {
    const user = await newUser()
    const signIn = await fetch(`${a.url}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: user.token })
    })
    expect(signIn.status).toBe(201)
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith("lore_session="))!.split(";")[0]!
    const me = () => fetch(`${url()}/api/me`, { headers: { cookie } })
    for (let i = 0; i < 2; i++) expect((await me()).status).toBe(200)
    const csrf = (await (await fetch(`${a.url}/api/session/csrf`, { headers: { cookie } })).json()).token
    expect((await fetch(`${a.url}/api/session`, { method: "DELETE", headers: { cookie, "x-csrf-token": csrf } })).status).toBe(204)
    const after = await me()
    expect(after.status).toBe(401)
    expect((await after.json()).code).toBe("SESSION_EXPIRED")
  })
})

describe.runIf(process.env.DATABASE_URL)("the listening connection on PostgreSQL", () => {
  const listeners = async () => {
    const client = new pg.Client({ connectionString: a.databaseUrl })
    await client.connect()
    try {
      const { rows } = await client.query(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'lore-listener'"
      )
      return rows.map((row) => row.pid as number)
    } finally {
      await client.end()
    }
  }

  it("a change made while it is down is not missed, and it comes back", async () => {
    const user = await newUser()
    await warm(user.on(a.url))
    const before = await listeners()
    expect(before.length).toBe(2) // server A's and server B's
    const client = new pg.Client({ connectionString: a.databaseUrl })
    await client.connect()
    try {
      await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1)", [before])
    } finally {
      await client.end()
    }
    expect((await user.admin("PATCH", `/api/admin/users/${user.id}`, { clearance: "RESTRICTED" })).status).toBe(200)
    expect((await user.on(a.url)("GET", "/api/me")).body.clearance).toBe("RESTRICTED")
    expect((await user.on(b!.url)("GET", "/api/me")).body.clearance).toBe("RESTRICTED")

    let after: number[] = []
    for (let i = 0; i < 50 && after.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      after = (await listeners()).filter((pid) => !before.includes(pid))
    }
    expect(after.length).toBe(2)
    // and, listening again, the next change still shows at once
    await warm(user.on(b!.url))
    expect((await user.admin("PATCH", `/api/admin/users/${user.id}`, { role: "MANAGER" })).status).toBe(200)
    expect((await user.on(b!.url)("GET", "/api/me")).body.role).toBe("MANAGER")
  })
})
