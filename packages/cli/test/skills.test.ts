import { createLoreClient } from "@lore/sdk"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

// Skills through the built `lore` binary: inspect (every problem listed), push (created, unchanged, updated,
// submitted), review and release with `lore assets`, install with the digest verified, activation, and an
// import from a git repository over file://.

let server: ServedLore
let home: string
let reviewerHome: string
let dir: string

const as = (config: () => string) => (args: ReadonlyArray<string>) => lore(args, { env: { XDG_CONFIG_HOME: config() } })
const author = as(() => home)
const reviewer = as(() => reviewerHome)

const ok = async (pending: ReturnType<typeof lore>) => {
  const result = await pending
  expect(result.code, `${result.stderr}${result.stdout}`).toBe(0)
  return result
}

const skillMd = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\n---\n# ${name}\nRun scripts/run.py.\n`

const writeSkill = (root: string, folder: string, files: Record<string, string>) => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, folder, path, ".."), { recursive: true })
    writeFileSync(join(root, folder, path), content)
  }
  return join(root, folder)
}

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore({ LORE_REPO_ALLOW_FILE: "1" })
  home = newConfigHome()
  reviewerHome = newConfigHome()
  dir = mkdtempSync(join(tmpdir(), "lore-cli-skills-"))
  const admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
  const space = await admin.admin.spaces.create({ key: "playbooks", name: "Playbooks" })
  const department = (await admin.admin.departments.list())[0]!
  const invitation = await admin.admin.invitations.create({ email: "skill-reviewer@example.com", departmentId: department.id })
  const accepted = await createLoreClient({ baseUrl: server.url }).invitations.accept({ code: invitation.invitationCode })
  await admin.admin.roles.addMember("ASSET_REVIEWER", accepted.user.id)
  await admin.admin.spaces.addGrant(space.id, { relation: "viewer", kind: "USER", subjectId: accepted.user.id })
  await ok(author(["login", "--server", server.url, "--token", server.adminToken]))
  await ok(reviewer(["login", "--server", server.url, "--token", accepted.token.token]))
  writeSkill(dir, "pdf-tools", { "SKILL.md": skillMd("pdf-tools", "Extracts text from PDFs."), "scripts/run.py": "print('pdf')\n" })
  writeSkill(dir, "broken-skill", { "SKILL.md": "---\nname: Broken_Skill\nowner: me\n---\nbody\n" })
  writeSkill(dir, "linked", { "SKILL.md": skillMd("linked", "Has a link.") })
  symlinkSync("/etc/passwd", join(dir, "linked", "passwd"))
})
afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe("lore skills", { timeout: 240_000 }, () => {
  it("inspects a folder: 0 when valid, 6 with every problem listed when not", async () => {
    const valid = (await ok(author(["--json", "skills", "inspect", join(dir, "pdf-tools")]))).json()
    expect(valid).toMatchObject({ name: "pdf-tools", description: "Extracts text from PDFs.", license: "MIT" })
    expect(valid.files.map((f: any) => f.path)).toEqual(["SKILL.md", "scripts/run.py"])
    const broken = await author(["skills", "inspect", join(dir, "broken-skill")])
    expect(broken.code).toBe(6)
    for (const code of ["UNKNOWN_FIELD", "NAME_INVALID_CHARACTERS", "NAME_DIRECTORY_MISMATCH", "DESCRIPTION_REQUIRED"]) expect(broken.stderr).toContain(code)
    const linked = await author(["--json", "skills", "inspect", join(dir, "linked")])
    expect(linked.code).toBe(6)
    expect(linked.json().error.detail).toContain("SYMLINK")
    expect((await author(["skills", "inspect", join(dir, "missing")])).code).toBe(2)
  })

  it("pushes a skill: created, unchanged, updated; --submit opens the review", async () => {
    const folder = join(dir, "pdf-tools")
    const noSpace = await author(["skills", "push", folder, "--namespace", "docs"])
    expect(noSpace.code).toBe(2)
    const created = (await ok(author(["--json", "skills", "push", folder, "--namespace", "docs", "--space", "playbooks"]))).json()
    expect(created).toMatchObject({ asset: "docs/pdf-tools", change: "created", lockVersion: 1, submitted: false })
    const again = (await ok(author(["--json", "skills", "push", folder, "--namespace", "docs"]))).json()
    expect(again).toMatchObject({ change: "unchanged", lockVersion: 1 })
    writeFileSync(join(folder, "SKILL.md"), skillMd("pdf-tools", "Extracts text and tables from PDFs."))
    const submitted = (await ok(author(["--json", "skills", "push", folder, "--namespace", "docs", "--submit", "--note", "tables"]))).json()
    expect(submitted).toMatchObject({ change: "updated", lockVersion: 2, submitted: true })
    const shown = (await ok(author(["--json", "assets", "show", "docs/pdf-tools"]))).json()
    expect(shown).toMatchObject({ type: "SKILL", portfolioState: "IN_REVIEW" })
  })

  it("is reviewed and released with lore assets, then installed with its digest verified", async () => {
    await ok(reviewer(["--json", "assets", "review", "docs/pdf-tools", "--approve", "--comment", "ok"]))
    const released = (await ok(author(["--json", "assets", "release", "docs/pdf-tools", "--label", "1.0.0"]))).json()
    expect(released.releases[0]).toMatchObject({ versionLabel: "1.0.0", availability: "AVAILABLE" })

    const target = join(dir, "installed")
    const installed = (await ok(reviewer(["--json", "skills", "install", "docs/pdf-tools@1.0.0", "--dir", target]))).json()
    expect(installed).toMatchObject({ coordinate: "docs/pdf-tools@1.0.0", verified: true, directory: join(target, "pdf-tools"), files: 2 })
    const admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const manifest = await admin.assets.skills.manifest(released.id, released.releases[0].id)
    expect(installed.packageDigest).toBe(manifest.packageDigest)
    const pkg = await admin.assets.skills.package(released.id, released.releases[0].id, manifest.packageDigest)
    expect(`sha256:${createHash("sha256").update(pkg.bytes).digest("hex")}`).toBe(manifest.packageDigest)
    expect(readFileSync(join(target, "pdf-tools", "SKILL.md"), "utf8")).toBe(skillMd("pdf-tools", "Extracts text and tables from PDFs."))
    expect(readFileSync(join(target, "pdf-tools", "scripts", "run.py"), "utf8")).toBe("print('pdf')\n")
    // A wrong digest is refused by the SDK before anything is written.
    await expect(admin.assets.skills.package(released.id, released.releases[0].id, "sha256:" + "0".repeat(64))).rejects.toMatchObject({ code: "DIGEST_MISMATCH" })

    const unknown = await reviewer(["--json", "skills", "install", "docs/pdf-tools@9.9.9", "--dir", target])
    expect(unknown.code).toBe(5)
    expect((await reviewer(["skills", "install", "pdf-tools", "--dir", target])).code).toBe(2)
  })

  it("activates and deactivates a released skill for the caller", async () => {
    expect((await ok(reviewer(["--json", "skills", "activate", "docs/pdf-tools"]))).json()).toMatchObject({ enabled: true })
    expect((await ok(reviewer(["--json", "skills", "deactivate", "docs/pdf-tools"]))).json()).toMatchObject({ enabled: false })
  })

  it("imports skills from a git repository; the same revision again changes nothing", async () => {
    const repo = join(dir, "repo")
    writeSkill(repo, "skills/csv-tools", { "SKILL.md": skillMd("csv-tools", "Reads CSV files.") })
    writeSkill(repo, "skills/bad", { "SKILL.md": skillMd("not-bad", "Mismatched.") })
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "skills")
    const commit = git(repo, "rev-parse", "HEAD")
    const url = `file://${repo}`
    // The invalid folder is never skipped silently: listed, and exit 6 without --skip-invalid (issue 33.3).
    const strict = await author(["--json", "skills", "import", url, "--namespace", "team", "--space", "playbooks"])
    expect(strict.code, strict.stderr).toBe(6)
    const first = strict.json()
    expect(first.revision).toBe(commit)
    expect(first.skills).toMatchObject([{ path: "skills/bad", imported: false, errorCode: "NAME_DIRECTORY_MISMATCH" }, { path: "skills/csv-tools", imported: true, asset: { slug: "csv-tools", type: "SKILL" } }])
    expect(Object.keys(first.skills[0]).sort()).toEqual(["errorCode", "errorMessage", "imported", "path"])
    expect(strict.stderr).toMatch(/^SKIPPED skills\/bad NAME_DIRECTORY_MISMATCH: .+$/m)
    const again = (await ok(author(["--json", "skills", "import", url, "--namespace", "team", "--space", "playbooks", "--skip-invalid"]))).json()
    expect(again.skills).toMatchObject([{ path: "skills/bad", imported: false }, { path: "skills/csv-tools", imported: false, errorCode: "UNCHANGED", asset: { id: first.skills[1].asset.id } }])
    const text = await author(["skills", "import", url, "--namespace", "team", "--space", "playbooks"])
    expect(text.code).toBe(6)
    expect(text.stderr).toContain("SKILLS_NOT_IMPORTED")
    expect(text.stderr).toContain("SKIPPED skills/bad NAME_DIRECTORY_MISMATCH")
    const bad = await author(["--json", "skills", "import", url, "--namespace", "team", "--space", "playbooks", "--path", "skills/bad", "--revision", commit])
    expect(bad.code).toBe(6)
    expect(bad.json().skills).toMatchObject([{ path: "skills/bad", imported: false, errorCode: "NAME_DIRECTORY_MISMATCH" }])
  })
})
