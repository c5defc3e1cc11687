import { describe, expect, it } from "vitest"
import { citationNumbering, titleFrom } from "../../src/assistant/CitationNumbering"

const run = (passages: number, deltas: ReadonlyArray<string>) => {
  const numbering = citationNumbering(passages)
  const text = deltas.map(numbering.push).join("") + numbering.flush()
  return { text, used: numbering.used() }
}

describe("citation numbering", () => {
  it("numbers cited passages in order of first use, whatever their position in the prompt", () => {
    expect(run(4, ["Trains [3]. Flights [1]. Again [3]."])).toEqual({ text: "Trains [1]. Flights [2]. Again [1].", used: [3, 1] })
  })

  it("completes markers split across deltas", () => {
    expect(run(3, ["Trains [", "2", "]. Flights [1,", " 2]"])).toEqual({ text: "Trains [1]. Flights [2][1]", used: [2, 1] })
  })

  it("leaves a number naming no passage as written and cites nothing for it", () => {
    expect(run(1, ["See [7] and [1]. Unfinished ["])).toEqual({ text: "See [7] and [1]. Unfinished [", used: [1] })
  })

  it("cites nothing when the answer uses no marker", () => {
    expect(run(2, ["Nothing relevant was found."]).used).toEqual([])
  })
})

describe("conversation titles", () => {
  it("takes the question's first line, cut at a word", () => {
    expect(titleFrom("  Do flights need approval?\nmore")).toBe("Do flights need approval?")
    const long = titleFrom("What is the policy for booking international flights when the trip is longer than ten days abroad")
    expect(long.length).toBeLessThanOrEqual(61)
    expect(long.endsWith("…")).toBe(true)
  })
})
