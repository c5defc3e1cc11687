import { createLoreClient, type LoreClient } from "@lore/sdk"
import { execFile } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../knowledge/support"
import { createUser, http } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Issue 31, point 5: the "writing your own connector" example (examples/markdown-folder-connector) run end to
 * end, as a child process with tsx the way its README says, against a real server. It mirrors a temporary copy
 * of the sample folder into a PUSH connection; search as two users shows the ACL file enforced (through nested
 * groups); a deleted file, an ACL rule change and a group membership change show after the next run.
 */

const root = fileURLToPath(new URL("../../../../", import.meta.url))
const example = join(root, "examples/markdown-folder-connector")
const tsx = join(root, "node_modules/.bin/tsx")
const SECRET = "markdown-folder-secret-0123456789"

interface Run { readonly code: number; readonly stdout: string; readonly stderr: string }

describe("the Markdown folder connector example", { timeout: 240_000 }, () => {
  let server: TestServer
  let admin: LoreClient
  let folder: string
  const users: Record<string, { id: string; lore: LoreClient }> = {}

  /** The example, as a user runs it; tsconfig.base.json maps @lore/sdk to its source (no build needed). */
  const sync = (args: Array<string>, env: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(tsx, ["--tsconfig", join(root, "tsconfig.base.json"), join(example, "sync.ts"), ...args], {
        cwd: root,
        env: { ...process.env, LORE_SERVER: server.url, LORE_CONNECTOR_CREDENTIAL: SECRET, ...env },
        timeout: 120_000
      }, (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }))
    })
  const syncJson = async (args: Array<string> = []) => {
    const run = await sync([folder, "--connection", "handbook", "--json", ...args])
    expect(run.code, run.stderr + run.stdout).toBe(0)
    return JSON.parse(run.stdout) as {
      files: number; skipped: number; unmatched: Array<string>; emptiedGroups: Array<string>
      outcomes: Record<string, number>; results: Array<{ externalId: string; outcome: string; sourceId: string | null }>; failed: Array<unknown>
    }
  }
  /** The titles a user's search finds for a question. */
  const titles = async (who: string, q: string) => (await users[who]!.lore.knowledge.search({ q, limit: 20 })).evidence.map((e) => e.title)
  const sourceIdOf = async (externalId: string) => {
    for await (const document of admin.indexing.all("PUSH", "handbook", SECRET)) if (document.externalId === externalId) return document
    return undefined
  }

  beforeAll(async () => {
    server = await startTestServer()
    admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const department = await admin.admin.departments.create("Northwind")
    const space = await admin.admin.spaces.create({ key: "handbook", name: "Handbook" })
    await admin.admin.spaces.addGrant(space.id, { relation: "viewer", kind: "ORGANIZATION" })
    // ben is in sre (nested in engineering and staff); cat is in finance (nested in staff). Emails map them.
    for (const name of ["ben", "cat"]) {
      const user = await createUser(http(server.url, server.adminToken), server.url, { email: `${name}@example.com`, departmentId: department.id })
      users[name] = { id: user.id, lore: createLoreClient({ baseUrl: server.url, token: user.token }) }
    }
    // The connection, as `lore connectors add --kind PUSH --key handbook --space handbook --trust` makes it.
    await admin.admin.connectors.put("PUSH", "handbook", { knowledgeSpaceId: space.id, sourceConfig: { description: "Markdown folder" }, identityTrust: "TRUSTED" })
    await admin.admin.connectors.setCredential("PUSH", "handbook", SECRET)
    folder = mkdtempSync(join(tmpdir(), "lore-markdown-folder-"))
    cpSync(join(example, "sample"), folder, { recursive: true })
  })
  afterAll(async () => {
    if (folder) rmSync(folder, { recursive: true, force: true })
    await server?.dispose()
  })

  it("pushes the folder with each file's readers, and search enforces them per user", async () => {
    const first = await syncJson()
    expect(first).toMatchObject({ files: 5, skipped: 0, unmatched: [], failed: [] })
    expect(first.outcomes).toMatchObject({ MATERIALIZED: 5, RETIRED: 0 })

    // Ingestion runs on the queue: wait until ben finds the firmware page, which he reads through sre -> engineering.
    await eventually(() => titles("ben", "firmware thermistor bootloader"), (t) => t.includes("Kettle firmware architecture"), "ben finds the architecture page")
    await eventually(() => titles("cat", "payroll salaries close"), (t) => t.includes("Payroll calendar"), "cat finds the payroll calendar")
    await eventually(() => titles("cat", "trains flights hotels travel"), (t) => t.includes("Travel policy"), "cat finds the handbook (staff)")
    await eventually(() => titles("ben", "telemetry collector escalate on-call"), (t) => t.includes("On-call runbook"), "ben finds the on-call runbook")
    // Every page is ingested now: what follows holds at once.
    expect(await titles("ben", "trains flights hotels travel")).toContain("Travel policy")
    // cat is in finance only: no engineering page; ben is not in finance.
    expect(await titles("cat", "firmware thermistor bootloader")).not.toContain("Kettle firmware architecture")
    expect(await titles("cat", "telemetry collector escalate on-call")).not.toContain("On-call runbook")
    expect(await titles("ben", "payroll salaries close")).not.toContain("Payroll calendar")
    // Not mapped to any principal of the connection: the administrator sees none of it (fail closed).
    expect((await admin.knowledge.search({ q: "firmware thermistor bootloader" })).evidence).toEqual([])

    // The explanation names the chain: ben's principal, sre, engineering; for cat the source ACL blocks.
    const architecture = first.results.find((r) => r.externalId === "engineering/architecture.md")!
    const allowed = await admin.admin.access.explain({ userId: users.ben!.id, resourceType: "SOURCE", resourceId: architecture.sourceId! })
    expect(allowed.state).toBe("ALLOWED")
    expect(allowed.path.filter((step) => step.kind === "SOURCE_GROUP_MEMBERSHIP").map((step) => step.objectLabel)).toEqual([
      "PUSH/handbook: Site reliability (sre)",
      "PUSH/handbook: Engineering (engineering)"
    ])
    const denied = await admin.admin.access.explain({ userId: users.cat!.id, resourceType: "SOURCE", resourceId: architecture.sourceId! })
    expect(denied.state).toBe("DENIED")
    expect(denied.blockedBy[0]).toMatchObject({ branch: "SOURCE_ACL" })
  })

  it("sends nothing again when nothing changed (the checkpoint), and the server agrees when asked with --full", async () => {
    const again = await syncJson()
    expect(again).toMatchObject({ files: 5, skipped: 5, failed: [] })
    expect(again.results).toEqual([])
    const full = await syncJson(["--full"])
    expect(full.outcomes).toMatchObject({ UNCHANGED: 5, MATERIALIZED: 0, ROTATED: 0, REMATERIALIZED: 0 })
  })

  it("applies a deleted file, a changed rule and a changed membership on the next run", async () => {
    const architectureBefore = await sourceIdOf("engineering/architecture.md")
    rmSync(join(folder, "engineering/oncall.md"))
    const aclPath = join(folder, "acl.yaml")
    const acl = readFileSync(aclPath, "utf8")
      // cat leaves finance; the architecture page becomes readable by all staff (a new last-matching rule).
      .replace("    users: [cat]\n", "    users: []\n")
      .concat('  - match: "engineering/architecture.md"\n    groups: [staff]\n    users: [cat]\n')
    writeFileSync(aclPath, acl)

    const rerun = await syncJson()
    expect(rerun.failed).toEqual([])
    expect(rerun.results.map((r) => `${r.externalId}:${r.outcome}`).sort()).toEqual([
      "engineering/architecture.md:REMATERIALIZED",
      "engineering/oncall.md:RETIRED"
    ])
    // An ACL-only change rewrites the keys on the stored chunks: same document, no new version.
    expect((await sourceIdOf("engineering/architecture.md"))!.knowledgeAssetId).toBe(architectureBefore!.knowledgeAssetId)
    expect(await sourceIdOf("engineering/oncall.md")).toBeUndefined()

    // Each change is enforced at once: no waiting for ingestion.
    expect(await titles("ben", "telemetry collector escalate on-call")).not.toContain("On-call runbook")
    expect(await titles("cat", "firmware thermistor bootloader")).toContain("Kettle firmware architecture")
    expect(await titles("ben", "firmware thermistor bootloader")).toContain("Kettle firmware architecture")
    expect(await titles("cat", "payroll salaries close")).not.toContain("Payroll calendar")
    expect(await titles("cat", "trains flights hotels travel")).not.toContain("Travel policy")
    const finance = (await admin.admin.sourceIdentity.groups()).find((g) => g.sourceConnectionKey === "handbook" && g.nativePrincipalId === "finance")!
    expect(finance.members).toEqual([])
  })

  it("empties a group removed from acl.yaml, and a file no rule admits is retired, not pushed", async () => {
    const aclPath = join(folder, "acl.yaml")
    // engineering/** now has no rule: only architecture.md keeps one (its own). sre is removed.
    const acl = readFileSync(aclPath, "utf8")
      .replace('  - match: "engineering/**"\n    groups: [engineering]\n', "")
      .replace('  - match: "engineering/oncall.md"\n    groups: [sre]\n', "")
      .replace("    groups: [sre]\n", "")
      .replace("  sre:\n    name: Site reliability\n    users: [ben]\n", "")
    writeFileSync(aclPath, acl)
    writeFileSync(join(folder, "engineering/notes.md"), "# Loose notes\n\nNobody decided who reads the zqloosenotes page.\n")
    const rerun = await syncJson()
    expect(rerun.unmatched).toEqual(["engineering/notes.md"])
    expect(rerun.emptiedGroups).toEqual(["sre"])
    expect(await sourceIdOf("engineering/notes.md")).toBeUndefined()
    const sre = (await admin.admin.sourceIdentity.groups()).find((g) => g.sourceConnectionKey === "handbook" && g.nativePrincipalId === "sre")!
    expect(sre.members).toEqual([])
    // architecture.md is for staff and cat; ben was in staff only through sre, so he no longer reads it.
    expect(await titles("ben", "firmware thermistor bootloader")).not.toContain("Kettle firmware architecture")
    expect(await titles("cat", "firmware thermistor bootloader")).toContain("Kettle firmware architecture")
  })

  it("stops before pushing or deleting anything on a bad acl.yaml, an empty folder or a wrong credential", async () => {
    const before = (await admin.admin.connectors.activity("PUSH", "handbook")).objectsActive
    const badAcl = join(folder, "bad-acl.yaml")
    writeFileSync(badAcl, 'files:\n  - match: "**"\n    groups: [nobody]\n')
    const unknownGroup = await sync([folder, "--connection", "handbook", "--acl", badAcl])
    expect(unknownGroup.code).toBe(2)
    expect(unknownGroup.stderr).toContain("names group 'nobody', which is not under groups")

    // Alias expansion ("billion laughs") and deep nesting are refused as invalid YAML, not a crash.
    const level = (name: string, of: string) => `${name}: &${name} [${Array(10).fill(of).join(", ")}]\n`
    writeFileSync(badAcl, level("a", "x") + level("b", "*a") + level("c", "*b") + level("d", "*c"))
    const laughs = await sync([folder, "--connection", "handbook", "--acl", badAcl])
    expect(laughs.code).toBe(2)
    expect(laughs.stderr).toContain("is not valid YAML")
    writeFileSync(badAcl, "files: [" + "[".repeat(5000) + "]".repeat(5000) + "]\n")
    const nested = await sync([folder, "--connection", "handbook", "--acl", badAcl])
    expect(nested.code).toBe(2)
    expect(nested.stderr).toContain("is not valid YAML")

    const empty = mkdtempSync(join(tmpdir(), "lore-markdown-empty-"))
    writeFileSync(join(empty, "acl.yaml"), "files: []\n")
    const emptyRun = await sync([empty, "--connection", "handbook"])
    rmSync(empty, { recursive: true, force: true })
    expect(emptyRun.code).toBe(2)
    expect(emptyRun.stderr).toContain("has no Markdown files")

    const wrong = await sync([folder, "--connection", "handbook"], { LORE_CONNECTOR_CREDENTIAL: "not-the-secret-0123456789abcdef" })
    expect(wrong.code).toBe(3)
    expect(wrong.stderr).toContain("INDEXING_UNAUTHORIZED")
    expect(wrong.stderr + wrong.stdout).not.toContain(SECRET)
    expect((await admin.admin.connectors.activity("PUSH", "handbook")).objectsActive).toBe(before)
  })
})
