import { unzipSync, zipSync, type Zippable } from "fflate"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAsset, draftOf, ok, type Person, problem, promptPayload, startWorld, type World } from "./support"

/**
 * Skills over HTTP: inspection (stores nothing), upload as a SKILL asset with its draft, draft replacement under
 * expectedLockVersion, review and release through the asset policy, the manifest and the package download
 * (ETag = digest), and each user's activation.
 */

const text = (value: string) => new TextEncoder().encode(value)
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex")

const skillZip = (name: string, description: string, extra: Record<string, string> = {}, folder: string = name) => {
  const entries: Zippable = { [`${folder}/SKILL.md`]: text(`---\nname: ${name}\ndescription: ${description}\nlicense: MIT\nmetadata:\n  team: ops\n---\n# ${name}\nSteps.\n`) }
  for (const [path, content] of Object.entries(extra)) entries[`${folder}/${path}`] = text(content)
  return zipSync(entries)
}

type Reply = { status: number; body: any; headers: Headers; bytes: Uint8Array }

const send = async (who: Person, method: string, path: string, zip?: Uint8Array): Promise<Reply> => {
  const form = new FormData()
  if (zip) form.append("file", new Blob([zip as Uint8Array<ArrayBuffer>], { type: "application/zip" }), "skill.zip")
  const response = await fetch(world.server.url + path, { method, headers: { authorization: `Bearer ${who.token}` }, body: zip ? form : undefined })
  const bytes = new Uint8Array(await response.arrayBuffer())
  const type = response.headers.get("content-type") ?? ""
  return { status: response.status, headers: response.headers, bytes, body: type.includes("json") ? JSON.parse(new TextDecoder().decode(bytes)) : undefined }
}

let world: World
let author: Person
let reviewer: Person
let viewer: Person
let outsider: Person
let asset: Record<string, any>

beforeAll(async () => {
  world = await startWorld()
  author = await world.person("skill-author@example.com")
  reviewer = await world.person("skill-reviewer@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
  viewer = await world.person("skill-viewer@example.com", { relation: "viewer" })
  outsider = await world.person("skill-outsider@example.com", { relation: null })
})
afterAll(async () => world.server.dispose())

describe("skills over HTTP", { timeout: 240_000 }, () => {
  it("inspects a package and stores nothing", async () => {
    const zip = skillZip("pdf-tools", "Extracts text from PDFs.", { "scripts/run.py": "print(1)\n" })
    const reply = await send(author, "POST", "/api/assets/skills/inspections", zip)
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body).toMatchObject({ name: "pdf-tools", description: "Extracts text from PDFs.", license: "MIT", compatibility: null, allowedTools: null, metadata: { team: "ops" } })
    expect(reply.body.files).toEqual([
      { path: "SKILL.md", size: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { path: "scripts/run.py", size: 9, sha256: sha256("print(1)\n") }
    ])
    expect(await ok(author.call("GET", "/api/assets?type=SKILL"))).toEqual([])
  })

  it("answers an invalid package 422 problem+json with one entry per broken rule", async () => {
    const zip = zipSync({ "bad/SKILL.md": text("---\nname: Bad--Name\nowner: me\n---\nx\n"), "bad/../escape": text("x") })
    const reply = await send(author, "POST", "/api/assets/skills/inspections", zip)
    expect(reply.status).toBe(422)
    expect(reply.headers.get("content-type")).toContain("application/problem+json")
    expect(reply.body.code).toBe("INVALID_SKILL_PACKAGE")
    expect(reply.body.errors.map((e: any) => e.code)).toEqual(["PATH_TRAVERSAL"])
    const fields = await send(author, "POST", "/api/assets/skills/inspections", zipSync({ "bad/SKILL.md": text("---\nname: Bad--Name\nowner: me\n---\nx\n") }))
    expect(fields.body.errors.map((e: any) => e.code).sort()).toEqual(["DESCRIPTION_REQUIRED", "NAME_DIRECTORY_MISMATCH", "NAME_INVALID_CHARACTERS", "NAME_INVALID_HYPHENS", "UNKNOWN_FIELD"])
  })

  it("defaults knowledgeSpaceId to the caller's only upload target and namespace to the space's key (issue 33.10)", async () => {
    const alone = await send(author, "POST", "/api/assets/skills", skillZip("md-tools", "Reads Markdown."))
    expect(alone.status, JSON.stringify(alone.body)).toBe(201)
    expect(alone.body).toMatchObject({ namespace: "assets", slug: "md-tools", knowledgeSpaceId: world.spaceId })
    const spaceOnly = await send(author, "POST", `/api/assets/skills?knowledgeSpaceId=${world.spaceId}`, skillZip("txt-tools", "Reads text."))
    expect(spaceOnly.status, JSON.stringify(spaceOnly.body)).toBe(201)
    expect(spaceOnly.body).toMatchObject({ namespace: "assets", slug: "txt-tools" })
    // A namespace that breaks the pattern is still refused, naming it.
    const badNamespace = await send(author, "POST", "/api/assets/skills?namespace=Not%20A%20Namespace", skillZip("md-tools", "Reads Markdown."))
    expect(badNamespace.status).toBe(400)
    expect(JSON.stringify(badNamespace.body.errors)).toContain("namespace")
  })

  it("answers 400 naming knowledgeSpaceId when the caller has no upload target or several, and keeps the space checks", async () => {
    const zip = skillZip("pdf-tools", "Extracts text from PDFs.")
    const none = await problem(send(viewer, "POST", "/api/assets/skills", zip), 400, "VALIDATION_FAILED")
    expect(none.errors).toEqual([{ path: "knowledgeSpaceId", message: expect.stringContaining("no knowledge space") }])
    const second = await ok(world.admin("POST", "/api/admin/knowledge-spaces", { key: "second-space", name: "Second" }), 201)
    const twoSpaces = await world.person("skill-two-spaces@example.com")
    expect((await world.admin("POST", `/api/admin/knowledge-spaces/${second.id}/grants`, { relation: "contributor", kind: "USER", subjectId: twoSpaces.id })).status).toBeLessThan(300)
    const several = await problem(send(twoSpaces, "POST", "/api/assets/skills", zip), 400, "VALIDATION_FAILED")
    expect(several.errors[0].path).toBe("knowledgeSpaceId")
    expect(several.errors[0].message).toContain("assets")
    expect(several.errors[0].message).toContain("second-space")
    expect((await send(viewer, "POST", `/api/assets/skills?namespace=docs&knowledgeSpaceId=${world.spaceId}`, zip)).body.code).toBe("NOT_A_CONTRIBUTOR")
    expect((await send(viewer, "POST", `/api/assets/skills?knowledgeSpaceId=${world.spaceId}`, zip)).body.code).toBe("NOT_A_CONTRIBUTOR")
    expect((await send(outsider, "POST", `/api/assets/skills?namespace=docs&knowledgeSpaceId=${world.spaceId}`, zip)).body.code).toBe("KNOWLEDGE_SPACE_NOT_FOUND")
    expect((await send(outsider, "POST", `/api/assets/skills?knowledgeSpaceId=${world.spaceId}`, zip)).body.code).toBe("KNOWLEDGE_SPACE_NOT_FOUND")
    // Another organization's space, or one that does not exist, is not found either way.
    expect((await send(author, "POST", "/api/assets/skills?knowledgeSpaceId=00000000-0000-4000-8000-000000000000", zip)).body.code).toBe("KNOWLEDGE_SPACE_NOT_FOUND")
  })

  it("creates a SKILL asset named after the skill, with the inspection as its draft (INTERNAL by default)", async () => {
    const zip = skillZip("pdf-tools", "Extracts text from PDFs.", { "scripts/run.py": "print(1)\n" })
    const reply = await send(author, "POST", `/api/assets/skills?namespace=docs&knowledgeSpaceId=${world.spaceId}`, zip)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    asset = reply.body
    expect(asset).toMatchObject({ type: "SKILL", namespace: "docs", slug: "pdf-tools", portfolioState: "DRAFT_ONLY", ownerUserId: author.id })
    expect(asset.draft).toMatchObject({ title: "pdf-tools", summary: "Extracts text from PDFs.", classification: "INTERNAL", lockVersion: 1 })
    const payload = JSON.parse(asset.draft.payload)
    expect(payload).toMatchObject({ name: "pdf-tools", description: "Extracts text from PDFs.", license: "MIT" })
    expect(payload.files.map((f: any) => f.path)).toEqual(["SKILL.md", "scripts/run.py"])
    expect((await send(author, "POST", `/api/assets/skills?namespace=docs&knowledgeSpaceId=${world.spaceId}`, zip)).body.code).toBe("ASSET_SLUG_TAKEN")
    expect((await ok(author.call("GET", "/api/assets?type=SKILL&q=docs"))).map((a: any) => a.id)).toEqual([asset.id])
    expect((await ok(author.call("GET", "/api/assets?type=SKILL&q=nothere"))).map((a: any) => a.id)).toEqual([])
  })

  it("replaces the draft under expectedLockVersion (409 when stale); the name must stay the slug", async () => {
    const v2 = skillZip("pdf-tools", "Extracts text and tables from PDFs.")
    const stale = await send(author, "PUT", `/api/assets/${asset.id}/skill-draft?expectedLockVersion=7`, v2)
    expect(stale.status).toBe(409)
    expect(stale.body.code).toBe("LOCK_VERSION_CONFLICT")
    const updated = await send(author, "PUT", `/api/assets/${asset.id}/skill-draft?expectedLockVersion=1`, v2)
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.draft).toMatchObject({ lockVersion: 2, summary: "Extracts text and tables from PDFs." })
    const unchecked = await send(author, "PUT", `/api/assets/${asset.id}/skill-draft`, skillZip("pdf-tools", "Extracts text, tables and images from PDFs."))
    expect(unchecked.body.draft.lockVersion).toBe(3)
    const renamed = await send(author, "PUT", `/api/assets/${asset.id}/skill-draft`, skillZip("pdf-reader", "Reads PDFs."))
    expect(renamed.status).toBe(422)
    expect(renamed.body.errors.map((e: any) => e.code)).toEqual(["NAME_SLUG_MISMATCH"])
    expect((await send(viewer, "PUT", `/api/assets/${asset.id}/skill-draft`, v2)).body.code).toBe("ASSET_NOT_FOUND")
    expect((await send(reviewer, "PUT", `/api/assets/${asset.id}/skill-draft`, v2)).body.code).toBe("ASSET_ROLE_REQUIRED")
  })

  it("releases through review: not before approval, then 201 with the manifest and the package", async () => {
    const current = await ok(author.call("GET", `/api/assets/${asset.id}`))
    const submitted = await ok(author.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "first", lockVersion: current.draft.lockVersion }), 201)
    const review = submitted.reviews.at(-1)
    await problem(author.call("POST", `/api/assets/${asset.id}/skill-releases`, { revisionId: review.revisionId, versionLabel: "1.0.0" }), 409, "REVISION_NOT_APPROVED")
    await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${review.id}/decisions`, { decision: "APPROVE", comment: "fine" }))
    await problem(author.call("POST", `/api/assets/${asset.id}/skill-releases`, { revisionId: review.revisionId, versionLabel: "one" }), 422, "INVALID_VERSION_LABEL")
    const released = await ok(author.call("POST", `/api/assets/${asset.id}/skill-releases`, { revisionId: review.revisionId, versionLabel: "1.0.0" }), 201)
    expect(released.portfolioState).toBe("RELEASED")
    const release = released.releases[0]
    asset = released

    const manifest = await ok(viewer.call("GET", `/api/assets/${asset.id}/releases/${release.id}/skill-manifest`))
    expect(manifest).toMatchObject({
      assetId: asset.id, releaseId: release.id, namespace: "docs", slug: "pdf-tools", coordinate: "docs/pdf-tools@1.0.0", version: "1.0.0",
      publicationMode: "REVIEWED", title: "pdf-tools", description: "Extracts text, tables and images from PDFs.", releaseDigest: release.digest,
      mediaType: "application/zip", license: "MIT", compatibility: null, allowedTools: null, metadata: { team: "ops" }
    })
    expect(manifest.packageDigest).toMatch(/^sha256:[0-9a-f]{64}$/)

    const download = await send(viewer, "GET", `/api/assets/${asset.id}/releases/${release.id}/skill-package`)
    expect(download.status).toBe(200)
    expect(download.headers.get("content-type")).toBe("application/zip")
    expect(download.headers.get("etag")).toBe(`"${manifest.packageDigest}"`)
    expect(`sha256:${sha256(download.bytes)}`).toBe(manifest.packageDigest)
    expect(download.bytes.length).toBe(manifest.packageLength)
    const cached = await fetch(`${world.server.url}/api/assets/${asset.id}/releases/${release.id}/skill-package`, {
      headers: { authorization: `Bearer ${viewer.token}`, "if-none-match": `"${manifest.packageDigest}"` }
    })
    expect(cached.status).toBe(304)
    expect((await cached.arrayBuffer()).byteLength).toBe(0)
    const unpacked = unzipSync(download.bytes)
    expect(Object.keys(unpacked).sort()).toEqual(manifest.files.map((f: any) => `pdf-tools/${f.path}`).sort())
    for (const file of manifest.files) expect(sha256(unpacked[`pdf-tools/${file.path}`]!)).toBe(file.sha256)
    await problem(outsider.call("GET", `/api/assets/${asset.id}/releases/${release.id}/skill-manifest`), 404, "ASSET_NOT_FOUND")
  })

  it("keeps each user's activation: off by default, on and off again; 409 on other asset types", async () => {
    expect(await ok(viewer.call("GET", `/api/assets/${asset.id}/skill-activation`))).toEqual({ assetId: asset.id, enabled: false })
    expect(await ok(viewer.call("PUT", `/api/assets/${asset.id}/skill-activation`, { enabled: true }))).toEqual({ assetId: asset.id, enabled: true })
    expect(await ok(viewer.call("GET", `/api/assets/${asset.id}/skill-activation`))).toEqual({ assetId: asset.id, enabled: true })
    expect(await ok(author.call("GET", `/api/assets/${asset.id}/skill-activation`))).toEqual({ assetId: asset.id, enabled: false })
    expect(await ok(viewer.call("PUT", `/api/assets/${asset.id}/skill-activation`, { enabled: false }))).toEqual({ assetId: asset.id, enabled: false })
    const prompt = await createAsset(author, { type: "PROMPT_TEMPLATE", namespace: "docs", slug: "summary", knowledgeSpaceId: world.spaceId, draft: draftOf(promptPayload()) })
    await problem(author.call("GET", `/api/assets/${prompt.id}/skill-activation`), 409, "WRONG_ASSET_TYPE")
    await problem(author.call("GET", `/api/assets/${prompt.id}/releases/${asset.releases[0].id}/skill-manifest`), 404, "RELEASE_NOT_FOUND")
    // A draft-only skill cannot be turned on.
    const draftOnly = await send(author, "POST", `/api/assets/skills?namespace=docs&knowledgeSpaceId=${world.spaceId}`, skillZip("csv-tools", "Reads CSV files."))
    await problem(author.call("PUT", `/api/assets/${draftOnly.body.id}/skill-activation`, { enabled: true }), 409, "RELEASE_NOT_AVAILABLE")
  })

  it("stops delivering a withdrawn release (410)", async () => {
    const release = asset.releases[0]
    await ok(author.call("POST", `/api/assets/${asset.id}/withdrawal`, { releaseId: release.id, reason: "superseded" }))
    await problem(viewer.call("GET", `/api/assets/${asset.id}/releases/${release.id}/skill-manifest`), 410, "RELEASE_WITHDRAWN")
    await problem(author.call("GET", `/api/assets/${asset.id}/releases/${release.id}/skill-manifest`), 410, "RELEASE_WITHDRAWN")
    expect((await send(author, "GET", `/api/assets/${asset.id}/releases/${release.id}/skill-package`)).status).toBe(410)
  })
})
