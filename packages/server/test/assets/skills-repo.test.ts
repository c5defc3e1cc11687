import { Effect, Either } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultRepositories } from "../../src/Config"
import { checkRepository } from "../../src/git/Repository"
import { type GitServer, publish, startGitServer, writeRepository } from "./gitServer"
import { ok, type Person, problem, startWorld, type World } from "./support"

/**
 * Importing skills from git repositories: a local repository with valid and invalid skills, previewed and
 * imported over file:// and over http from `git http-backend` on loopback; re-importing the same revision
 * changes nothing; a new revision replaces changed drafts; refused addresses, redirects and credentials.
 */

const skill = (name: string, description = `The ${name} skill.`) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`

let root: string
let working: string
let bare: string
let fileUrl: string
let git: GitServer
let elsewhere: GitServer
let world: World
let author: Person
let viewer: Person
let firstCommit: string

const TOKEN = "s3cr3t-token-value"

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lore-skill-repos-"))
  working = join(root, "work")
  bare = join(root, "skills.git")
  firstCommit = writeRepository(working, {
    "README.md": "Skills\n",
    "skills/pdf-tools/SKILL.md": skill("pdf-tools"),
    "skills/pdf-tools/scripts/run.py": "print(1)\n",
    "skills/csv-tools/SKILL.md": skill("csv-tools"),
    "skills/broken/SKILL.md": skill("other-name"),
    "skills/linked/SKILL.md": skill("linked"),
    "skills/linked/passwd": "symlink:/etc/passwd"
  })
  // A skill holding a git submodule (a gitlink): refused like a symlink.
  const gitIn = (...args: Array<string>) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: working, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
  writeRepository(working, { "skills/with-module/SKILL.md": skill("with-module") })
  gitIn("update-index", "--add", "--cacheinfo", `160000,${firstCommit},skills/with-module/vendor`)
  gitIn("commit", "-q", "-m", "submodule")
  firstCommit = gitIn("rev-parse", "HEAD")
  publish(working, bare)
  fileUrl = `file://${bare}`
  elsewhere = await startGitServer(root)
  git = await startGitServer(root, { credential: { username: "bot", token: TOKEN }, redirectTo: elsewhere.url })
  world = await startWorld({ repositories: { allowedHosts: [git.host], allowFile: true, fetchTimeoutMs: 60_000 }, allowedPrivateHosts: [git.host] })
  author = await world.person("repo-author@example.com")
  viewer = await world.person("repo-viewer@example.com", { relation: "viewer" })
})
afterAll(async () => {
  await world?.server.dispose()
  await git?.close()
  await elsewhere?.close()
  rmSync(root, { recursive: true, force: true })
})

const preview = (who: Person, body: Record<string, unknown>) => who.call("POST", "/api/assets/skills/repo/preview", { knowledgeSpaceId: world.spaceId, ...body })
const importing = (who: Person, repository: string, paths: Array<string>, extra: Record<string, unknown> = {}) =>
  who.call("POST", "/api/assets/skills/repo/import", { source: { repository, knowledgeSpaceId: world.spaceId, ...extra }, paths, namespace: "team" })

const byPath = (skills: Array<any>) => Object.fromEntries(skills.map((s) => [s.path, s]))

describe("skills from git repositories", { timeout: 240_000 }, () => {
  it("previews a file:// repository: every SKILL.md, importable or not with its code", async () => {
    const found = await ok(preview(author, { repository: fileUrl }))
    expect(found).toMatchObject({ repository: fileUrl, revision: firstCommit, visibility: "PUBLIC" })
    const skills = byPath(found.skills)
    expect(Object.keys(skills).sort()).toEqual(["skills/broken", "skills/csv-tools", "skills/linked", "skills/pdf-tools", "skills/with-module"])
    expect(skills["skills/pdf-tools"]).toMatchObject({ importable: true, name: "pdf-tools", description: "The pdf-tools skill.", fileCount: 2, errorCode: null, errorMessage: null })
    expect(skills["skills/broken"]).toMatchObject({ importable: false, errorCode: "NAME_DIRECTORY_MISMATCH" })
    expect(skills["skills/broken"].errorMessage).toContain("folder name")
    expect(skills["skills/linked"]).toMatchObject({ importable: false, errorCode: "SYMLINK" })
    expect(skills["skills/with-module"]).toMatchObject({ importable: false, errorCode: "SUBMODULE" })
  })

  it("previews the same repository over http, at the remote's HEAD or at a given revision", async () => {
    const found = await ok(preview(author, { repository: `${git.url}/skills.git` }))
    expect(found.revision).toBe(firstCommit)
    expect(found.skills.filter((s: any) => s.importable).map((s: any) => s.path)).toEqual(["skills/csv-tools", "skills/pdf-tools"])
    const pinned = await ok(preview(author, { repository: `${git.url}/skills.git`, revision: "main" }))
    expect(pinned.revision).toBe(firstCommit)
  })

  it("requires a knowledge space the caller sees", async () => {
    await problem(author.call("POST", "/api/assets/skills/repo/preview", { repository: fileUrl }), 400, "VALIDATION_FAILED")
    await problem(preview(author, { repository: fileUrl, knowledgeSpaceId: "00000000-0000-4000-8000-000000000000" }), 404, "KNOWLEDGE_SPACE_NOT_FOUND")
  })

  it("imports the chosen paths over file:// as SKILL drafts, reporting what could not be imported", async () => {
    const reply = await ok(importing(author, fileUrl, ["skills/pdf-tools", "skills/csv-tools/", "skills/broken", "skills/none"]))
    expect(reply).toMatchObject({ repository: fileUrl, revision: firstCommit, visibility: "PUBLIC" })
    const skills = byPath(reply.skills)
    expect(skills["skills/pdf-tools"]).toMatchObject({ imported: true, errorCode: null, asset: { type: "SKILL", namespace: "team", slug: "pdf-tools", portfolioState: "DRAFT_ONLY" } })
    expect(skills["skills/csv-tools"]).toMatchObject({ imported: true, asset: { slug: "csv-tools" } })
    expect(skills["skills/broken"]).toMatchObject({ imported: false, asset: null, errorCode: "NAME_DIRECTORY_MISMATCH" })
    expect(skills["skills/none"]).toMatchObject({ imported: false, asset: null, errorCode: "SKILL_NOT_FOUND" })
    const payload = JSON.parse(skills["skills/pdf-tools"].asset.draft.payload)
    expect(payload).toMatchObject({ name: "pdf-tools", description: "The pdf-tools skill.", source: { repository: fileUrl, path: "skills/pdf-tools", revision: firstCommit } })
    expect(payload.files.map((f: any) => f.path)).toEqual(["SKILL.md", "scripts/run.py"])
    expect((await ok(author.call("GET", "/api/assets?type=SKILL&q=team"))).map((a: any) => a.slug).sort()).toEqual(["csv-tools", "pdf-tools"])
  })

  it("changes nothing when the same revision is imported again (UNCHANGED, the same assets)", async () => {
    const before = await ok(author.call("GET", "/api/assets?type=SKILL"))
    const again = await ok(importing(author, `${git.url}/skills.git`, ["skills/pdf-tools", "skills/csv-tools"]))
    expect(again.revision).toBe(firstCommit)
    for (const entry of again.skills) {
      expect(entry).toMatchObject({ imported: false, errorCode: "UNCHANGED" })
      expect(before.map((a: any) => a.id)).toContain(entry.asset.id)
      expect(entry.asset.draft.lockVersion).toBe(1)
    }
    expect(await ok(author.call("GET", "/api/assets?type=SKILL"))).toEqual(before)
  })

  it("replaces the drafts a new revision changes, over http", async () => {
    const second = writeRepository(working, { "skills/pdf-tools/SKILL.md": skill("pdf-tools", "Reads PDFs, now with tables.") })
    publish(working, bare)
    const reply = await ok(importing(author, `${git.url}/skills.git`, ["skills/pdf-tools", "skills/csv-tools"]))
    expect(reply.revision).toBe(second)
    const skills = byPath(reply.skills)
    expect(skills["skills/pdf-tools"]).toMatchObject({ imported: true, asset: { draft: { lockVersion: 2, summary: "Reads PDFs, now with tables." } } })
    expect(JSON.parse(skills["skills/pdf-tools"].asset.draft.payload).source.revision).toBe(second)
    expect(skills["skills/csv-tools"]).toMatchObject({ imported: false, errorCode: "UNCHANGED" })
    // The older revision is still there to be read.
    expect((await ok(preview(author, { repository: `${git.url}/skills.git`, revision: firstCommit }))).revision).toBe(firstCommit)
  })

  it("needs contributor on the space to import", async () => {
    await problem(importing(viewer, fileUrl, ["skills/pdf-tools"]), 403, "NOT_A_CONTRIBUTOR")
  })

  it("refuses hosts, transports and addresses that are not allowed (422), without echoing credentials", async () => {
    await problem(preview(author, { repository: "https://example.com/skills.git" }), 422, "REPOSITORY_NOT_ALLOWED")
    await problem(preview(author, { repository: "ext::sh -c touch% /tmp/pwned" }), 422, "REPOSITORY_NOT_ALLOWED")
    await problem(preview(author, { repository: "ssh://git@127.0.0.1/skills.git" }), 422, "REPOSITORY_NOT_ALLOWED")
    await problem(preview(author, { repository: `${git.url}/skills.git`, revision: "--upload-pack=touch" }), 422, "REPOSITORY_NOT_ALLOWED")
    const inUrl = await problem(preview(author, { repository: `http://bot:${TOKEN}@${git.host}/private/skills.git` }), 422, "REPOSITORY_NOT_ALLOWED")
    expect(JSON.stringify(inUrl)).not.toContain(TOKEN)
    // file:// is off unless LORE_REPO_ALLOW_FILE=1; the default hosts are public code hosts only.
    expect(Either.isLeft(Effect.runSync(Effect.either(checkRepository(defaultRepositories, { allowedPrivateHosts: [] }, fileUrl, undefined))))).toBe(true)
    expect(Either.isLeft(Effect.runSync(Effect.either(checkRepository(defaultRepositories, { allowedPrivateHosts: [] }, `${git.url}/skills.git`, undefined))))).toBe(true)
    expect(Either.isRight(Effect.runSync(Effect.either(checkRepository(defaultRepositories, { allowedPrivateHosts: [] }, "https://github.com/anthropics/skills", undefined))))).toBe(true)
  })

  it("never follows a redirect to a host that is not allowed", async () => {
    const before = elsewhere.authorizations.length
    const reply = await problem(preview(author, { repository: `${git.url}/redirect/skills.git` }), 502, "REPOSITORY_FETCH_FAILED")
    expect(reply.detail).not.toContain(elsewhere.url)
    expect(elsewhere.authorizations.length).toBe(before)
  })

  it("fetches a private repository with a write-only credential, sent as a header and never echoed", async () => {
    const refused = await problem(preview(author, { repository: `${git.url}/private/skills.git` }), 502, "REPOSITORY_FETCH_FAILED")
    expect(JSON.stringify(refused)).not.toContain(TOKEN)
    const wrong = await problem(preview(author, { repository: `${git.url}/private/skills.git`, credential: { username: "bot", token: "wrong-token" } }), 502, "REPOSITORY_FETCH_FAILED")
    expect(JSON.stringify(wrong)).not.toContain("wrong-token")
    const found = await ok(preview(author, { repository: `${git.url}/private/skills.git`, credential: { username: "bot", token: TOKEN } }))
    expect(found.visibility).toBe("PRIVATE")
    expect(JSON.stringify(found)).not.toContain(TOKEN)
    expect(git.authorizations).toContain(`Basic ${Buffer.from(`bot:${TOKEN}`).toString("base64")}`)
    const audit = await ok(world.admin("GET", "/api/admin/audit?pageSize=200"))
    expect(JSON.stringify(audit)).not.toContain(TOKEN)
  })
})
