import { describe, expect, it } from "vitest"
import { bm25Scores, payloadText, terms } from "../../src/assets/Recommendations"

/**
 * Issue 33.13: recommendations ranked by BM25 over title, summary and body, measured on a small judged set
 * (made-up assets, questions as people ask them, each with the one asset that answers it) against the substring
 * matcher it replaces. Prints MRR and hits@1 for both; asserts BM25 is not worse and finds every answer.
 */

const wi = (purpose: string, steps: Array<string>) => JSON.stringify({ purpose, audience: "staff", completionOutcome: "done", responsibleRole: "lead", steps: steps.map((instruction, i) => ({ key: `s${i}`, title: `Step ${i + 1}`, instruction })) })
const pt = (objective: string, userTemplate: string) => JSON.stringify({ objective, audience: "staff", systemInstruction: "Be precise.", userTemplate, variables: [] })

const catalog = [
  { id: "pager", title: "Pager rotation", summary: "Who carries the on-call pager", payload: wi("Keep one engineer reachable at night", ["Call the next engineer before handing over the pager", "Confirm they answered a test page"]) },
  { id: "incident", title: "Incident summary", summary: "Summarizes an incident for executives", payload: pt("Brief executives after an outage", "Summarize incident {{id}} in plain words") },
  { id: "expenses", title: "Expense report", summary: "Filing travel expenses", payload: wi("Get travel costs reimbursed", ["Photograph every receipt", "Submit the report within 30 days of the trip"]) },
  { id: "onboarding", title: "New hire onboarding", summary: "First week of a new employee", payload: wi("Make a new colleague productive", ["Order a laptop before day one", "Book an intro with the team"]) },
  { id: "release", title: "Release checklist", summary: "Shipping a new version", payload: wi("Ship without surprises", ["Freeze the branch", "Run the migration on staging", "Announce the version"]) },
  { id: "vendor", title: "Vendor contract review", summary: "Checking a supplier agreement", payload: pt("Spot risky clauses in supplier contracts", "Review this contract for liability and renewal terms") },
  { id: "password", title: "Password reset", summary: "Helping a locked-out user", payload: wi("Restore access safely", ["Verify the caller's identity", "Send a reset link, never a password"]) },
  { id: "postmortem", title: "Postmortem writer", summary: "Blameless review after an outage", payload: pt("Write a blameless postmortem", "Describe the timeline, the root cause and the follow-ups of the outage") },
  { id: "travel", title: "Travel booking", summary: "Booking trains and flights", payload: wi("Book trips within policy", ["Prefer trains under 500 km", "Flights need a manager's approval"]) },
  { id: "security", title: "Security questionnaire", summary: "Answering customer security reviews", payload: pt("Answer a customer's security questionnaire", "Answer each question about encryption and access control") }
]

const judged: Array<[question: string, answer: string]> = [
  ["how do I hand over the on-call pager at night", "pager"],
  ["my receipts for a trip, how do I get reimbursed", "expenses"],
  ["what should a new colleague do in their first week", "onboarding"],
  ["steps before we ship a new version", "release"],
  ["someone is locked out and needs access again", "password"],
  ["write up the root cause of yesterday's outage", "postmortem"],
  ["can I take a flight or must I book a train", "travel"],
  ["check liability clauses in a supplier contract", "vendor"],
  ["a customer sent questions about encryption", "security"],
  ["brief the executives on the incident", "incident"]
]

/** The matcher it replaces: query words as substrings of title (weight 2) and summary, namespace, slug. */
const substringScores = (query: string) => {
  const words = query.toLowerCase().split(/\W+/).filter((t) => t.length > 1)
  return catalog.map((a) => words.reduce((sum, t) => sum + (a.title.toLowerCase().includes(t) ? 2 : 0) + (`${a.summary} ${a.id}`.toLowerCase().includes(t) ? 1 : 0), 0))
}

/** 1-based rank of the answer (ties broken against it), or Infinity when it scored 0. */
const rankOf = (scores: Array<number>, answer: string) => {
  const index = catalog.findIndex((a) => a.id === answer)
  if (scores[index]! <= 0) return Infinity
  return 1 + scores.filter((score, i) => i !== index && score >= scores[index]!).length
}

const measure = (score: (query: string) => Array<number>) => {
  const ranks = judged.map(([question, answer]) => rankOf(score(question), answer))
  return { mrr: ranks.reduce((sum, rank) => sum + (Number.isFinite(rank) ? 1 / rank : 0), 0) / ranks.length, hitsAt1: ranks.filter((rank) => rank === 1).length, found: ranks.filter(Number.isFinite).length }
}

describe("asset recommendations ranking", () => {
  it("ranks by BM25 over title, summary and body better than substring matching, on a judged set", () => {
    const bm25 = measure((q) => bm25Scores(q, catalog))
    const substring = measure(substringScores)
    console.log(`recommendations on ${judged.length} judged questions: BM25 MRR ${bm25.mrr.toFixed(2)} hits@1 ${bm25.hitsAt1} found ${bm25.found}; substring MRR ${substring.mrr.toFixed(2)} hits@1 ${substring.hitsAt1} found ${substring.found}`)
    expect(bm25.found).toBe(judged.length)
    expect(bm25.mrr).toBeGreaterThan(substring.mrr)
    expect(bm25.hitsAt1).toBeGreaterThanOrEqual(8)
  })

  it("scores nothing for a request of stop words, and survives hostile payloads", () => {
    expect(terms("how do I the")).toEqual([])
    expect(bm25Scores("the of and", catalog).every((score) => score === 0)).toBe(true)
    expect(payloadText("not json {")).toBe("not json {")
    const deep = `${"[".repeat(5000)}"pager"${"]".repeat(5000)}`
    expect(() => payloadText(deep)).not.toThrow()
    const huge = JSON.stringify({ text: "pager ".repeat(100_000) })
    expect(payloadText(huge).length).toBeLessThanOrEqual(200_000)
    expect(bm25Scores("pager", [{ title: "x", summary: "", payload: huge }, catalog[0]!])[0]).toBeGreaterThan(0)
  })
})
