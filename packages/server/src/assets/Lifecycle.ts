/**
 * The asset lifecycle: the one state machine every write consults. docs/decisions.md ("Governed assets:
 * lifecycle") prints `lifecycle` as a table and test/assets/lifecycle.test.ts walks that table against this
 * module, so the two cannot drift. A (machine, state, event) that is not in the table is illegal: `transition`
 * answers the stable code the caller receives with 409.
 */

export type Machine = "draft" | "review" | "revision" | "release"

export interface Transition {
  readonly machine: Machine
  readonly from: string
  readonly event: string
  readonly to: string
  /** Who may trigger it (checked by Policy.ts before the machine is asked). */
  readonly who: string
}

export const lifecycle: ReadonlyArray<Transition> = [
  { machine: "draft", from: "NO_OPEN_REVIEW", event: "SUBMIT", to: "OPEN_REVIEW", who: "EDITOR, OWNER or BACKUP_OWNER" },
  { machine: "draft", from: "NO_OPEN_REVIEW", event: "DIRECT_RELEASE", to: "NO_OPEN_REVIEW", who: "OWNER or BACKUP_OWNER, where the space's policy allows it" },
  { machine: "draft", from: "OPEN_REVIEW", event: "DIRECT_RELEASE", to: "OPEN_REVIEW", who: "OWNER or BACKUP_OWNER, where the space's policy allows it" },
  { machine: "review", from: "IN_REVIEW", event: "APPROVE", to: "IN_REVIEW", who: "a reviewer other than the author, while approvals < required" },
  { machine: "review", from: "IN_REVIEW", event: "APPROVE_FINAL", to: "APPROVED", who: "a reviewer other than the author, reaching the required approvals" },
  { machine: "review", from: "IN_REVIEW", event: "REQUEST_CHANGES", to: "CHANGES_REQUESTED", who: "a reviewer" },
  { machine: "review", from: "IN_REVIEW", event: "REJECT", to: "REJECTED", who: "a reviewer" },
  { machine: "revision", from: "APPROVED", event: "RELEASE", to: "RELEASED", who: "OWNER or BACKUP_OWNER" },
  { machine: "release", from: "AVAILABLE", event: "WITHDRAW", to: "WITHDRAWN", who: "OWNER or BACKUP_OWNER" },
  { machine: "release", from: "AVAILABLE", event: "EMERGENCY_WITHDRAW", to: "EMERGENCY_WITHDRAWN", who: "ORG_ADMIN or KNOWLEDGE_ADMIN (assets.govern)" },
  { machine: "release", from: "WITHDRAWN", event: "EMERGENCY_WITHDRAW", to: "EMERGENCY_WITHDRAWN", who: "ORG_ADMIN or KNOWLEDGE_ADMIN (assets.govern)" }
]

/** Every state of each machine (the walk tries every event from each). */
export const states: Record<Machine, ReadonlyArray<string>> = {
  draft: ["NO_OPEN_REVIEW", "OPEN_REVIEW"],
  review: ["IN_REVIEW", "APPROVED", "CHANGES_REQUESTED", "REJECTED"],
  revision: ["UNREVIEWED", "IN_REVIEW", "APPROVED", "CHANGES_REQUESTED", "REJECTED", "RELEASED"],
  release: ["AVAILABLE", "WITHDRAWN", "EMERGENCY_WITHDRAWN"]
}

/** The code of each illegal transition, by machine and event; a state-specific code wins. */
export const illegalCodes: Record<Machine, Record<string, string>> = {
  draft: { SUBMIT: "REVIEW_ALREADY_OPEN" },
  review: { APPROVE: "REVIEW_RESOLVED", APPROVE_FINAL: "REVIEW_RESOLVED", REQUEST_CHANGES: "REVIEW_RESOLVED", REJECT: "REVIEW_RESOLVED" },
  revision: { RELEASE: "REVISION_NOT_APPROVED", "RELEASED:RELEASE": "REVISION_ALREADY_RELEASED" },
  release: { WITHDRAW: "RELEASE_NOT_AVAILABLE", EMERGENCY_WITHDRAW: "RELEASE_NOT_AVAILABLE" }
}

export const events: Record<Machine, ReadonlyArray<string>> = {
  draft: ["SUBMIT", "DIRECT_RELEASE"],
  review: ["APPROVE", "APPROVE_FINAL", "REQUEST_CHANGES", "REJECT"],
  revision: ["RELEASE"],
  release: ["WITHDRAW", "EMERGENCY_WITHDRAW"]
}

export type Step = { readonly ok: true; readonly to: string } | { readonly ok: false; readonly code: string }

/** The one place a lifecycle move is decided. */
export const transition = (machine: Machine, from: string, event: string): Step => {
  const found = lifecycle.find((t) => t.machine === machine && t.from === from && t.event === event)
  if (found) return { ok: true, to: found.to }
  const codes = illegalCodes[machine]
  return { ok: false, code: codes[`${from}:${event}`] ?? codes[event] ?? "ILLEGAL_TRANSITION" }
}

/** The review event a decision is, given the approvals counted so far (this one included). */
export const decisionEvent = (decision: "APPROVE" | "REQUEST_CHANGES" | "REJECT", approvals: number, required: number) =>
  decision === "APPROVE" ? (approvals >= required ? "APPROVE_FINAL" : "APPROVE") : decision

/** A revision's state, from its latest review and whether it was released. */
export const revisionState = (released: boolean, reviewState: string | null) => (released ? "RELEASED" : reviewState ?? "UNREVIEWED")

/**
 * portfolioState follows from the machines: RELEASED while a release is available, else IN_REVIEW while a
 * review is open, else WITHDRAWN once every release was withdrawn, else DRAFT_ONLY. sharingState is SHARED
 * while a release is available (viewers of the space see it), PRIVATE otherwise.
 */
export const portfolioState = (facts: { readonly availableReleases: number; readonly releases: number; readonly openReview: boolean }) =>
  facts.availableReleases > 0 ? "RELEASED" as const
    : facts.openReview ? "IN_REVIEW" as const
    : facts.releases > 0 ? "WITHDRAWN" as const
    : "DRAFT_ONLY" as const

export const sharingState = (facts: { readonly availableReleases: number }) => (facts.availableReleases > 0 ? "SHARED" as const : "PRIVATE" as const)
