import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedLore, serveLore } from "./support/serve"
import { ANSI, ensureBuilt, lore, newConfigHome } from "./support/cli"

let server: ServedLore
let home: string
const env = () => ({ XDG_CONFIG_HOME: home })
const asAdmin = (args: ReadonlyArray<string>) => lore([...args, "--profile", "A"], { env: env() })
const profiles = () => JSON.parse(readFileSync(join(home, "lore", "config.json"), "utf8")).profiles

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  home = newConfigHome()
  const login = await lore(["login", "--server", server.url, "--token", server.adminToken, "--profile", "A"], { env: env() })
  expect(login.code, login.stderr).toBe(0)
})
afterAll(() => server?.stop())

describe("invitation acceptance end to end through the CLI", () => {
  it("admin invites into a new department; the invitee accepts into profile B and is logged in; the code works once", async () => {
    const department = await asAdmin(["admin", "departments", "create", "Research", "--json"])
    expect(department.code, department.stderr).toBe(0)
    expect(department.json()).toMatchObject({ name: "Research", memberCount: 0, id: expect.any(String) })

    const invited = await asAdmin([
      "admin", "invitations", "create", "--email", "ada@example.com", "--department", "Research",
      "--role", "manager", "--clearance", "confidential", "--expires-in-days", "7", "--json"
    ])
    expect(invited.code, invited.stderr).toBe(0)
    const invitation = invited.json()
    expect(invitation).toMatchObject({
      email: "ada@example.com",
      role: "MANAGER",
      clearance: "CONFIDENTIAL",
      departmentId: department.json().id,
      status: "PENDING",
      acceptedAt: null
    })
    const code: string = invitation.invitationCode
    expect(code).toEqual(expect.any(String))

    // No login for B: the code alone is the credential, and the server comes from --server.
    const accepted = await lore(["invitations", "accept", code, "--server", server.url, "--profile", "B", "--name", "Ada Lovelace", "--json"], { env: env() })
    expect(accepted.code, accepted.stderr).toBe(0)
    const result = accepted.json()
    expect(result).toMatchObject({ profile: "B", server: server.url, user: { email: "ada@example.com", name: "Ada Lovelace" } })
    expect(accepted.stdout).not.toMatch(/lore_pat_/)

    const saved = profiles()
    expect(saved.B).toMatchObject({ server: server.url, user: "ada@example.com", token: expect.stringMatching(/^lore_pat_/) })
    expect(saved.A.token).toBe(server.adminToken)

    const whoami = await lore(["whoami", "--profile", "B", "--json"], { env: env() })
    expect(whoami.code, whoami.stderr).toBe(0)
    expect(whoami.json()).toMatchObject({
      email: "ada@example.com",
      name: "Ada Lovelace",
      role: "MANAGER",
      clearance: "CONFIDENTIAL",
      departmentName: "Research",
      platformRoles: []
    })

    const again = await lore(["invitations", "accept", code, "--server", server.url, "--profile", "C", "--json"], { env: env() })
    expect(again.code).toBe(6)
    expect(again.json().error).toMatchObject({ status: 409, code: "INVITATION_ACCEPTED", requestId: expect.any(String) })
    expect(profiles().C).toBeUndefined()

    const human = await lore(["invitations", "accept", code, "--server", server.url, "--profile", "C"], { env: env() })
    expect(human.code).toBe(6)
    expect(human.stdout).toBe("")
    expect(human.stderr).toMatch(/^error: .*\(code INVITATION_ACCEPTED, request id .+\)/)

    const listed = await asAdmin(["admin", "invitations", "list", "--json"])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json().find((entry: { id: string }) => entry.id === invitation.id)).toMatchObject({
      status: "ACCEPTED",
      acceptedAppUserId: whoami.json().userId,
      acceptedAt: expect.any(String)
    })
    expect(listed.stdout).not.toContain(code)
  })

  it("prints the code once, plainly, when piped; a revoked or unknown code is refused", async () => {
    const created = await asAdmin(["admin", "invitations", "create", "--email", "bob@example.com", "--department", "research"])
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).not.toMatch(ANSI)
    const code = /Invitation code.*: (\S+)/.exec(created.stdout)?.[1]
    expect(code).toBeDefined()
    expect(created.stdout).toContain(`lore invitations accept <code> --server ${server.url}`)
    // What the invitee will be able to read (issue 10.2): the server's default clearance, STANDARD.
    expect(created.stdout).toMatch(/^Invited bob@example.com to Research as EMPLOYEE, clearance STANDARD \(reads PUBLIC and INTERNAL\)$/m)
    expect(created.stdout).toMatch(/^Clearance STANDARD reads PUBLIC and INTERNAL documents, in /m)

    const list = await asAdmin(["admin", "invitations", "list"])
    const [header, ...rows] = list.stdout.trimEnd().split("\n")
    expect(header).toMatch(/^EMAIL\s+STATUS\s+ROLE\s+CLEARANCE\s+DEPARTMENT\s+/)
    const bob = rows.find((row) => row.startsWith("bob@example.com"))!
    expect(bob).toMatch(/PENDING\s+EMPLOYEE\s+\S+\s+Research/)
    const id = bob.trim().split(/\s+/).pop()!
    expect(list.stderr).toMatch(/^Clearance STANDARD \(reads PUBLIC and INTERNAL\); CONFIDENTIAL \(reads PUBLIC, INTERNAL and CONFIDENTIAL\)\.$/m)

    const revoked = await asAdmin(["admin", "invitations", "revoke", id, "--json"])
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.json()).toEqual({ id, revoked: true })

    const refused = await lore(["invitations", "accept", code!, "--server", server.url, "--profile", "D", "--json"], { env: env() })
    expect(refused.code).toBe(6)
    expect(refused.json().error.code).toBe("INVITATION_REVOKED")

    const unknown = await lore(["invitations", "accept", "lore_inv_nonsense", "--server", server.url, "--profile", "D", "--json"], { env: env() })
    expect(unknown.code).toBe(5)
    expect(unknown.json().error).toMatchObject({ status: 404, code: "INVITATION_NOT_FOUND" })
    expect(profiles().D).toBeUndefined()
  })

  it("rejects bad input before any request", async () => {
    for (const args of [
      ["admin", "invitations", "create", "--department", "Research"],
      ["admin", "invitations", "create", "--email", "x@example.com"],
      ["admin", "invitations", "create", "--email", "not-an-email", "--department", "Research"],
      ["admin", "invitations", "create", "--email", "x@example.com", "--department", "Research", "--expires-in-days", "91"],
      ["admin", "invitations", "create", "--email", "x@example.com", "--department", "Research", "--role", "OWNER"],
      ["admin", "invitations", "revoke", "not-a-uuid"],
      ["invitations", "accept"]
    ]) {
      const result = await asAdmin(args)
      expect(result.code, args.join(" ")).toBe(2)
    }
    const missing = await asAdmin(["admin", "invitations", "create", "--email", "x@example.com", "--department", "Nowhere", "--json"])
    expect(missing.code).toBe(5)
    expect(missing.json().error.code).toBe("DEPARTMENT_NOT_FOUND")
  })
})
