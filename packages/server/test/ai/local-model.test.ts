import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { extractiveAnswer, NOTHING_RELEVANT, salientTerms } from "../../src/ai/LocalModel"
import { MAX_MESSAGE_CHARS } from "../../src/assistant/Api"

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

  it("cuts sentences at any whitespace after . ! or ?, quotes them on one line, also where lower-casing changes the text's length", () => {
    const spaced = [{ id: "d", title: "Spaced", text: "  Intro line!\n\nThe  hotel\tdesk books\nrooms.   Flights? Later." }]
    expect(extractiveAnswer("hotel rooms", spaced).text).toBe('From the passages found:\n\n> "The hotel desk books rooms." [1]')
    // "İ" lower-cases to two characters: offsets into the lower-case text would be off by one.
    const turkish = [{ id: "e", title: "İstanbul", text: "İİİİ İstanbul office. Hotels are booked by the desk. İzmir closes early." }]
    expect(extractiveAnswer("hotels", turkish).text).toBe('From the passages found:\n\n> "Hotels are booked by the desk." [1]')
    expect(extractiveAnswer("izmir closes", turkish).text).toContain('"İzmir closes early." [1]')
  })

  it("answers a question as long as a chat allows against degenerate passages: one long word, hundreds of one-letter sentences", () => {
    const question = `${Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}x`).join(" ")} aa`.slice(-MAX_MESSAGE_CHARS)
    const degenerate = [
      { id: "a", title: "One word", text: "aa".repeat(750) },
      { id: "b", title: "Sentences", text: "a. ".repeat(500) },
      { id: "c", title: "Answer", text: `${"filler words here. ".repeat(60)}The aa answer.` }
    ]
    const answer = extractiveAnswer(question, degenerate)
    expect(answer.text).toBe('From the passages found:\n\n> "The aa answer." [3]')
    expect(answer.citations).toEqual([{ index: 3, passageId: "c", title: "Answer" }])
  })

  it("answers questions whose words a suffix would empty (ed, es, ing), in a child process with a deadline", async () => {
    // Their stem was empty, found at every offset of a text by a search that never ended: one such chat held the
    // server's event loop for good. In a child process, so that a search that never ends fails this test.
    const localModel = fileURLToPath(new URL("../../src/ai/LocalModel.ts", import.meta.url))
    const script = `const { extractiveAnswer } = await import(${JSON.stringify(localModel)})
      const passages = [{ id: "a", title: "Ed", text: "Ed runs the ing desk. The es team meets daily. Nothing here." }]
      console.log(JSON.stringify(["what is ed", "es", "ing ed es", "Who uses the bed?"].map((question) => extractiveAnswer(question, passages).text)))`
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { timeout: 20_000 })
    expect(JSON.parse(stdout)).toEqual([
      'From the passages found:\n\n> "Ed runs the ing desk." [1]',
      'From the passages found:\n\n> "The es team meets daily." [1]',
      'From the passages found:\n\n> "Ed runs the ing desk." [1]\n> "The es team meets daily." [1]',
      NOTHING_RELEVANT
    ])
  })

  it("keeps salient terms in order, once each, without stop words or single letters", () => {
    expect(salientTerms("What is the per-diem for a trip to Paris, and the per-diem for Rome? x")).toEqual(["per-diem", "trip", "paris", "rome"])
  })
})
