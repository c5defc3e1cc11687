import { createLoreClient, LoreApiError, type LoreClient, type Source } from "@lore/sdk"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
// The `@lore/sdk/node` entry, from source (the workspace aliases map only the main entry).
import { uploadFile } from "@lore/sdk/node"
import { startTestServer, type TestServer } from "../support/server"

/** Uploads, ingestion, listing, search, citations and deletion through @lore/sdk against a real server. */

const paragraphs = (word: string, count: number) =>
  Array.from({ length: count }, (_, i) => `Paragraph ${i} about ${word}: the ${word} rotation keeps the ${word} schedule fair for everyone.`).join("\n\n")

const onboarding = `# Onboarding handbook

Welcome aboard. New colleagues receive a zephyrine badge on their first morning at the front desk.

## Equipment

Laptops are ordered two weeks ahead. ${paragraphs("equipment", 20)}
`

// Large enough (about 200 KB) that progress moves in several steps.
const oncall = `# On-call guide

Pages go to the primary first; after fifteen minutes the quokkabell escalation reaches the secondary.

${paragraphs("oncall", 1800)}
`

type Progress = Array<[number, number | undefined]>

const expectProgress = (progress: Progress, total: number) => {
  expect(progress[0]).toEqual([0, total])
  expect(progress.at(-1)).toEqual([total, total])
  expect(progress.every(([sent], i) => i === 0 || sent >= progress[i - 1]![0])).toBe(true)
}

describe("SDK sources and knowledge", () => {
  let server: TestServer
  let lore: LoreClient
  let spaceId: string
  let dir: string
  let fromBlob: Source
  let fromPath: Source
  let pathBytes: Uint8Array

  beforeAll(async () => {
    server = await startTestServer()
    lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    spaceId = (await lore.admin.spaces.create({ key: "sdk-docs", name: "SDK docs" })).id
    dir = mkdtempSync(join(tmpdir(), "lore-sdk-upload-"))
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await server.dispose()
  })

  it("uploads a Blob with progress and waits until READY", async () => {
    const bytes = new TextEncoder().encode(onboarding)
    const progress: Progress = []
    fromBlob = await lore.sources.upload({
      knowledgeSpaceId: spaceId,
      classification: "INTERNAL",
      file: new Blob([bytes], { type: "text/markdown" }),
      fileName: "onboarding.md",
      onProgress: (sent, total) => void progress.push([sent, total])
    })
    expect(fromBlob).toMatchObject({ title: "onboarding", fileName: "onboarding.md", classification: "INTERNAL", knowledgeSpaceId: spaceId, contentLength: bytes.byteLength })
    expectProgress(progress, bytes.byteLength)

    const statuses: Array<string> = []
    const ready = await lore.sources.waitUntilSettled(fromBlob.id, { intervalMs: 100, timeoutMs: 60_000, onStatus: (s) => statuses.push(s.status) })
    expect(ready.status).toBe("READY")
    expect(ready.chunkCount).toBeGreaterThan(0)
    expect(statuses.at(-1)).toBe("READY")
  })

  it("streams a file from disk with uploadFile, a non-ASCII name and a title", async () => {
    const path = join(dir, "Bereitschaft–Überblick.md")
    writeFileSync(path, oncall)
    pathBytes = new Uint8Array(readFileSync(path))
    const progress: Progress = []
    fromPath = await uploadFile(lore, path, { knowledgeSpaceId: spaceId, title: "On-call guide", onProgress: (sent, total) => void progress.push([sent, total]) })
    expect(fromPath).toMatchObject({ title: "On-call guide", fileName: "Bereitschaft–Überblick.md", mediaType: "text/markdown", contentLength: pathBytes.byteLength })
    expect(progress.length).toBeGreaterThan(3)
    expectProgress(progress, pathBytes.byteLength)
    expect((await lore.sources.waitUntilSettled(fromPath.id, { intervalMs: 100, timeoutMs: 60_000 })).status).toBe("READY")
  })

  it("gets, lists by page and iterates every source", async () => {
    expect(await lore.sources.get(fromBlob.id)).toMatchObject({ id: fromBlob.id, status: "READY" })
    const first = await lore.sources.list({ knowledgeSpaceId: spaceId, pageSize: 1 })
    expect(first).toMatchObject({ pageSize: 1, total: 2, statusCounts: { processing: 0, ready: 2, attention: 0 } })
    expect(first.items).toHaveLength(1)
    expect(first.nextCursor).toBeTruthy()
    const ids: Array<string> = []
    for await (const source of lore.sources.all({ knowledgeSpaceId: spaceId, pageSize: 1 })) ids.push(source.id)
    expect(ids.sort()).toEqual([fromBlob.id, fromPath.id].sort())
    expect((await lore.sources.list({ q: "onboard" })).items.map((s) => s.id)).toEqual([fromBlob.id])
  })

  it("finds the passages, their citations and the catalog entries", async () => {
    const result = await lore.knowledge.search({ q: "which badge do new colleagues receive?", knowledgeSpaceId: spaceId, limit: 5 })
    expect(result.requestId).toBeTruthy()
    const top = result.evidence[0]!
    expect(top).toMatchObject({ title: "onboarding", knowledgeSpaceId: spaceId, knowledgeAssetId: fromBlob.knowledgeAssetId })
    expect(top.content).toContain("zephyrine badge")

    const excerpt = await lore.citations.excerpt(top.citationId)
    expect(excerpt).toMatchObject({ citationId: top.citationId, title: "onboarding", presentationKind: "MARKDOWN" })
    expect(excerpt.excerpt).toContain("zephyrine badge")
    const cited = await lore.citations.content(top.citationId)
    expect(new TextDecoder().decode(cited.bytes)).toBe(onboarding)
    expect(cited.fileName).toBe("onboarding.md")

    const escalation = await lore.knowledge.search({ q: "quokkabell escalation" })
    expect(escalation.evidence[0]?.knowledgeAssetId).toBe(fromPath.knowledgeAssetId)

    const catalog = await lore.knowledge.catalog({ knowledgeSpaceId: spaceId })
    expect(catalog.map((entry) => entry.title).sort()).toEqual(["On-call guide", "onboarding"])
    expect(catalog.find((entry) => entry.title === "onboarding")).toMatchObject({ classification: "INTERNAL", contentDigest: fromBlob.contentDigest })
  })

  it("downloads the original bytes with media type and file name", async () => {
    const content = await lore.sources.content(fromPath.id)
    expect(Buffer.compare(Buffer.from(content.bytes), Buffer.from(pathBytes))).toBe(0)
    expect(content.mediaType).toMatch(/^text\/markdown/)
    expect(content.fileName).toBe("Bereitschaft–Überblick.md")
  })

  it("hides nothing it should show and shows nothing it should hide: a user without a grant", async () => {
    const [department] = await lore.admin.departments.list()
    const invitation = await lore.admin.invitations.create({ email: "outsider@example.com", departmentId: department!.id })
    const accepted = await createLoreClient({ baseUrl: server.url }).invitations.accept({ code: invitation.invitationCode })
    const outsider = createLoreClient({ baseUrl: server.url, token: accepted.token.token })
    expect((await outsider.knowledge.search({ q: "zephyrine badge" })).evidence).toEqual([])
    await expect(outsider.sources.content(fromBlob.id)).rejects.toMatchObject({ status: 404 })
    const denied = await outsider.sources.upload({ knowledgeSpaceId: spaceId, file: new Uint8Array([104, 105]), fileName: "hi.txt" }).catch((e: unknown) => e)
    expect(LoreApiError.is(denied)).toBe(true)
    expect((denied as LoreApiError).status).toBeGreaterThanOrEqual(403)
  })

  it("uploads in cookie mode too, with the CSRF token, and leaves a copy of nothing to replay", async () => {
    const browserLike = createLoreClient({ baseUrl: server.url, auth: "cookie" })
    await browserLike.session.signIn(server.adminToken)
    const source = await browserLike.sources.upload({ knowledgeSpaceId: spaceId, file: new TextEncoder().encode("# Cookie notes\n\nSigned in by cookie."), fileName: "cookie.md" })
    expect(source).toMatchObject({ title: "cookie", fileName: "cookie.md" })
    expect((await browserLike.sources.remove(source.id)).status).toBe("PENDING")
  })

  it("refuses an unsupported file with 415 through the same typed error", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
    await expect(lore.sources.upload({ knowledgeSpaceId: spaceId, file: png, fileName: "logo.png" })).rejects.toMatchObject({ status: 415, code: "UNSUPPORTED_MEDIA_TYPE" })
  })

  it("removes a source: search stops finding it at once", async () => {
    const deletion = await lore.sources.remove(fromBlob.id)
    expect(deletion).toMatchObject({ knowledgeAssetId: fromBlob.knowledgeAssetId, status: "PENDING" })
    expect((await lore.knowledge.search({ q: "zephyrine badge", knowledgeSpaceId: spaceId })).evidence.map((e) => e.knowledgeAssetId)).not.toContain(fromBlob.knowledgeAssetId)
    const ids: Array<string> = []
    for await (const source of lore.sources.all({ knowledgeSpaceId: spaceId })) ids.push(source.id)
    expect(ids).not.toContain(fromBlob.id)
  })
})
