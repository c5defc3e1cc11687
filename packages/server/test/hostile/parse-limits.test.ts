import { PDFDocument } from "pdf-lib"
import { describe, expect, it } from "vitest"
import { MAX_HTML_DEPTH, MAX_HTML_ELEMENTS, MAX_MARKDOWN_CHARS, MAX_PDF_PAGES } from "../../src/knowledge/parsing/limits"
import { parseDocument } from "../../src/knowledge/parsing/parse"
import type { SupportedMediaType } from "../../src/knowledge/parsing/types"

/**
 * Issue 29, finding 2: every document parser has a work limit (docs/security.md, "Parsers"). Each hostile
 * document here is refused with LIMIT_EXCEEDED and a message naming the limit, or, for Markdown whose inline
 * punctuation would make CommonMark quadratic, read as light Markdown; none runs long. (Zip bombs, slips and
 * symlinks: test/assets/skills-format.test.ts and test/knowledge/parsing/formats.test.ts.)
 */

const bytes = (text: string) => new TextEncoder().encode(text)
const parse = (content: Uint8Array, mediaType: SupportedMediaType) => parseDocument(content, mediaType, { timeoutMs: 60_000 })

const refused = async (content: Uint8Array, mediaType: SupportedMediaType, words: string) => {
  const outcome = await parse(content, mediaType)
  expect(outcome.ok).toBe(false)
  if (outcome.ok) return
  expect(outcome.error.code).toBe("LIMIT_EXCEEDED")
  expect(outcome.error.message).toContain(words)
}

describe("document parser limits", { timeout: 120_000 }, () => {
  it("refuses a PDF of more pages than Lore reads, before reading any", async () => {
    const pdf = await PDFDocument.create()
    for (let i = 0; i <= MAX_PDF_PAGES; i++) pdf.addPage([100, 100])
    await refused(await pdf.save(), "application/pdf", `${MAX_PDF_PAGES + 1} pages`)
  })

  it("refuses HTML nested deeper than browsers nest, and HTML of too many elements", async () => {
    await refused(bytes(`<html><body>${"<div>".repeat(MAX_HTML_DEPTH + 10)}deep</body></html>`), "text/html", `more than ${MAX_HTML_DEPTH} deep`)
    await refused(bytes(`<html><body>${"<p>x</p>".repeat(MAX_HTML_ELEMENTS + 1)}</body></html>`), "text/html", `more than ${MAX_HTML_ELEMENTS} HTML elements`)
    // Unclosed paragraphs close each other: many elements, no depth.
    const flat = await parse(bytes(`<p>one<p>two<p>three`), "text/html")
    expect(flat.ok).toBe(true)
  })

  it("refuses Markdown too long, nested too deep, or quoting on every line", async () => {
    await refused(bytes("word ".repeat(MAX_MARKDOWN_CHARS / 5 + 10)), "text/markdown", "MiB of Markdown")
    await refused(bytes(`${"> ".repeat(100)}deep\n`), "text/markdown", "more than 64 deep")
    await refused(bytes(`${"> ".repeat(60)}quoted\n`.repeat(2_000)), "text/markdown", "block-quote markers")
  })

  it("reads Markdown whose emphasis would make CommonMark quadratic as light Markdown, keeping headings and text", async () => {
    // 20,000 `a*` took 40 s in CommonMark on a busy machine; read light it is linear.
    const outcome = await parse(bytes(`# Bomb\n\n${"a*".repeat(20_000)}\n\n## After\n\nplain words\n`), "text/markdown")
    expect(outcome.ok).toBe(true)
    if (!outcome.ok) return
    expect(outcome.document.title).toBe("Bomb")
    expect(outcome.document.blocks.map((block) => block.kind)).toEqual(["heading", "text", "heading", "text"])
    // Markup left as typed: CommonMark would have turned the stars into emphasis.
    expect(outcome.document.blocks[1]!.text.startsWith("a*a*a*")).toBe(true)
    expect(outcome.document.blocks[3]!.text).toBe("plain words")
  })

  it("keeps ordinary Markdown on the CommonMark path", async () => {
    const outcome = await parse(bytes("# Title\n\nSome *bold* and _it_ text with a [link](http://x).\n\n- a\n- b\n"), "text/markdown")
    expect(outcome.ok && outcome.document.blocks.map((block) => block.text)).toEqual(["Title", "Some bold and it text with a link.", "a", "b"])
  })
})
