import { describe, expect, it } from "vitest"
import { citedSegments, highlightSegments } from "../src/output/highlight"
import { plainSegments, renderPlain } from "../src/output/plain"
import { layoutTable, truncate } from "../src/output/table"
import type { Column } from "../src/output/view"
import { classificationText, clearanceText, readableClassifications } from "../src/views/clearance"

// The pure formatting functions behind the terminal output, tested directly.

const ID = "3f0c9a4e-5b1d-4c7a-9e2f-8a6b1c2d3e4f"
const columns: ReadonlyArray<Column> = [
  { header: "id" },
  { header: "title", fit: "text" },
  { header: "version", align: "right", fit: "optional" },
  { header: "classification" }
]
const rows = [[ID, "A title far too long for any narrow terminal to show", "v12", "CONFIDENTIAL"]]
const line = (cells: ReadonlyArray<{ text: string }>) => cells.map((cell) => cell.text).join("  ").trimEnd()

describe("table layout (issue 10.4)", () => {
  it("separates columns by two spaces, right-aligned headers included: no VERSIONCLASSIFICATION", () => {
    const table = layoutTable(columns, [[ID, "Short", "v1", "PUBLIC"]])
    expect(table.header.join("  ")).toMatch(/^ID {34}  TITLE  VERSION  CLASSIFICATION$/)
    expect(line(table.rows[0]!)).toBe(`${ID}  Short       v1  PUBLIC`)
  })

  it("piped (no width) cuts nothing", () => {
    const table = layoutTable(columns, rows)
    expect(line(table.rows[0]!)).toContain(rows[0]![1])
    expect(table.omitted).toEqual([])
  })

  it("on a narrow terminal cuts the free text with …, then leaves out optional columns, never cuts an id", () => {
    for (const width of [100, 80, 70, 60]) {
      const table = layoutTable(columns, rows, width)
      const text = line(table.rows[0]!)
      expect(text.startsWith(ID)).toBe(true)
      expect(text).toContain("CONFIDENTIAL")
      expect(text).toContain("…")
      if (width >= 72) expect(text.length).toBeLessThanOrEqual(width)
    }
    expect(layoutTable(columns, rows, 100).omitted).toEqual([])
    expect(layoutTable(columns, rows, 70).omitted).toEqual(["version"])
    // Too narrow even for the fixed columns: the title reaches its floor, the id stays whole.
    const cramped = line(layoutTable(columns, rows, 40).rows[0]!)
    expect(cramped).toMatch(new RegExp(`^${ID}  A title…  CONFIDENTIAL$`))
  })

  it("truncate counts code points and ends in …", () => {
    expect(truncate("abcdef", 4)).toBe("abc…")
    expect(truncate("abc", 4)).toBe("abc")
    expect(truncate("ééééé", 3)).toBe("éé…")
  })
})

describe("cited passages (issue 10.5)", () => {
  const excerpt = "Before. The per diem is forty-two euros. After."
  const start = excerpt.indexOf("The per diem")
  const end = excerpt.indexOf(" After.")

  it("splits the excerpt at the server's offsets, and piped marks the passage with » «", () => {
    const segments = citedSegments(excerpt, start, end)
    expect(segments).toEqual([
      { text: "Before. " },
      { text: "The per diem is forty-two euros.", emphasis: "cited" },
      { text: " After." }
    ])
    expect(plainSegments(segments)).toBe("Before. »The per diem is forty-two euros.« After.")
  })

  it("marks nothing without offsets, and clamps offsets outside the text", () => {
    expect(citedSegments(excerpt, null, null)).toEqual([{ text: excerpt }])
    expect(citedSegments(excerpt, 5, 5)).toEqual([{ text: excerpt }])
    expect(plainSegments(citedSegments("abc", -4, 99))).toBe("»abc«")
  })

  it("search terms stay unmarked when piped", () => {
    expect(plainSegments(highlightSegments("per diem in Lisbon", ["lisbon"]))).toBe("per diem in Lisbon")
  })
})

describe("clearance and classification (issue 10.2)", () => {
  it("says which classifications a clearance reads, from the SDK's generated values", () => {
    expect(readableClassifications("PUBLIC")).toEqual(["PUBLIC"])
    expect(readableClassifications("STANDARD")).toEqual(["PUBLIC", "INTERNAL"])
    expect(readableClassifications("RESTRICTED")).toEqual(["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"])
    expect(clearanceText("STANDARD")).toBe("STANDARD (reads PUBLIC and INTERNAL)")
    expect(classificationText("INTERNAL")).toBe("INTERNAL (needs clearance STANDARD, CONFIDENTIAL or RESTRICTED)")
    expect(classificationText("CONFIDENTIAL")).toBe("CONFIDENTIAL (needs clearance CONFIDENTIAL or RESTRICTED)")
  })
})

describe("plain output (issue 10.7)", () => {
  it("keeps hints apart from the result, for stderr", () => {
    const rendered = renderPlain([
      { kind: "message", text: "result" },
      { kind: "hint", text: "Showing 1 of 9; --all for more." }
    ])
    expect(rendered).toEqual({ out: "result\n", hints: "Showing 1 of 9; --all for more.\n" })
  })
})
