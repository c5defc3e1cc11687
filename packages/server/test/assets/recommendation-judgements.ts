/**
 * A small judged set for asset recommendations (issue 33.13): made-up released assets, and questions as people ask
 * them, each with the one asset that answers it. Shared by test/assets/recommendations.test.ts and
 * bench/recommendations.ts. Payloads are valid for their type, so the server releases them as they are.
 */

const workInstruction = (purpose: string, steps: Array<string>) => ({
  purpose,
  audience: "staff",
  prerequisites: [],
  completionOutcome: "done",
  responsibleRole: "lead",
  steps: steps.map((instruction, i) => ({ key: `s${i}`, title: `Step ${i + 1}`, instruction }))
})

const promptTemplate = (objective: string, userTemplate: string) => ({
  objective,
  audience: "staff",
  systemInstruction: "Be precise.",
  userTemplate,
  variables: [],
  outputContract: { format: "markdown", maxWords: 200 },
  knowledgeRequirements: [],
  knownLimitations: "None known."
})

export interface JudgedAsset {
  readonly id: string
  readonly type: "WORK_INSTRUCTION" | "PROMPT_TEMPLATE"
  readonly title: string
  readonly summary: string
  readonly payload: Record<string, unknown>
}

export const catalog: ReadonlyArray<JudgedAsset> = [
  { id: "pager", type: "WORK_INSTRUCTION", title: "Pager rotation", summary: "Who carries the on-call pager", payload: workInstruction("Keep one engineer reachable at night", ["Call the next engineer before handing over the pager", "Confirm they answered a test page"]) },
  { id: "incident", type: "PROMPT_TEMPLATE", title: "Incident summary", summary: "Summarizes an incident for executives", payload: promptTemplate("Brief executives after an outage", "Summarize the incident below in plain words") },
  { id: "expenses", type: "WORK_INSTRUCTION", title: "Expense report", summary: "Filing travel expenses", payload: workInstruction("Get travel costs reimbursed", ["Photograph every receipt", "Submit the report within 30 days of the trip"]) },
  { id: "onboarding", type: "WORK_INSTRUCTION", title: "New hire onboarding", summary: "First week of a new employee", payload: workInstruction("Make a new colleague productive", ["Order a laptop before day one", "Book an intro with the team"]) },
  { id: "release", type: "WORK_INSTRUCTION", title: "Release checklist", summary: "Shipping a new version", payload: workInstruction("Ship without surprises", ["Freeze the branch", "Run the migration on staging", "Announce the version"]) },
  { id: "vendor", type: "PROMPT_TEMPLATE", title: "Vendor contract review", summary: "Checking a supplier agreement", payload: promptTemplate("Spot risky clauses in supplier contracts", "Review this contract for liability and renewal terms") },
  { id: "password", type: "WORK_INSTRUCTION", title: "Password reset", summary: "Helping a locked-out user", payload: workInstruction("Restore access safely", ["Verify the caller's identity", "Send a reset link, never a password"]) },
  { id: "postmortem", type: "PROMPT_TEMPLATE", title: "Postmortem writer", summary: "Blameless review after an outage", payload: promptTemplate("Write a blameless postmortem", "Describe the timeline, the root cause and the follow-ups of the outage") },
  { id: "travel", type: "WORK_INSTRUCTION", title: "Travel booking", summary: "Booking trains and flights", payload: workInstruction("Book trips within policy", ["Prefer trains under 500 km", "Flights need a manager's approval"]) },
  { id: "security", type: "PROMPT_TEMPLATE", title: "Security questionnaire", summary: "Answering customer security reviews", payload: promptTemplate("Answer a customer's security questionnaire", "Answer each question about encryption and access control") }
]

export const judged: ReadonlyArray<readonly [question: string, answer: string]> = [
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

/** 1-based rank of `answer` in `ranked` (ids), or Infinity when it is not there. */
export const rankOf = (ranked: ReadonlyArray<string>, answer: string) => {
  const index = ranked.indexOf(answer)
  return index < 0 ? Infinity : index + 1
}

/** MRR, and how many answers came first, within the first three, or at all. */
export const measure = (ranks: ReadonlyArray<number>) => ({
  mrr: ranks.reduce((sum, rank) => sum + (Number.isFinite(rank) ? 1 / rank : 0), 0) / Math.max(1, ranks.length),
  at1: ranks.filter((rank) => rank === 1).length,
  at3: ranks.filter((rank) => rank <= 3).length,
  found: ranks.filter(Number.isFinite).length
})
