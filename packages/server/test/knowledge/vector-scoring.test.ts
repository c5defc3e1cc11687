import { describe, expect, it } from "vitest"
import { scoreVectors } from "../../src/knowledge/VectorScoring"

/**
 * PostgreSQL's text form of setweight(to_tsvector('english', 'The café runs'), 'A') ||
 * to_tsvector('english', 'running café quickly'): café at 2A and 5, quick at 6, run at 3A and 4.
 */
const sample = "'café':2A,5 'quick':6 'run':3A,4"

/** What PostgreSQL writes for $$'it''s':1 'a\\b':2A,3B 'x y':4C 'bare'$$::tsvector: quotes and backslashes doubled, a lexeme with a space, one without positions. */
const escaped = "'a\\\\b':2A,3B 'bare' 'it''s':1 'x y':4C"

/** BM25's term-frequency part as SearchIndexReader's SQL writes it. */
const saturation = (frequency: number, tokens: number, avgLen: number) => (frequency * 2.2) / (frequency + 1.2 * (1 - 0.75 + 0.75 * tokens / avgLen))

describe("vector scoring (exact BM25 of early termination's candidates from their search_vector as text)", () => {
  const bm25 = { k1: 1.2, b: 0.75, avgLen: 5 }

  it("weighs positions by label as postings' frequency does and matches lexemes byte for byte", () => {
    const [hit] = scoreVectors([{ term: "café", weight: 2 }, { term: "run", weight: 0.5 }, { term: "runs", weight: 9 }], [{ id: "a", tokenCount: 6, vector: sample }], bm25)
    // café: title (x2) + body = 3; run: title + body = 3; "runs" is not a lexeme of the vector.
    expect(hit!.score).toBeCloseTo(2 * saturation(3, 6, 5) + 0.5 * saturation(3, 6, 5), 12)
    const [quick] = scoreVectors([{ term: "quick", weight: 1 }], [{ id: "a", tokenCount: 6, vector: sample }], bm25)
    expect(quick!.score).toBe(saturation(1, 6, 5))
  })

  it("reads quoted lexemes as PostgreSQL writes them: doubled quotes and backslashes, spaces inside, no positions", () => {
    const score = (term: string) => scoreVectors([{ term, weight: 1 }], [{ id: "a", tokenCount: 5, vector: escaped }], bm25)[0]?.score
    expect(score("a\\b")).toBe(saturation(3.5, 5, 5))
    expect(score("it's")).toBe(saturation(1, 5, 5))
    expect(score("x y")).toBe(saturation(1, 5, 5))
    // A lexeme without positions matches with frequency 0, as a posting of it would.
    expect(score("bare")).toBe(0)
    expect(score("it")).toBeUndefined()
    expect(score("y")).toBeUndefined()
    expect(score("s")).toBeUndefined()
  })

  it("leaves out chunks without a query term, and ranks best first with ties by id", () => {
    const chunks = [
      { id: "c", tokenCount: 6, vector: sample },
      { id: "b", tokenCount: 6, vector: sample },
      { id: "d", tokenCount: 12, vector: sample }
    ]
    expect(scoreVectors([{ term: "café", weight: 1 }], chunks, bm25).map((hit) => hit.id)).toEqual(["b", "c", "d"])
    expect(scoreVectors([{ term: "absent", weight: 1 }], chunks, bm25)).toEqual([])
  })
})
