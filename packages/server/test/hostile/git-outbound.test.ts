import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultRepositories, Settings } from "../../src/Config"
import { GitKind } from "../../src/connectors/Git"
import { type GitServer, publish, startGitServer, writeRepository } from "../assets/gitServer"
import { ok, type Person, problem, startWorld, type World } from "../assets/support"

/**
 * Issue 29, finding 4: with LORE_REPO_ALLOWED_HOSTS=* a space member made Lore's git fetch loopback, link-local
 * and private addresses, and GIT connector configs pointing at 127.0.0.1 or file:///etc were saved. Now `*`
 * means public hosts only: every private spelling is refused (422) before git runs, and nothing reaches the
 * loopback git server; a private host is reached only when LORE_ALLOWED_PRIVATE_HOSTS names it, and then git
 * connects to the address that was checked (pinned), never to a fresh lookup.
 */

let root: string
let gitServer: GitServer
let world: World
let member: Person
const hits: Array<string> = []

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lore-hostile-git-"))
  writeRepository(join(root, "work"), { "skills/pinned/SKILL.md": "---\nname: pinned\ndescription: The pinned skill.\n---\n# pinned\n" })
  publish(join(root, "work"), join(root, "skills.git"))
  gitServer = await startGitServer(root, { onRequest: (url) => void hits.push(url.pathname) })
  const port = new URL(gitServer.url).port
  // Any public host, and of the private ones only `localhost` on the git server's port, by that name.
  world = await startWorld({ repositories: { allowedHosts: ["*"], allowFile: false, fetchTimeoutMs: 60_000 }, allowedPrivateHosts: [`localhost:${port}`] })
  member = await world.person("git-hostile@example.com", { relation: "viewer" })
}, 120_000)

afterAll(async () => {
  await world?.server.dispose()
  await gitServer?.close()
  rmSync(root, { recursive: true, force: true })
})

const preview = (repository: string) =>
  member.call("POST", "/api/assets/skills/repo/preview", { repository, knowledgeSpaceId: world.spaceId })

describe("git fetches on a caller's behalf", () => {
  it("refuses loopback, link-local and private addresses with LORE_REPO_ALLOWED_HOSTS=*, sending nothing", async () => {
    const port = new URL(gitServer.url).port
    const before = hits.length
    for (const repository of [
      `http://127.0.0.1:${port}/skills.git`,
      "http://169.254.169.254/latest/meta-data/",
      `http://[::1]:${port}/skills.git`,
      `http://[::ffff:127.0.0.1]:${port}/skills.git`,
      `http://2130706433:${port}/skills.git`,
      `http://0x7f.1:${port}/skills.git`,
      `http://localhost:${Number(port) + 1}/skills.git`,
      "http://10.0.0.1/skills.git",
      "http://[fd00::1]/skills.git"
    ]) {
      const refused = await problem(preview(repository), 422, "REPOSITORY_NOT_ALLOWED")
      expect(refused.errors, repository).toEqual([expect.objectContaining({ code: "ADDRESS_NOT_ALLOWED" })])
    }
    await problem(preview("file:///etc"), 422, "REPOSITORY_NOT_ALLOWED")
    expect(hits.length).toBe(before)
  })

  it("reaches a private host an administrator listed by name, over the pinned address", async () => {
    const port = new URL(gitServer.url).port
    const found = await ok(preview(`http://localhost:${port}/skills.git`))
    expect(found.skills).toEqual([expect.objectContaining({ path: "skills/pinned", importable: true })])
    expect(hits.length).toBeGreaterThan(0)
  })
})

describe("GIT connector configs", () => {
  const save = (key: string, repository: string) =>
    world.admin("PUT", `/api/admin/connectors/GIT/${key}`, {
      knowledgeSpaceId: world.spaceId, sourceConfig: { repository, readers: { users: [{ id: "u1" }] } }
    })

  it("are refused at save (422) when they point at a private address or a local path", async () => {
    const port = new URL(gitServer.url).port
    for (const repository of [`http://127.0.0.1:${port}/skills.git`, "file:///etc", "http://169.254.169.254/x.git", `http://[::1]:${port}/x.git`]) {
      const refused = await problem(save("hostile", repository), 422, "INVALID_CONNECTOR_CONFIG")
      expect(refused.errors, repository).toEqual([expect.objectContaining({ path: "sourceConfig.repository" })])
    }
    expect((await world.admin("GET", "/api/admin/connectors/GIT")).body).toEqual([])
  })

  it("test an allowed private host, and refuse the rest in an unsaved test before fetching", async () => {
    const port = new URL(gitServer.url).port
    await ok(save("allowed", `http://localhost:${port}/skills.git`))
    const tested = await ok(world.admin("POST", "/api/admin/connectors/GIT/allowed/test"))
    expect(tested).toMatchObject({ authenticated: true, canReadContent: true, errorCode: null })
    const before = hits.length
    await problem(world.admin("POST", "/api/admin/connectors/GIT/test", {
      knowledgeSpaceId: world.spaceId, sourceConfig: { repository: `http://127.0.0.1:${port}/skills.git`, readers: { users: [{ id: "u1" }] } }
    }), 422, "INVALID_CONNECTOR_CONFIG")
    expect(hits.length).toBe(before)
  })
})

describe("a saved GIT connection whose host is no longer allowed", () => {
  it("fails its test and its crawl with ADDRESS_NOT_ALLOWED, fetching nothing", async () => {
    const port = new URL(gitServer.url).port
    const settings = Settings.make({ dataDir: root, repositories: { ...defaultRepositories, allowedHosts: ["*"] } })
    const context = { sourceConfig: { repository: `http://localhost:${port}/skills.git`, readers: { users: [{ id: "u1" }] } }, credential: null, settings }
    const before = hits.length
    const tested = await Effect.runPromise(GitKind.testCredentials(context))
    expect(tested).toMatchObject({ authenticated: false, canReadContent: false, errorCode: "ADDRESS_NOT_ALLOWED" })
    const page = await Effect.runPromise(GitKind.crawl(context, null))
    expect(page.failures).toEqual([expect.objectContaining({ code: "ADDRESS_NOT_ALLOWED", fatal: true })])
    expect(hits.length).toBe(before)
  })
})
