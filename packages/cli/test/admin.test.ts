import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedLore, serveLore } from "./support/serve"
import { ANSI, ensureBuilt, lore, newConfigHome } from "./support/cli"

let server: ServedLore
let home: string
const env = () => ({ XDG_CONFIG_HOME: home })
/** The admin (profile default). */
const admin = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) => lore(args, { env: { ...env(), ...extra } })
/** An employee without platform roles (profile employee). */
const employee = (args: ReadonlyArray<string>) => lore([...args, "--profile", "employee"], { env: env() })
const EMPLOYEE = "eve@example.com"

const ok = async (pending: ReturnType<typeof lore>) => {
  const result = await pending
  expect(result.code, `${result.stderr}${result.stdout}`).toBe(0)
  return result
}

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  home = newConfigHome()
  await ok(admin(["login", "--server", server.url, "--token", server.adminToken]))
  await ok(admin(["admin", "departments", "create", "Sales"]))
  const invited = (await ok(admin(["admin", "invitations", "create", "--email", EMPLOYEE, "--department", "Sales", "--json"]))).json()
  await ok(lore(["invitations", "accept", invited.invitationCode, "--server", server.url, "--profile", "employee"], { env: env() }))
})
afterAll(() => server?.stop())

describe("lore admin users", () => {
  it("list shows everyone; update changes a user found by email; permissions maps each permission to a state", async () => {
    const list = (await ok(admin(["admin", "users", "list", "--json"]))).json() as Array<Record<string, unknown>>
    expect(list.map((user) => user.email)).toEqual(expect.arrayContaining(["admin@lore.local", EMPLOYEE]))
    const eve = list.find((user) => user.email === EMPLOYEE)!
    expect(eve).toMatchObject({ role: "EMPLOYEE", active: true, platformRoles: [] })

    const plain = await ok(admin(["admin", "users", "list"], { FORCE_COLOR: "1" }))
    expect(plain.stdout).not.toMatch(ANSI)
    const [header, ...rows] = plain.stdout.trimEnd().split("\n")
    expect(header).toMatch(/^EMAIL\s+NAME\s+ROLE\s+CLEARANCE\s+DEPARTMENT\s+STATUS\s+PLATFORM ROLES\s+ID$/)
    expect(rows.find((row) => row.startsWith(EMPLOYEE))).toMatch(/EMPLOYEE\s+\S+\s+Sales\s+active\s+-\s+[0-9a-f-]{36}$/)

    await ok(admin(["admin", "departments", "create", "Support"]))
    const updated = await ok(admin(["admin", "users", "update", EMPLOYEE.toUpperCase(), "--name", "Eve Q", "--clearance", "confidential", "--department", "Support", "--json"]))
    expect(updated.json()).toMatchObject({ id: eve.id, name: "Eve Q", clearance: "CONFIDENTIAL", role: "EMPLOYEE" })
    expect((await ok(employee(["whoami", "--json"]))).json()).toMatchObject({ departmentName: "Support", clearance: "CONFIDENTIAL" })

    const permissions = (await ok(admin(["admin", "users", "permissions", EMPLOYEE, "--json"]))).json()
    expect(permissions.userId).toBe(eve.id)
    const states = Object.values(permissions.permissions)
    expect(states.length).toBeGreaterThan(3)
    for (const state of states) expect(["ALLOWED", "DENIED"]).toContain(state)
    expect(states).toContain("DENIED")
    const adminPermissions = (await ok(admin(["admin", "users", "permissions", "admin@lore.local", "--json"]))).json()
    expect(Object.keys(adminPermissions.permissions).sort()).toEqual(Object.keys(permissions.permissions).sort())
    expect(Object.values(adminPermissions.permissions)).not.toContain("DENIED")

    // Clearances say which classifications they read: a legend under the list, a line in show (issue 10.2).
    const listed = await ok(admin(["admin", "users"]))
    expect(listed.stderr).toContain("Clearance CONFIDENTIAL (reads PUBLIC, INTERNAL and CONFIDENTIAL); RESTRICTED (reads PUBLIC, INTERNAL, CONFIDENTIAL and RESTRICTED).")
    const shown = await ok(admin(["admin", "users", "show", EMPLOYEE]))
    expect(shown.stdout).toMatch(/^Clearance:\s+CONFIDENTIAL \(reads PUBLIC, INTERNAL and CONFIDENTIAL\)$/m)
    expect((await ok(admin(["admin", "users", "show", EMPLOYEE, "--json"]))).json()).toMatchObject({ id: eve.id, clearance: "CONFIDENTIAL" })

    const human = await ok(admin(["admin", "users", "permissions", EMPLOYEE]))
    expect(human.stdout).toMatch(/^Permissions of Eve Q <eve@example.com>/)
    expect(human.stdout).toMatch(/^PERMISSION\s+STATE$/m)
  })

  it("deactivating a user stops their token (exit 3); --active brings it back", async () => {
    const reactivate = () => admin(["admin", "users", "update", EMPLOYEE, "--active", "--json"])
    try {
      const inactive = await ok(admin(["admin", "users", "update", EMPLOYEE, "--inactive", "--json"]))
      expect(inactive.json().active).toBe(false)
      expect((await employee(["whoami"])).code).toBe(3)
      // status says why, and does not send them to log in again, which cannot help (issue 10.7).
      const status = await ok(employee(["status"]))
      expect(status.stdout).toMatch(/is deactivated/)
      expect(`${status.stdout}${status.stderr}`).not.toMatch(/log in again/i)
      expect(status.stderr).toMatch(/an administrator can reactivate/)
      expect((await ok(employee(["status", "--json"]))).json()).toMatchObject({ authenticated: false, authError: { code: "USER_DEACTIVATED" } })
    } finally {
      // the other tests use the employee's token
      const back = await reactivate()
      expect(back.code, back.stderr).toBe(0)
      expect(back.json().active).toBe(true)
    }
    expect((await employee(["whoami"])).code).toBe(0)
  })

  it("usage errors exit 2 before any request; unknown users exit 5", async () => {
    for (const args of [
      ["admin", "users", "update", EMPLOYEE],
      ["admin", "users", "update", EMPLOYEE, "--role", "BOSS"],
      ["admin", "users", "update", EMPLOYEE, "--clearance", "TOP_SECRET"],
      ["admin", "users", "update", EMPLOYEE, "--active", "--inactive"],
      ["admin", "users", "lsit"],
      ["admin", "roles", "add", "SUPREME_LEADER", EMPLOYEE]
    ]) {
      const result = await admin(args)
      expect(result.code, args.join(" ")).toBe(2)
    }
    const unknown = await admin(["admin", "users", "permissions", "nobody@example.com", "--json"])
    expect(unknown.code).toBe(5)
    expect(unknown.json().error).toMatchObject({ code: "USER_NOT_FOUND", status: 0 })
  })
})

describe("lore admin departments and roles", () => {
  it("renames a department by name, adds and removes a manager; grants and takes a platform role", async () => {
    await ok(admin(["admin", "departments", "create", "Ops"]))
    const renamed = (await ok(admin(["admin", "departments", "rename", "ops", "Operations", "--json"]))).json()
    expect(renamed.name).toBe("Operations")
    const eve = (await ok(employee(["whoami", "--json"]))).json()

    const managed = (await ok(admin(["admin", "departments", "managers", "add", "Operations", EMPLOYEE, "--json"]))).json()
    expect(managed.managerUserIds).toEqual([eve.userId])
    const listed = await ok(admin(["admin", "departments", "list"]))
    expect(listed.stdout).toMatch(new RegExp(`^Operations\\s+0\\s+${EMPLOYEE}\\s+`, "m"))
    const unmanaged = (await ok(admin(["admin", "departments", "managers", "remove", renamed.id, eve.userId, "--json"]))).json()
    expect(unmanaged.managerUserIds).toEqual([])

    expect((await ok(admin(["admin", "roles", "add", "auditor", EMPLOYEE, "--json"]))).json()).toEqual({ role: "AUDITOR", userId: eve.userId, added: true })
    const roles = (await ok(admin(["admin", "roles", "list", "--json"]))).json()
    expect(roles.roles.find((entry: { role: string }) => entry.role === "AUDITOR").assignees).toContain(eve.userId)
    expect((await ok(employee(["whoami", "--json"]))).json().platformRoles).toEqual(["AUDITOR"])
    const plain = await ok(admin(["admin", "roles", "list"]))
    expect(plain.stdout).toMatch(new RegExp(`^AUDITOR\\s+${EMPLOYEE}$`, "m"))
    await ok(admin(["admin", "roles", "remove", "AUDITOR", EMPLOYEE]))
    expect((await ok(employee(["whoami", "--json"]))).json().platformRoles).toEqual([])
  })
})

describe("lore admin spaces, grants, access explain and audit", () => {
  it("a USER grant allows, removing it denies; the audit log lists each change with its request id", async () => {
    const since = new Date(Date.now() - 1000).toISOString()
    const space = (await ok(admin(["admin", "spaces", "create", "handbook", "--name", "Handbook", "--department", "Sales", "--json"]))).json()
    expect(space).toMatchObject({ key: "handbook", name: "Handbook", id: expect.any(String) })
    const spaces = (await ok(admin(["admin", "spaces", "list", "--json"]))).json() as Array<{ key: string }>
    expect(spaces.map((entry) => entry.key)).toContain("handbook")

    const denied = await ok(admin(["access", "explain", "--user", EMPLOYEE, "--space", "handbook", "--json"]))
    expect(denied.json()).toMatchObject({ state: "DENIED", path: [], resource: { id: space.id, type: "KNOWLEDGE_SPACE" } })
    expect(denied.json().blockedBy.length).toBeGreaterThan(0)

    const added = await ok(admin(["admin", "grants", "add", "handbook", "--relation", "viewer", "--kind", "USER", "--subject", EMPLOYEE, "--json"]))
    expect(added.json()).toMatchObject({ change: "added", space: { key: "handbook" }, grant: { relation: "viewer", kind: "USER" } })
    expect(added.json().grants).toEqual(expect.arrayContaining([expect.objectContaining({ relation: "viewer", kind: "USER", subjectLabel: expect.stringContaining("eve") })]))

    // Granting it again sends nothing and says the grant already existed (issue 10.7): the API answers 204 either way.
    const again = await ok(admin(["admin", "grants", "add", "handbook", "--relation", "viewer", "--kind", "USER", "--subject", EMPLOYEE, "--json"]))
    expect(again.json()).toMatchObject({ change: "unchanged", grant: { relation: "viewer", kind: "USER" } })
    const againHuman = await ok(admin(["admin", "grants", "add", "handbook", "--relation", "viewer", "--kind", "USER", "--subject", EMPLOYEE]))
    expect(againHuman.stdout).toMatch(/^USER eve@example.com already had viewer on handbook: the grant already existed, nothing changed$/m)
    expect(againHuman.stdout).not.toMatch(/^Granted/m)

    const allowed = await ok(admin(["access", "explain", "--user", EMPLOYEE, "--space", space.id, "--json"]))
    expect(allowed.json()).toMatchObject({ state: "ALLOWED", blockedBy: [], path: [expect.objectContaining({ relation: "viewer", kind: "USER" })] })
    const allowedHuman = await ok(admin(["access", "explain", "--user", EMPLOYEE, "--space", "handbook"]))
    expect(allowedHuman.stdout).toMatch(/^ALLOWED: eve@example.com may view knowledge space Handbook/)
    // What the user's clearance reads, in the classifications' own words (issue 10.2).
    expect(allowedHuman.stdout).toMatch(/^Clearance:\s+CONFIDENTIAL \(reads PUBLIC, INTERNAL and CONFIDENTIAL\)$/m)
    expect(allowedHuman.stdout).toMatch(/^Grant path\n.*\n.*viewer\s+USER/m)
    const contributor = await ok(admin(["access", "explain", "--user", EMPLOYEE, "--space", "handbook", "--relation", "contributor", "--json"]))
    expect(contributor.json().state).toBe("DENIED")

    const grants = await ok(admin(["admin", "grants", "list", "handbook"]))
    expect(grants.stdout).toMatch(/^viewer\s+USER\s+/m)

    const removed = await ok(admin(["admin", "grants", "rm", "handbook", "--relation", "viewer", "--kind", "USER", "--subject", EMPLOYEE, "--json"]))
    expect(removed.json().change).toBe("removed")
    expect(removed.json().grants.some((grant: { kind: string; relation: string }) => grant.relation === "viewer")).toBe(false)

    const deniedAgain = await admin(["access", "explain", "--user", EMPLOYEE, "--space", "handbook"])
    expect(deniedAgain.code).toBe(0)
    expect(deniedAgain.stdout).toMatch(/^DENIED: eve@example.com may not view knowledge space Handbook/)
    expect(deniedAgain.stdout).toMatch(/^Blocked by\n/m)
    expect(deniedAgain.stdout).toContain("No grant gives access.")

    // Department grants take a department name; removing a grant that is not there is not found.
    await ok(admin(["admin", "grants", "add", "handbook", "--relation", "viewer", "--kind", "DEPARTMENT", "--subject", "support"]))
    expect((await ok(admin(["access", "explain", "--user", EMPLOYEE, "--space", "handbook", "--json"]))).json().state).toBe("ALLOWED")
    await ok(admin(["admin", "grants", "rm", "handbook", "--relation", "viewer", "--kind", "DEPARTMENT", "--subject", "Support"]))
    const missing = await admin(["admin", "grants", "rm", "handbook", "--relation", "viewer", "--kind", "ORGANIZATION", "--json"])
    expect(missing.code).toBe(5)
    expect(missing.json().error.code).toBe("GRANT_NOT_FOUND")

    const audit = (await ok(admin(["admin", "audit", "--resource-type", "knowledge_space", "--resource-id", space.id, "--since", since, "--json"]))).json() as Array<Record<string, unknown>>
    expect(audit.map((event) => event.action)).toEqual(["grant.remove", "grant.add", "grant.remove", "grant.add", "knowledge_space.create"])
    for (const event of audit) expect(event).toMatchObject({ actorEmail: "admin@lore.local", resourceId: space.id, requestId: expect.any(String) })

    const byActor = (await ok(admin(["admin", "audit", "--actor", "admin@lore.local", "--limit", "2", "--json"]))).json()
    expect(byActor).toHaveLength(2)
    const every = (await ok(admin(["admin", "audit", "--all", "--since", "1h", "--json"]))).json() as Array<Record<string, unknown>>
    expect(every.map((event) => event.action)).toEqual(expect.arrayContaining(["user.update", "department.rename", "role.member.add", "invitation.accept"]))
    const plain = await ok(admin(["admin", "audit", "--limit", "3"]))
    const [header, ...rows] = plain.stdout.trimEnd().split("\n")
    expect(header).toMatch(/^TIME\s+ACTOR\s+ACTION\s+RESOURCE\s+DETAILS\s+REQUEST ID$/)
    // The resource by its label, which the admin may see, rather than its id (issue 10.8).
    expect(rows[0]).toMatch(/UTC\s+admin@lore.local\s+grant.remove\s+knowledge_space Handbook\s/)
    expect(rows[0]).not.toContain(space.id)
    expect(rows).toHaveLength(3)
    // The footer is for people: stderr, so stdout is only the table (issue 10.7).
    expect(plain.stderr).toMatch(/more match: pass --limit N or --all/)
  })

  it("spaces rm without --yes fails naming --yes when it cannot ask (exit 2); with --yes it deletes", async () => {
    await ok(admin(["admin", "spaces", "create", "scratch", "--name", "Scratch"]))
    for (const extra of [{}, { CI: "1" }] as Array<Record<string, string>>) {
      const refused = await admin(["admin", "spaces", "rm", "scratch"], extra)
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain("--yes")
    }
    const json = await admin(["admin", "spaces", "rm", "scratch", "--json"])
    expect(json.code).toBe(2)
    expect(json.json().error).toMatchObject({ code: "USAGE_ERROR", detail: expect.stringContaining("pass --yes") })

    const removed = await ok(admin(["admin", "spaces", "rm", "scratch", "--yes", "--json"]))
    expect(removed.json()).toMatchObject({ key: "scratch", removed: true })
    const spaces = (await ok(admin(["admin", "spaces", "list", "--json"]))).json() as Array<{ key: string }>
    expect(spaces.map((space) => space.key)).not.toContain("scratch")
    expect((await admin(["admin", "spaces", "rm", "scratch", "--yes"])).code).toBe(5)
  })

  it("explain and grants reject incomplete flags with exit 2", async () => {
    for (const args of [
      ["access", "explain", "--user", EMPLOYEE],
      ["access", "explain", "--space", "handbook"],
      ["access", "explain", "--user", EMPLOYEE, "--space", "handbook", "--source", "00000000-0000-4000-8000-000000000000"],
      ["access", "explain", "--user", EMPLOYEE, "--source", "nope"],
      ["admin", "grants", "add", "handbook", "--kind", "USER", "--subject", EMPLOYEE],
      ["admin", "grants", "add", "handbook", "--relation", "viewer", "--kind", "USER"],
      ["admin", "grants", "add", "handbook", "--relation", "viewer", "--kind", "ROLE"],
      ["admin", "grants", "add", "handbook", "--relation", "viewer", "--kind", "ORGANIZATION", "--subject", "x"],
      ["admin", "grants", "add", "handbook", "--relation", "owner", "--kind", "ORGANIZATION"],
      ["admin", "spaces", "create", "Bad Key", "--name", "x"],
      ["admin", "audit", "--since", "last tuesday"],
      ["admin", "audit", "--all", "--limit", "5"]
    ]) {
      const result = await admin(args)
      expect(result.code, args.join(" ")).toBe(2)
    }
    const unknownSource = await admin(["access", "explain", "--user", EMPLOYEE, "--source", "00000000-0000-4000-8000-000000000000", "--json"])
    expect(unknownSource.code).toBe(5)
  })
})

describe("permissions", () => {
  it("an employee without platform roles gets exit 4 from admin commands, and exit 3 without login", async () => {
    for (const args of [["admin", "users", "list"], ["admin", "spaces", "list"], ["admin", "audit"]]) {
      const result = await employee([...args, "--json"])
      expect(result.code, args.join(" ")).toBe(4)
      expect(result.json().error).toMatchObject({ status: 403, code: expect.stringMatching(/^[A-Z_]+$/), requestId: expect.any(String) })
    }
    const human = await employee(["admin", "users", "list"])
    expect(human.code).toBe(4)
    expect(human.stderr).toMatch(/^error: .*\(code [A-Z_]+, request id .+\)/)
    const anonymous = await lore(["admin", "users", "list", "--server", server.url], { env: { XDG_CONFIG_HOME: newConfigHome() } })
    expect(anonymous.code).toBe(3)
  })
})
