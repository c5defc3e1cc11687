import { JSONSchema } from "effect"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { decisionEvent, events, lifecycle, portfolioState, states, transition, type Machine } from "../../src/assets/Lifecycle"
import { payloadSchemas } from "../../src/assets/Payloads"

/**
 * docs/decisions.md writes the asset lifecycle down as two tables (legal moves, codes of illegal ones) and prints
 * each payload's JSON Schema. This walks the written tables against the one state machine (Lifecycle.ts): every
 * written move is the code's, every other (state, event) is refused with the written code. The HTTP tests
 * (lifecycle-http.test.ts) drive the same codes end to end.
 */

const docs = readFileSync(new URL("../../../../docs/decisions.md", import.meta.url), "utf8")
const section = docs.slice(docs.indexOf("## Governed assets: drafts, lifecycle"))
const machines = Object.keys(states) as Array<Machine>
const rows = section
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line.startsWith("|") && !line.startsWith("|---"))
  .map((line) => line.slice(1, -1).split("|").map((cell) => cell.trim()))
  .filter((cells) => machines.includes(cells[0] as Machine))
const legal = rows.filter((cells) => cells.length === 5).map(([machine, from, event, to, who]) => ({ machine, from, event, to, who }))
const illegal = rows.filter((cells) => cells.length === 4).map(([machine, from, event, code]) => ({ machine: machine as Machine, from: from!, event: event!, code: code! }))

describe("the asset lifecycle as written in docs/decisions.md", () => {
  it("lists exactly the code's legal moves", () => {
    expect(legal.length).toBeGreaterThan(0)
    expect(legal).toEqual(lifecycle.map((t) => ({ ...t })))
  })

  it("refuses every other move with the written code", () => {
    let walked = 0
    for (const machine of machines) {
      for (const from of states[machine]) {
        for (const event of events[machine]) {
          const step = transition(machine, from, event)
          const written = legal.find((t) => t.machine === machine && t.from === from && t.event === event)
          if (written) {
            expect(step, `${machine} ${from} ${event}`).toEqual({ ok: true, to: written.to })
          } else {
            const code = illegal.find((r) => r.machine === machine && r.from === from && r.event === event)?.code
              ?? illegal.find((r) => r.machine === machine && r.from === "*" && r.event === event)?.code
            expect(code, `no written code for ${machine} ${from} ${event}`).toBeDefined()
            expect(step, `${machine} ${from} ${event}`).toEqual({ ok: false, code })
          }
          walked++
        }
      }
    }
    expect(walked).toBe(machines.reduce((n, m) => n + states[m].length * events[m].length, 0))
  })

  it("counts approvals and derives portfolioState as written", () => {
    expect(decisionEvent("APPROVE", 1, 2)).toBe("APPROVE")
    expect(decisionEvent("APPROVE", 2, 2)).toBe("APPROVE_FINAL")
    expect(decisionEvent("REJECT", 5, 1)).toBe("REJECT")
    expect(portfolioState({ availableReleases: 0, releases: 0, openReview: false })).toBe("DRAFT_ONLY")
    expect(portfolioState({ availableReleases: 0, releases: 0, openReview: true })).toBe("IN_REVIEW")
    expect(portfolioState({ availableReleases: 1, releases: 1, openReview: true })).toBe("RELEASED")
    expect(portfolioState({ availableReleases: 0, releases: 2, openReview: false })).toBe("WITHDRAWN")
  })

  it("prints each payload's JSON Schema as the code defines it", () => {
    for (const [type, versions] of Object.entries(payloadSchemas)) {
      for (const [version, schema] of Object.entries(versions)) {
        const heading = `#### ${type} schemaVersion ${version}\n\n\`\`\`json\n`
        const start = section.indexOf(heading)
        expect(start, `docs lack ${heading.trim()}`).toBeGreaterThan(0)
        const body = section.slice(start + heading.length, section.indexOf("\n```", start + heading.length))
        expect(JSON.parse(body), `${type} ${version}`).toEqual(JSONSchema.make(schema))
      }
    }
  })
})
