import { describe, expect, it } from "vitest"
import { extractiveAnswer, NOTHING_RELEVANT, salientTerms } from "../../src/ai/LocalModel"

/** LOCAL's extractive answerer: which sentences it quotes, and how it cites them. */
describe("LOCAL's extractive answer", () => {
  const passages = [
    { id: "a", title: "Leave", text: "Employees get 25 vacation days a year. Unused days carry over until March. The office closes at six." },
    { id: "b", title: "Leave again", text: "Employees get 25 vacation days a year. Requests go through the portal." },
    { id: "c", title: "Travel", text: "Flights need approval. Hotels are booked by the travel desk." }
  ]

  it("quotes the sentences sharing the most terms first, each once, cited by the first passage holding it", () => {
    const answer = extractiveAnswer("How many vacation days do employees get?", passages)
    expect(answer.text).toBe(
      'From the passages found:\n\n> "Employees get 25 vacation days a year." [1]\n> "Unused days carry over until March." [1]'
    )
    expect(answer.citations).toEqual([{ index: 1, passageId: "a", title: "Leave" }])
  })

  it("matches words by a crude stem (requesting, requests), and says so plainly when nothing matches", () => {
    expect(extractiveAnswer("requesting leave through a portal", passages).text).toContain('"Requests go through the portal." [2]')
    expect(extractiveAnswer("quarterly revenue forecast", passages)).toEqual({ text: NOTHING_RELEVANT, citations: [] })
  })

  it("keeps salient terms in order, once each, without stop words or single letters", () => {
    expect(salientTerms("What is the per-diem for a trip to Paris, and the per-diem for Rome? x")).toEqual(["per-diem", "trip", "paris", "rome"])
  })
})
