import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DOCX_MEDIA_TYPE } from "../../src/knowledge/parsing"
import { startTestServer, type TestServer } from "../support/server"
import { handbookPdf, noisyHtml, pagedText, policyDocx } from "./parsing/fixtures"
import {
  bytesOf,
  catalog,
  client,
  type Client,
  type Evidence,
  expectProblemReply,
  filler,
  getRaw,
  ingested,
  listAll,
  search,
  settled,
  sha256,
  upload,
  uploaded
} from "./support"

/**
 * Uploads of every supported format end READY with page- and heading-aware evidence; versions,
 * de-duplication, refusals (415/422/413), failures (ATTENTION), status counts and original content.
 */

const MAX_UPLOAD = 256 * 1024

const guideMarkdown = `# Engineering Guide

Intro paragraph for the guide.

## Deployments

Deploys happen on weekdays only, never on Fridays after noon. ${filler("deployments", 10)}

### Rollbacks

Use the rollback command to revert a bad release, then file a postmortem within two days. ${filler("rollbacks", 3)}

## Code review

Every change needs two approvals from the owning team. ${filler("reviews", 4)}
`

describe("ingestion of uploaded sources", { timeout: 120_000 }, () => {
  let server: TestServer
  let admin: Client
  let space: string
  const sources: Record<string, Record<string, any>> = {}
  const files: Record<string, Uint8Array> = {}
  /** Every source this file expects to be READY, for the exact counts at the end. */
  const readyIds = new Set<string>()
  const ready = async (input: Parameters<typeof ingested>[1]) => {
    const source = await ingested(admin, input)
    readyIds.add(source.id)
    return source
  }

  /** The evidence item whose passage contains `phrase`, asserted to rank in the top 3 for `query`. */
  const evidenceFor = async (query: string, phrase: string): Promise<Evidence> => {
    const evidence = await search(admin, query, { knowledgeSpaceId: space })
    const index = evidence.findIndex((e) => e.content.includes(phrase))
    expect(index, `"${phrase}" for "${query}": ${JSON.stringify(evidence.map((e) => e.content.slice(0, 60)))}`).toBeGreaterThanOrEqual(0)
    expect(index).toBeLessThan(3)
    return evidence[index]!
  }

  beforeAll(async () => {
    server = await startTestServer({ maxUploadBytes: MAX_UPLOAD })
    admin = client(server.url, server.adminToken)
    space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "handbooks", name: "Handbooks" })).body.id
    files.pdf = await handbookPdf()
    files.docx = await policyDocx()
    files.html = bytesOf(noisyHtml)
    files.markdown = bytesOf(guideMarkdown)
    files.text = bytesOf(pagedText)
    const uploads = [
      ["pdf", "employee-handbook.pdf", "application/pdf"],
      ["docx", "security-policy.docx", DOCX_MEDIA_TYPE],
      ["html", "onboarding.html", "text/html"],
      ["markdown", "engineering-guide.md", "text/markdown"],
      ["text", "quarterly-report.txt", "text/plain"]
    ] as const
    for (const [key, name, type] of uploads) {
      const source = await uploaded(admin, { spaceId: space, name, bytes: files[key]!, type })
      // Ingestion is quick enough that a worker may finish before the upload answers.
      expect(["PROCESSING", "READY"]).toContain(source.status)
      expect(source).toMatchObject({ versionNumber: 1, contentDigest: sha256(files[key]!), fileName: name, contentLength: files[key]!.byteLength })
      sources[key] = source
    }
    for (const key of Object.keys(sources)) {
      sources[key] = await settled(admin, sources[key]!.id)
      expect(sources[key]!.status, `${key}: ${sources[key]!.failureCode} ${sources[key]!.failureMessage}`).toBe("READY")
      readyIds.add(sources[key]!.id)
    }
  })
  afterAll(() => server?.dispose())

  it("records what each upload is: media type, pages, chunks, classification default", () => {
    expect(sources.pdf).toMatchObject({ mediaType: "application/pdf", pageCount: 4, classification: "CONFIDENTIAL", publicationComplete: true })
    expect(sources.docx).toMatchObject({ mediaType: DOCX_MEDIA_TYPE })
    expect(sources.html).toMatchObject({ mediaType: "text/html" })
    expect(sources.markdown).toMatchObject({ mediaType: "text/markdown" })
    expect(sources.text).toMatchObject({ mediaType: "text/plain", pageCount: 3 })
    for (const source of Object.values(sources)) {
      expect(source.chunkCount).toBeGreaterThan(0)
      expect(source.failureCode).toBeNull()
      expect(source.failureMessage).toBeNull()
    }
  })

  it("finds PDF passages on their pages under their headings", async () => {
    const expectations = [
      { query: "book flights through the travel desk", phrase: "Book flights through the travel desk", page: 1, heading: "Chapter 1: Travel" },
      { query: "when must receipts be submitted", phrase: "Receipts must be submitted within thirty days", page: 2, heading: "Chapter 2: Expenses" },
      { query: "daily meal allowance in euros", phrase: "daily meal allowance is forty-two euros", page: 3, heading: "Meals and per diem" },
      { query: "lost laptop hotline", phrase: "Report a lost laptop to the security hotline", page: 4, heading: "Chapter 3: Security" }
    ]
    for (const { query, phrase, page, heading } of expectations) {
      const hit = await evidenceFor(query, phrase)
      expect(hit, query).toMatchObject({
        knowledgeAssetVersionId: sources.pdf!.id,
        title: "employee-handbook",
        startPage: page,
        endPage: page,
        heading,
        classification: "CONFIDENTIAL"
      })
      expect(hit.headingPath.at(-1)).toBe(heading)
      expect(hit.headingPath[0]).toBe("Employee Handbook")
      expect(hit.sourceUri).toBe(`/api/sources/${sources.pdf!.id}/content#page=${page}`)
    }
    // Running page numbers are not content.
    expect((await search(admin, "page 3 of 4")).some((e) => /Page \d of 4/.test(e.content))).toBe(false)
  })

  it("marks where the cited passage sits in its excerpt, with its page", async () => {
    const hit = await evidenceFor("daily meal allowance in euros", "daily meal allowance is forty-two euros")
    const reply = await admin.call("GET", `/api/citations/${hit.citationId}/excerpt`)
    expect(reply.status).toBe(200)
    const { excerpt, highlightStart, highlightEnd } = reply.body
    // Context before the passage (page 2's chunk), then exactly the cited passage, then context after.
    expect(highlightStart).toBeGreaterThan(0)
    expect(excerpt.slice(highlightStart, highlightEnd)).toBe(hit.content)
    expect(excerpt.slice(0, highlightStart)).not.toContain("forty-two euros")
    expect(reply.body).toMatchObject({ startPage: 3, endPage: 3, presentationKind: "PDF" })
    // A first passage has no context before it: the mark starts at 0.
    const [first] = await search(admin, "Intro paragraph for the guide", { knowledgeSpaceId: space })
    const opening = await admin.call("GET", `/api/citations/${first!.citationId}/excerpt`)
    expect(opening.body.highlightStart).toBe(0)
    expect(opening.body.excerpt.slice(0, opening.body.highlightEnd)).toBe(first!.content)
  })

  it("finds DOCX, HTML and Markdown passages under their headings", async () => {
    expect(await evidenceFor("multi-factor authentication for accounts", "multi-factor authentication")).toMatchObject({
      knowledgeAssetVersionId: sources.docx!.id,
      heading: "Access Control",
      startPage: null,
      endPage: null
    })
    expect(await evidenceFor("incident commander pager", "incident commander")).toMatchObject({ heading: "Incident Response" })

    const vpn = await evidenceFor("request VPN access", "Request VPN access")
    expect(vpn).toMatchObject({ knowledgeAssetVersionId: sources.html!.id, heading: "Accounts", startPage: null })
    expect(vpn.headingPath).toEqual(["Welcome aboard", "Accounts"])
    expect(await evidenceFor("dental coverage probation", "Dental coverage")).toMatchObject({ heading: "Benefits" })
    // Scripts, styles, navigation, templates and hidden elements are not content.
    expect((await search(admin, "noise")).filter((e) => e.knowledgeAssetVersionId === sources.html!.id)).toEqual([])

    expect(await evidenceFor("deploys on weekdays", "Deploys happen on weekdays")).toMatchObject({
      knowledgeAssetVersionId: sources.markdown!.id,
      heading: "Deployments",
      headingPath: ["Engineering Guide", "Deployments"]
    })
    expect(await evidenceFor("rollback command postmortem", "file a postmortem")).toMatchObject({
      heading: "Rollbacks",
      headingPath: ["Engineering Guide", "Deployments", "Rollbacks"]
    })
    expect(await evidenceFor("approvals from the owning team", "two approvals")).toMatchObject({ heading: "Code review" })
  })

  it("keeps form-feed pages of plain text", async () => {
    const hit = await evidenceFor("headcount offices", "Headcount rose to 240 people")
    expect(hit.knowledgeAssetVersionId).toBe(sources.text!.id)
    expect(hit.startPage).not.toBeNull()
    expect(hit.startPage!).toBeLessThanOrEqual(2)
    expect(hit.endPage!).toBeGreaterThanOrEqual(2)
  })

  it("shows versionNumber and contentDigest in the catalog", async () => {
    const entries = await catalog(admin, { knowledgeSpaceId: space })
    for (const [key, source] of Object.entries(sources)) {
      const entry = entries.find((e) => e.knowledgeAssetId === source.knowledgeAssetId)
      expect(entry, key).toMatchObject({
        knowledgeVersionId: source.id,
        versionNumber: 1,
        contentDigest: sha256(files[key]!),
        mediaType: source.mediaType,
        classification: "CONFIDENTIAL",
        knowledgeSpaceId: space
      })
    }
  })

  it("serves the original bytes with their media type and file name", async () => {
    for (const [key, source] of Object.entries(sources)) {
      const response = await getRaw(admin, `/api/sources/${source.id}/content`)
      expect(response.status, key).toBe(200)
      expect(response.headers.get("content-type")).toMatch(new RegExp(`^${source.mediaType.replace(/[.+]/g, "\\$&")}`))
      expect(response.headers.get("content-disposition")).toMatch(new RegExp(`filename="${source.fileName.replace(/\./g, "\\.")}"`))
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(files[key])
    }
    // A non-ASCII name survives through filename* (RFC 5987).
    const named = await ready({ spaceId: space, name: "Übersicht Ärzte.md", bytes: "# Übersicht\n\nDie Praxis öffnet um acht Uhr.", type: "text/markdown" })
    const response = await getRaw(admin, `/api/sources/${named.id}/content`)
    expect(response.headers.get("content-disposition")).toContain(`filename*=UTF-8''${encodeURIComponent("Übersicht Ärzte.md")}`)
    expect(await response.text()).toBe("# Übersicht\n\nDie Praxis öffnet um acht Uhr.")
  })

  it("does not duplicate identical bytes uploaded again", async () => {
    const before = await listAll(admin, { knowledgeSpaceId: space })
    const again = await uploaded(admin, { spaceId: space, name: "employee-handbook.pdf", bytes: files.pdf!, type: "application/pdf" })
    expect(again.id).toBe(sources.pdf!.id)
    expect(again.versionNumber).toBe(1)
    const after = await listAll(admin, { knowledgeSpaceId: space })
    expect(after.total).toBe(before.total)
    expect(after.items.map((s) => s.id).sort()).toEqual(before.items.map((s) => s.id).sort())
    expect(after.items.filter((s) => s.contentDigest === sha256(files.pdf!))).toHaveLength(1)
    expect((await catalog(admin, { knowledgeSpaceId: space })).filter((e) => e.knowledgeAssetId === sources.pdf!.knowledgeAssetId)).toHaveLength(1)
  })

  it("adds version 2 for a changed file with the same title; search serves only the new text", async () => {
    const first = await ready({
      spaceId: space, name: "fleet.md", type: "text/markdown",
      bytes: `# Fleet policy\n\nThe zeppelin allowance is seventeen kroner per trip. ${filler("fleet", 3)}`
    })
    expect((await search(admin, "zeppelin allowance")).map((e) => e.knowledgeAssetVersionId)).toContain(first.id)

    const secondBytes = bytesOf(`# Fleet policy\n\nThe hovercraft allowance is nineteen kroner per trip. ${filler("fleet", 3)}`)
    const second = await ready({ spaceId: space, name: "fleet.md", bytes: secondBytes, type: "text/markdown" })
    expect(second.id).not.toBe(first.id)
    expect(second).toMatchObject({ knowledgeAssetId: first.knowledgeAssetId, versionNumber: 2, contentDigest: sha256(secondBytes) })

    const entry = (await catalog(admin, { knowledgeSpaceId: space })).filter((e) => e.knowledgeAssetId === first.knowledgeAssetId)
    expect(entry).toEqual([expect.objectContaining({ knowledgeVersionId: second.id, versionNumber: 2, contentDigest: sha256(secondBytes) })])

    expect(await search(admin, "zeppelin")).toEqual([])
    const fleet = await search(admin, "fleet allowance kroner per trip")
    expect(fleet.length).toBeGreaterThan(0)
    expect(fleet.filter((e) => e.knowledgeAssetId === first.knowledgeAssetId).every((e) => e.knowledgeAssetVersionId === second.id)).toBe(true)
    expect(fleet.some((e) => e.content.includes("seventeen"))).toBe(false)
    expect(fleet[0]!.content).toContain("hovercraft allowance is nineteen kroner")

    // Both versions are listed, each with its number; the first's content is still its own bytes.
    const listed = (await listAll(admin, { knowledgeSpaceId: space })).items.filter((s) => s.knowledgeAssetId === first.knowledgeAssetId)
    expect(listed.map((s) => s.versionNumber).sort()).toEqual([1, 2])
  })

  it("refuses unsupported (415) and empty (422) files with problem+json, leaving nothing behind", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])
    const unsupported = await upload(admin, { spaceId: space, name: "diagram.png", bytes: png, type: "image/png" })
    expectProblemReply(unsupported, 415, "UNSUPPORTED_MEDIA_TYPE")
    expect(unsupported.body.detail).toMatch(/PNG/)
    expect(unsupported.body.requestId).toBe(unsupported.headers.get("x-request-id"))
    // A binary file is refused whatever it claims to be.
    expectProblemReply(await upload(admin, { spaceId: space, name: "notes.txt", bytes: png, type: "text/plain" }), 415, "UNSUPPORTED_MEDIA_TYPE")

    const empty = await upload(admin, { spaceId: space, name: "empty.txt", bytes: new Uint8Array(0), type: "text/plain" })
    expectProblemReply(empty, 422, "EMPTY_FILE")

    const names = (await listAll(admin, { knowledgeSpaceId: space })).items.map((s) => s.fileName)
    expect(names).not.toContain("diagram.png")
    expect(names).not.toContain("notes.txt")
    expect(names).not.toContain("empty.txt")
  })

  it("refuses a file over the upload limit with 413 problem+json", async () => {
    const tooLarge = await upload(admin, { spaceId: space, name: "huge.txt", bytes: "word ".repeat(MAX_UPLOAD / 4), type: "text/plain" })
    expectProblemReply(tooLarge, 413)
    expect(tooLarge.body.code).toMatch(/^[A-Z][A-Z0-9_]*$/)
    expect((await listAll(admin, { knowledgeSpaceId: space })).items.map((s) => s.fileName)).not.toContain("huge.txt")
  })

  it("refuses a request whose declared length is far over the limit with 413 problem+json", async () => {
    const tooLarge = await upload(admin, { spaceId: space, name: "huger.txt", bytes: "word ".repeat(MAX_UPLOAD * 2), type: "text/plain" }).catch(
      (error: Error) => error
    )
    // The server answers before reading the body; a client may then see the connection close instead (never a 2xx).
    if (tooLarge instanceof Error) {
      expect(tooLarge.message).toMatch(/fetch failed|socket|EPIPE|ECONNRESET/i)
      return
    }
    expectProblemReply(tooLarge, 413)
  })

  it("accepts a file exactly at the upload limit", async () => {
    const atLimit = "boundary marker ".padEnd(MAX_UPLOAD, ".")
    const accepted = await upload(admin, { spaceId: space, name: "at-limit.txt", bytes: atLimit, type: "text/plain" })
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201)
    expect(accepted.body.contentLength).toBe(MAX_UPLOAD)
    expect((await settled(admin, accepted.body.id)).status).toBe("READY")
    readyIds.add(accepted.body.id)
  })

  it("ends a corrupt PDF in ATTENTION with a code and a message a person can act on", async () => {
    const pdf = files.pdf!
    const corrupt = await uploaded(admin, { spaceId: space, name: "broken.pdf", bytes: pdf.slice(0, Math.floor(pdf.length / 2)), type: "application/pdf" })
    expect(["PROCESSING", "ATTENTION"]).toContain(corrupt.status)
    const done = await settled(admin, corrupt.id)
    expect(done).toMatchObject({ status: "ATTENTION", failureCode: "CORRUPT_FILE", publicationComplete: false })
    expect(done.failureMessage).toMatch(/PDF could not be read/)
    // Nothing of it is searchable or in the catalog.
    expect((await catalog(admin, { knowledgeSpaceId: space })).some((e) => e.knowledgeVersionId === corrupt.id)).toBe(false)
  })

  it("counts statuses exactly", async () => {
    const all = await listAll(admin, { knowledgeSpaceId: space })
    const count = (status: string) => all.items.filter((s) => s.status === status).length
    expect(count("PROCESSING")).toBe(0)
    expect(new Set(all.items.filter((s) => s.status === "READY").map((s) => s.id))).toEqual(readyIds)
    expect(all.statusCounts).toEqual({ processing: 0, ready: readyIds.size, attention: 1 })
    expect(all.total).toBe(readyIds.size + 1)
    expect(all.items).toHaveLength(readyIds.size + 1)

    const attention = await admin.call("GET", `/api/sources?knowledgeSpaceId=${space}&status=ATTENTION`)
    expect(attention.body.total).toBe(1)
    expect(attention.body.items.map((s: any) => s.fileName)).toEqual(["broken.pdf"])
    // Counts describe the whole filter, not only the status picked.
    expect(attention.body.statusCounts).toEqual(all.statusCounts)

    // A new upload is counted as PROCESSING or READY, never both, never lost.
    const pending = await uploaded(admin, { spaceId: space, name: "pending.txt", bytes: `Pending note about ${filler("pending", 2)}`, type: "text/plain" })
    const during = (await admin.call("GET", `/api/sources?knowledgeSpaceId=${space}`)).body
    expect(during.total).toBe(readyIds.size + 2)
    expect(during.statusCounts.processing + during.statusCounts.ready).toBe(readyIds.size + 1)
    expect(during.statusCounts.attention).toBe(1)
    await settled(admin, pending.id)
    expect((await listAll(admin, { knowledgeSpaceId: space })).statusCounts).toEqual({ processing: 0, ready: readyIds.size + 1, attention: 1 })
  })
})
