import { zipSync } from "fflate"
import { describe, expect, it } from "vitest"
import { detectMediaType, DOCX_MEDIA_TYPE, parseDocument } from "../../../src/knowledge/parsing"
import { handbookPdf, policyDocx } from "./fixtures"

const text = (s: string) => new TextEncoder().encode(s)
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1])

const mediaTypeOf = (bytes: Uint8Array, name: string, declared?: string) => {
  const detection = detectMediaType(bytes, name, declared)
  return detection._tag === "Supported" ? detection.mediaType : detection._tag
}

describe("detectMediaType", () => {
  it("trusts content over the name and the declared type for binary formats", async () => {
    const pdf = await handbookPdf()
    const docx = await policyDocx()
    expect(mediaTypeOf(pdf, "report.pdf")).toBe("application/pdf")
    expect(mediaTypeOf(pdf, "renamed.txt", "text/plain")).toBe("application/pdf")
    expect(mediaTypeOf(docx, "policy.docx")).toBe(DOCX_MEDIA_TYPE)
    expect(mediaTypeOf(docx, "policy.bin", "application/octet-stream")).toBe(DOCX_MEDIA_TYPE)
  })

  it("tells text formats apart by name, then by sniffing, then by the declared type", () => {
    expect(mediaTypeOf(text("# Title\n\nBody"), "notes.md")).toBe("text/markdown")
    expect(mediaTypeOf(text("# Title"), "notes.markdown")).toBe("text/markdown")
    expect(mediaTypeOf(text("<p>hi</p>"), "page.htm")).toBe("text/html")
    expect(mediaTypeOf(text("  <!DOCTYPE html><html><body>x</body></html>"), "download")).toBe("text/html")
    expect(mediaTypeOf(text("<html><body>x</body></html>"), "notes.txt")).toBe("text/plain")
    expect(mediaTypeOf(text("# Title"), "upload", "text/markdown; charset=utf-8")).toBe("text/markdown")
    expect(mediaTypeOf(text("plain words, naïve café"), "data.csv")).toBe("text/plain")
    expect(mediaTypeOf(new Uint8Array([0xff, 0xfe, ...new Uint8Array(new Uint16Array([0x68, 0x69]).buffer)]), "utf16.txt")).toBe("text/plain")
  })

  it("refuses what Lore cannot index, saying what it is", () => {
    const png = detectMediaType(PNG, "diagram.pdf", "application/pdf")
    expect(png).toMatchObject({ _tag: "Unsupported", code: "UNSUPPORTED_MEDIA_TYPE", detected: "image/png" })
    if (png._tag === "Unsupported") expect(png.detail).toMatch(/PNG images are not supported/)
    const xlsx = zipSync({ "[Content_Types].xml": text("<Types/>"), "xl/workbook.xml": text("<workbook/>") })
    expect(detectMediaType(xlsx, "book.docx")).toMatchObject({ _tag: "Unsupported", detected: expect.stringContaining("spreadsheetml") })
    expect(detectMediaType(zipSync({ "a.txt": text("a") }), "a.zip")).toMatchObject({ _tag: "Unsupported", detected: "application/zip" })
    expect(detectMediaType(new Uint8Array([1, 2, 0, 3, 0, 0, 7]), "blob.txt")).toMatchObject({ _tag: "Unsupported" })
    expect(detectMediaType(new Uint8Array([0x61, 0xc3, 0x28, 0x01, 0x02, 0x03]), "bad-utf8")).toMatchObject({ _tag: "Unsupported" })
    expect(detectMediaType(text("{\\rtf1\\ansi hello}"), "letter.rtf")).toMatchObject({ _tag: "Unsupported", detected: "application/rtf" })
  })

  it("accepts a legacy (Windows-1252) text file by its name, and decodes it", async () => {
    const latin = new Uint8Array([0x43, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x6d, 0x65, 0x6e, 0x75])
    expect(mediaTypeOf(latin, "menu.txt")).toBe("text/plain")
    expect(detectMediaType(latin, "menu")).toMatchObject({ _tag: "Unsupported" })
    const outcome = await parseDocument(latin, "text/plain")
    expect(outcome.ok && outcome.document.blocks[0]!.text).toBe("Café – menu")
  })

  it("reports empty input (and whitespace-only text) as empty", () => {
    expect(detectMediaType(new Uint8Array(), "empty.pdf")).toMatchObject({ _tag: "Empty", code: "EMPTY_FILE" })
    expect(detectMediaType(text(" \n\t\n"), "blank.md")).toMatchObject({ _tag: "Empty" })
  })

  it("still recognises a truncated DOCX as DOCX (so parsing explains what is wrong)", async () => {
    const docx = await policyDocx()
    expect(mediaTypeOf(docx.slice(0, Math.floor(docx.length * 0.8)), "cut.docx")).toBe(DOCX_MEDIA_TYPE)
  })
})
