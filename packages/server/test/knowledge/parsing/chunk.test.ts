import { describe, expect, it } from "vitest"
import { chunkDocument, parseDocument, type Block, type ParsedDocument } from "../../../src/knowledge/parsing"
import { filler, handbookPdf } from "./fixtures"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const document = (blocks: Block[]): ParsedDocument => ({ blocks, paged: blocks.some((b) => b.page !== undefined), pageCount: 1 })

/** A long handbook: 3 chapters x 4 sections x 6 paragraphs of ~70 words, 2 paragraphs a page. */
const longDocument = (): ParsedDocument => {
  const blocks: Block[] = []
  let paragraphs = 0
  for (let c = 1; c <= 3; c++) {
    blocks.push({ kind: "heading", text: `Chapter ${c}`, level: 1, page: Math.floor(paragraphs / 2) + 1 })
    for (let s = 1; s <= 4; s++) {
      blocks.push({ kind: "heading", text: `Section ${c}.${s}`, level: 2, page: Math.floor(paragraphs / 2) + 1 })
      for (let p = 1; p <= 6; p++) {
        blocks.push({ kind: "text", text: `Marker c${c}s${s}p${p}. ${filler(`chapter ${c} section ${s}`, 5)}`, page: Math.floor(paragraphs / 2) + 1 })
        paragraphs++
      }
    }
  }
  return document(blocks)
}

describe("chunkDocument", () => {
  it("gives stable RFC 4122 ids: the same for the same revision, different for another", async () => {
    const outcome = await parseDocument(await handbookPdf(), "application/pdf")
    if (!outcome.ok) throw outcome.error
    const first = chunkDocument(outcome.document, { sourceRevisionId: "0b8f5c1e-2a59-4c1b-9d3e-6f7a8b9c0d1e" })
    const again = chunkDocument((await parseDocument(await handbookPdf(), "application/pdf") as { document: ParsedDocument }).document, {
      sourceRevisionId: "0b8f5c1e-2a59-4c1b-9d3e-6f7a8b9c0d1e"
    })
    const other = chunkDocument(outcome.document, { sourceRevisionId: "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f" })
    expect(first.length).toBeGreaterThan(1)
    expect(again.map((c) => c.id)).toEqual(first.map((c) => c.id))
    for (const [i, chunk] of first.entries()) {
      expect(chunk.id).toMatch(UUID)
      expect(chunk.ordinal).toBe(i)
      expect(other[i]!.id).not.toBe(chunk.id)
    }
    expect(new Set(first.map((c) => c.id)).size).toBe(first.length)
  })

  it("cuts a long document into several bounded chunks that never cross a chapter", () => {
    const chunks = chunkDocument(longDocument(), { sourceRevisionId: "rev", targetWords: 200, overlapWords: 30 })
    expect(chunks.length).toBeGreaterThanOrEqual(12)
    for (const chunk of chunks) {
      expect(chunk.wordCount).toBeLessThanOrEqual(230)
      expect(chunk.wordCount).toBeGreaterThan(0)
      const chapters = new Set([...chunk.text.matchAll(/Marker c(\d)/g)].map((m) => m[1]))
      expect(chapters.size).toBeLessThanOrEqual(1)
      expect(chunk.headingPath[0]).toBe(`Chapter ${[...chapters][0] ?? chunk.headingPath[0]!.slice(-1)}`)
      expect(chunk.startPage).not.toBeNull()
      expect(chunk.endPage! - chunk.startPage!).toBeLessThanOrEqual(2)
    }
    // Where a paragraph starts its chunk, the path and pages are its own.
    expect(chunks.find((c) => c.text.startsWith("Marker c2s3p1"))).toMatchObject({ headingPath: ["Chapter 2", "Section 2.3"], startPage: 19 })
    // Every paragraph is in some chunk.
    for (let c = 1; c <= 3; c++) for (let s = 1; s <= 4; s++) for (let p = 1; p <= 6; p++) expect(chunks.some((k) => k.text.includes(`Marker c${c}s${s}p${p}.`))).toBe(true)
  })

  it("repeats the end of the previous chunk inside a section, but not across headings", () => {
    const blocks: Block[] = [{ kind: "heading", text: "Only", level: 1 }]
    for (let i = 1; i <= 12; i++) blocks.push({ kind: "text", text: `Paragraph ${i} opens here. ${filler(`item ${i}`, 3)} Paragraph ${i} closes here.` })
    const chunks = chunkDocument(document(blocks), { sourceRevisionId: "rev", targetWords: 120, overlapWords: 20 })
    expect(chunks.length).toBeGreaterThan(2)
    for (const [i, chunk] of chunks.entries()) {
      if (i === 0) continue
      const previousEnd = chunks[i - 1]!.text.split(" ").slice(-3).join(" ")
      expect(chunk.text.startsWith("Paragraph") || chunk.text.includes(previousEnd)).toBe(true)
      expect(chunk.headingPath).toEqual(["Only"])
    }
    // The overlap is whole trailing sentences of the previous chunk, within the 20-word budget.
    const repeated = chunks[1]!.text.split("\n\n")[0]!
    expect(chunks[0]!.text.endsWith(repeated)).toBe(true)
    expect(repeated).toMatch(/^This is sentence \d+ about item \d+ and the rules that apply to it\. Paragraph \d+ closes here\.$/)
  })

  it("splits a single huge paragraph at sentence ends, and a sentence without any at word boundaries", () => {
    const huge = document([{ kind: "text", text: filler("one enormous paragraph", 200), page: 7 }])
    const chunks = chunkDocument(huge, { sourceRevisionId: "rev", targetWords: 100, overlapWords: 10 })
    expect(chunks.length).toBeGreaterThan(20)
    for (const chunk of chunks) {
      expect(chunk.wordCount).toBeLessThanOrEqual(110)
      expect(chunk).toMatchObject({ startPage: 7, endPage: 7 })
    }
    const run = document([{ kind: "text", text: Array.from({ length: 1000 }, (_, i) => `w${i}`).join(" ") }])
    const words = chunkDocument(run, { sourceRevisionId: "rev", targetWords: 100, overlapWords: 0 })
    expect(words.map((c) => c.wordCount)).toEqual(Array(10).fill(100))
  })

  it("indexes a headings-only document by its headings", () => {
    const chunks = chunkDocument(document([{ kind: "heading", text: "Agenda", level: 1 }, { kind: "heading", text: "Budget review", level: 2 }]), { sourceRevisionId: "rev" })
    expect(chunks.map((c) => c.text).join("\n")).toContain("Budget review")
  })
})
