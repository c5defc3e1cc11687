import { createLoreClient, isLoreError, type LoreClient, packageDigest } from "@lore/sdk"
import { zipSync } from "fflate"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Person, startWorld, type World } from "../assets/support"

/** Skills through @lore/sdk (`lore.assets.skills`): typed errors with per-rule codes, the reviewed release, manifest, package, activation. */

const text = (value: string) => new TextEncoder().encode(value)
const packageOf = (name: string, description: string) =>
  new Blob([zipSync({ [`${name}/SKILL.md`]: text(`---\nname: ${name}\ndescription: ${description}\n---\nUse it.\n`) }) as Uint8Array<ArrayBuffer>])

describe("SDK skills", { timeout: 180_000 }, () => {
  let world: World
  let author: Person
  let reviewer: Person
  let lore: LoreClient
  let review: LoreClient

  beforeAll(async () => {
    world = await startWorld()
    author = await world.person("sdk-skill-author@example.com")
    reviewer = await world.person("sdk-skill-reviewer@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
    lore = createLoreClient({ baseUrl: world.server.url, token: author.token })
    review = createLoreClient({ baseUrl: world.server.url, token: reviewer.token })
  })
  afterAll(async () => world.server.dispose())

  it("walks a skill from package to activation", async () => {
    const invalid = await lore.assets.skills.inspect({ file: packageOf("Bad", "x") }).catch((e) => e)
    expect(isLoreError(invalid, "INVALID_SKILL_PACKAGE")).toBe(true)
    expect(invalid.problem.errors.map((e: any) => e.code)).toEqual(["NAME_INVALID_CHARACTERS"])

    const inspection = await lore.assets.skills.inspect({ file: packageOf("notes", "Takes notes.") })
    const created = await lore.assets.skills.create({ file: packageOf("notes", "Takes notes."), namespace: "sdk", knowledgeSpaceId: world.spaceId })
    expect(created).toMatchObject({ type: "SKILL", slug: "notes", draft: { classification: "INTERNAL" } })
    const stale = await lore.assets.skills.updateDraft(created.id, { file: packageOf("notes", "Takes notes, v2."), expectedLockVersion: 9 }).catch((e) => e)
    expect(isLoreError(stale, "LOCK_VERSION_CONFLICT")).toBe(true)
    const updated = await lore.assets.skills.updateDraft(created.id, { file: packageOf("notes", "Takes notes, v2."), expectedLockVersion: 1 })
    expect(JSON.parse(updated.draft!.payload).sha256).not.toBe(inspection.sha256)

    const submitted = await lore.assets.submit(created.id, { changeNote: "v2", lockVersion: updated.draft!.lockVersion })
    await review.assets.decide(created.id, submitted.reviews[0]!.id, { decision: "APPROVE", comment: "ok" })
    const released = await lore.assets.skills.release(created.id, { revisionId: submitted.revisions[0]!.id, versionLabel: "0.1.0" })
    const release = released.releases[0]!

    const manifest = await review.assets.skills.manifest(created.id, release.id)
    expect(manifest.coordinate).toBe("sdk/notes@0.1.0")
    const pkg = await review.assets.skills.package(created.id, release.id, manifest.packageDigest)
    expect(pkg.digest).toBe(manifest.packageDigest)
    expect(pkg.etag).toBe(`"${manifest.packageDigest}"`)
    expect(await packageDigest(pkg.bytes)).toBe(manifest.packageDigest)

    expect(await review.assets.skills.activation(created.id)).toEqual({ assetId: created.id, enabled: false })
    expect(await review.assets.skills.setActivation(created.id, true)).toEqual({ assetId: created.id, enabled: true })
    expect(await review.assets.skills.activation(created.id)).toEqual({ assetId: created.id, enabled: true })

    const refused = await lore.assets.skills.previewRepository({ repository: "https://example.com/x.git", knowledgeSpaceId: world.spaceId }).catch((e) => e)
    expect(isLoreError(refused, "REPOSITORY_NOT_ALLOWED")).toBe(true)
  })
})
