import { zipSync } from "fflate"
import { describe, expect, it } from "vitest"
import { chunkDocument, DOCX_MEDIA_TYPE, parseDocument, type Chunk, type ParsedDocument, type SupportedMediaType } from "../../../src/knowledge/parsing"
import { handbookPdf, nestedMarkdown, noisyHtml, pagedText, patchDeclaredSize, policyDocx } from "./fixtures"

const text = (s: string) => new TextEncoder().encode(s)

const parsed = async (bytes: Uint8Array, mediaType: SupportedMediaType): Promise<ParsedDocument> => {
  const outcome = await parseDocument(bytes, mediaType)
  if (!outcome.ok) throw new Error(`expected a parse, got ${outcome.error.code}: ${outcome.error.message}`)
  return outcome.document
}

const chunkWith = (chunks: ReadonlyArray<Chunk>, phrase: string): Chunk => {
  const found = chunks.find((chunk) => chunk.text.includes(phrase))
  if (found === undefined) throw new Error(`no chunk contains "${phrase}"`)
  return found
}

describe("PDF", () => {
  it("keeps 1-based pages and takes larger type as headings", async () => {
    const document = await parsed(await handbookPdf(), "application/pdf")
    expect(document).toMatchObject({ title: "Employee Handbook", paged: true, pageCount: 4 })
    expect(document.blocks.filter((b) => b.kind === "heading")).toEqual([
      { kind: "heading", text: "Employee Handbook", level: 1, page: 1 },
      { kind: "heading", text: "Chapter 1: Travel", level: 2, page: 1 },
      { kind: "heading", text: "Chapter 2: Expenses", level: 2, page: 2 },
      { kind: "heading", text: "Meals and per diem", level: 3, page: 3 },
      { kind: "heading", text: "Chapter 3: Security", level: 2, page: 4 }
    ])

    const chunks = chunkDocument(document, { sourceRevisionId: "rev-1" })
    expect(chunkWith(chunks, "Receipts must be submitted within thirty days")).toMatchObject({
      startPage: 2,
      endPage: 2,
      heading: "Chapter 2: Expenses",
      headingPath: ["Employee Handbook", "Chapter 2: Expenses"]
    })
    expect(chunkWith(chunks, "daily meal allowance is forty-two euros")).toMatchObject({
      startPage: 3,
      headingPath: ["Employee Handbook", "Chapter 2: Expenses", "Meals and per diem"]
    })
    expect(chunkWith(chunks, "Book flights through the travel desk")).toMatchObject({ startPage: 1, heading: "Chapter 1: Travel" })
    expect(chunkWith(chunks, "lost laptop")).toMatchObject({ startPage: 4, endPage: 4, heading: "Chapter 3: Security" })
    expect(chunks.some((chunk) => /Page \d of 4/.test(chunk.text))).toBe(false)
    // Wrapped lines are joined back into sentences.
    expect(chunkWith(chunks, "Receipts").text).toMatch(/This is sentence 3 about expenses and the rules that apply to it\./)
  })

  it("answers a truncated PDF with a parse error a person can act on", async () => {
    const pdf = await handbookPdf()
    const outcome = await parseDocument(pdf.slice(0, Math.floor(pdf.length / 2)), "application/pdf")
    expect(outcome.ok).toBe(false)
    if (!outcome.ok) {
      expect(outcome.error._tag).toBe("DocumentParseError")
      expect(outcome.error.code).toBe("CORRUPT_FILE")
      expect(outcome.error.message).toMatch(/^The PDF could not be read: .*upload a complete copy/)
    }
    const garbage = await parseDocument(text("%PDF-1.7\nnot really a pdf at all"), "application/pdf")
    expect(garbage).toMatchObject({ ok: false, error: { code: "CORRUPT_FILE" } })
  })

  it("gives up with TIMEOUT instead of hanging", async () => {
    const outcome = await parseDocument(await handbookPdf(), "application/pdf", { timeoutMs: 1 })
    expect(outcome).toMatchObject({ ok: false, error: { code: "TIMEOUT", message: expect.stringMatching(/took longer than/) } })
  })

  it("reports a PDF without a text layer as NO_TEXT", async () => {
    const { PDFDocument } = await import("pdf-lib")
    const doc = await PDFDocument.create()
    doc.addPage().drawRectangle({ x: 10, y: 10, width: 100, height: 100 })
    const outcome = await parseDocument(await doc.save(), "application/pdf")
    expect(outcome).toMatchObject({ ok: false, error: { code: "NO_TEXT", message: expect.stringMatching(/OCR/) } })
  })
})

describe("DOCX", () => {
  it("turns Word heading styles into headings, via mammoth and the HTML path", async () => {
    const document = await parsed(await policyDocx(), DOCX_MEDIA_TYPE)
    expect(document.title).toBe("Information Security Policy")
    expect(document.paged).toBe(false)
    expect(document.blocks).toEqual(
      expect.arrayContaining([
        { kind: "heading", text: "Access Control", level: 1 },
        { kind: "heading", text: "Passwords", level: 2 },
        { kind: "heading", text: "Incident Response", level: 1 },
        { kind: "text", text: "Rotate service credentials every ninety days." },
        { kind: "text", text: "SEV1 | Fifteen minutes" }
      ])
    )
    const chunks = chunkDocument(document, { sourceRevisionId: "rev-docx" })
    expect(chunkWith(chunks, "multi-factor authentication")).toMatchObject({ headingPath: ["Access Control"], startPage: null, endPage: null })
    // A short subsection joins its parent's chunk (heading kept as a line); a new top-level section never does.
    expect(chunkWith(chunks, "sixteen characters").text).toContain("Passwords\n\nPasswords are at least sixteen characters")
    expect(chunkWith(chunks, "incident commander")).toMatchObject({ headingPath: ["Incident Response"], heading: "Incident Response" })
    expect(chunkWith(chunks, "incident commander").text).not.toContain("multi-factor")
  })

  it("refuses an entry that declares a huge uncompressed size, before inflating anything", async () => {
    const bomb = patchDeclaredSize(await policyDocx(), "word/document.xml", 0xfffffff0)
    const outcome = await parseDocument(bomb, DOCX_MEDIA_TYPE)
    expect(outcome).toMatchObject({ ok: false, error: { code: "ARCHIVE_TOO_LARGE", message: expect.stringMatching(/decompression bombs/) } })
  })

  it("stops an entry that inflates beyond the size it declares", async () => {
    const zeros = new Uint8Array(32 * 1024 * 1024)
    const lying = patchDeclaredSize(zipSync({ "[Content_Types].xml": text("<Types/>"), "word/document.xml": zeros }), "word/document.xml", 1000)
    expect(lying.length).toBeLessThan(100_000)
    const outcome = await parseDocument(lying, DOCX_MEDIA_TYPE)
    expect(outcome).toMatchObject({ ok: false, error: { code: "ARCHIVE_TOO_LARGE" } })
    // An honest archive over the configured total is refused too.
    const honest = zipSync({ "word/document.xml": zeros })
    expect(await parseDocument(honest, DOCX_MEDIA_TYPE, { maxUncompressedBytes: 8 * 1024 * 1024 })).toMatchObject({ ok: false, error: { code: "ARCHIVE_TOO_LARGE" } })
  })

  it("answers a truncated or foreign DOCX with a parse error", async () => {
    const docx = await policyDocx()
    expect(await parseDocument(docx.slice(0, docx.length - 200), DOCX_MEDIA_TYPE)).toMatchObject({ ok: false, error: { code: "CORRUPT_FILE", message: expect.stringMatching(/^The Word document could not be read/) } })
    expect(await parseDocument(zipSync({ "x.xml": text("<x/>") }), DOCX_MEDIA_TYPE)).toMatchObject({ ok: false, error: { code: "CORRUPT_FILE" } })
  })
})

describe("HTML", () => {
  it("keeps headings and readable text, drops scripts, styles, navigation, templates and hidden parts", async () => {
    const document = await parsed(text(noisyHtml), "text/html")
    expect(document.title).toBe("Onboarding & Setup")
    const all = document.blocks.map((b) => b.text).join("\n")
    for (const noise of ["SCRIPT NOISE", "STYLE NOISE", "NAV NOISE", "TEMPLATE NOISE", "HIDDEN NOISE", "written"]) expect(all).not.toContain(noise)
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Welcome aboard", level: 1 },
      { kind: "text", text: "Your laptop arrives on your first day. Café vouchers are in the welcome kit." },
      { kind: "heading", text: "Accounts", level: 2 },
      { kind: "text", text: "Request VPN access from the IT portal." },
      { kind: "text", text: "Enable two-factor login." },
      { kind: "heading", text: "Shared drives", level: 3 },
      { kind: "text", text: "Team folders live on the shared drive\nunder Departments." },
      { kind: "text", text: "System | Owner" },
      { kind: "text", text: "Payroll | Finance" },
      { kind: "text", text: "npm install\nnpm test" },
      { kind: "heading", text: "Benefits", level: 2 },
      { kind: "text", text: "Dental coverage starts after the probation period." }
    ])
    const chunks = chunkDocument(document, { sourceRevisionId: "rev-html" })
    expect(chunkWith(chunks, "Dental coverage")).toMatchObject({ headingPath: ["Welcome aboard", "Benefits"], heading: "Benefits" })
    expect(chunkWith(chunks, "VPN access")).toMatchObject({ headingPath: ["Welcome aboard", "Accounts"] })
  })
})

describe("Markdown", () => {
  it("keeps nested heading depth, reads lists, code and tables, and strips front matter", async () => {
    const document = await parsed(text(nestedMarkdown), "text/markdown")
    expect(document.title).toBe("Engineering Guide")
    expect(document.blocks.filter((b) => b.kind === "heading").map((b) => [b.level, b.text])).toEqual([
      [1, "Engineering Guide"],
      [2, "Deployments"],
      [3, "Rollbacks"],
      [2, "Code review"]
    ])
    const texts = document.blocks.filter((b) => b.kind === "text").map((b) => b.text)
    expect(texts).toContain("deploy rollback --to previous")
    expect(texts).toContain("Announce the rollback in the incidents channel.")
    expect(texts).toContain("Use the rollback command to revert a bad release:")
    expect(texts).toContain("Reviews should be kind and specific.")
    expect(texts).toContain("Rule | Value\nApprovals | two")
    expect(texts.join("\n")).not.toContain("owner: platform")

    const chunks = chunkDocument(document, { sourceRevisionId: "rev-md" })
    expect(chunkWith(chunks, "Deploys happen on weekdays")).toMatchObject({ headingPath: ["Engineering Guide", "Deployments"] })
    expect(chunkWith(chunks, "Reviews should be kind")).toMatchObject({ headingPath: ["Engineering Guide", "Code review"] })
    expect(chunkWith(chunks, "Reviews should be kind").text).not.toContain("weekdays")
  })
})

describe("plain text", () => {
  it("splits paragraphs on blank lines and pages on form feeds", async () => {
    const document = await parsed(text(pagedText), "text/plain")
    expect(document).toMatchObject({ paged: true, pageCount: 3 })
    expect(document.blocks.map((b) => [b.page, b.text.slice(0, 12)])).toEqual([
      [1, "Quarterly re"],
      [1, "Revenue grew"],
      [2, "Costs stayed"],
      [2, "Headcount ro"],
      [3, "Outlook"],
      [3, "The board ex"]
    ])
    const [whole] = chunkDocument(document, { sourceRevisionId: "rev-txt" })
    expect(whole).toMatchObject({ startPage: 1, endPage: 3, headingPath: [], heading: null })
    const small = chunkDocument(document, { sourceRevisionId: "rev-txt", targetWords: 20, overlapWords: 0 })
    expect(small.map((c) => [c.startPage, c.endPage, c.text.slice(0, 9)])).toEqual([
      [1, 2, "Quarterly"],
      [2, 3, "Headcount"]
    ])
  })

  it("has no pages without form feeds, but still an estimated page count", async () => {
    const document = await parsed(text("one\n\ntwo\r\n\r\nthree\f"), "text/plain")
    expect(document).toMatchObject({ paged: false, pageCount: 1 })
    expect(document.blocks.map((b) => b.text)).toEqual(["one", "two", "three"])
    expect(document.blocks.every((b) => b.page === undefined)).toBe(true)
  })
})
