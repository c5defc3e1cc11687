import { describe, expect, it } from "vitest"
import { MAX_ENTITY_NAME_WORDS, questionPhrases } from "../../src/graph/Retrieval"

describe("the question's word runs that graph retrieval looks entity names up by", () => {
  it("holds every run of up to MAX_ENTITY_NAME_WORDS words, of 3 characters or more, once", () => {
    const phrases = questionPhrases("did alice johnson meet bob in new york or in new york city")
    expect(phrases).toEqual(expect.arrayContaining(["alice johnson", "alice", "new york", "new york city", "did alice johnson meet bob in new york"]))
    expect(phrases).not.toContain("in")
    expect(phrases).not.toContain("or")
    expect(phrases.filter((p) => p === "new york")).toHaveLength(1)
    expect(Math.max(...phrases.map((p) => p.split(" ").length))).toBe(MAX_ENTITY_NAME_WORDS)
  })

  it("stays bounded by the question's words for the longest question search takes", () => {
    const words = Array.from({ length: 2_000 }, (_, i) => `w${i}`)
    expect(questionPhrases(words.join(" ")).length).toBeLessThanOrEqual(words.length * MAX_ENTITY_NAME_WORDS)
    expect(questionPhrases("")).toEqual([])
    expect(questionPhrases("   ")).toEqual([])
  })
})
