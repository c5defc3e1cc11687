import { render } from "ink-testing-library"
import { describe, expect, it } from "vitest"
import { ProgressLine } from "../src/output/ink"

/** The progress line long work draws on a terminal (lore connectors crawl): a bar once the total is known, else a count. */
describe("the progress line", () => {
  it("draws a bar with done of total when the total is known", () => {
    const frame = render(<ProgressLine label="Crawling WEB connection handbook" progress={{ done: 12, total: 40, unit: "document" }} />).lastFrame() ?? ""
    expect(frame).toContain("Crawling WEB connection handbook")
    expect(frame).toContain("12 of 40 documents")
    // @inkjs/ui's bar: filled cells for 30% of its width, empty ones for the rest.
    expect(frame).toMatch(/█+░+/)
  })

  it("counts with a spinner while the total is unknown", () => {
    const frame = render(<ProgressLine label="Crawling GIT connection runbooks" progress={{ done: 7, total: null, unit: "document" }} />).lastFrame() ?? ""
    expect(frame).toContain("Crawling GIT connection runbooks: 7 documents")
    expect(frame).not.toContain("of")
  })
})
