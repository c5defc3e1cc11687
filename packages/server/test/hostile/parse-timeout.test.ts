import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Person, startWorld, type World } from "../assets/support"
import { client, eventually, upload } from "../knowledge/support"
import { healthDuring, noise, postZip, skillZip } from "./support"

/**
 * Issue 29, finding 2: parsing that can take long runs in a worker thread under LORE_PARSE_TIMEOUT, and the
 * limit really fires: the worker is terminated, the sender gets PARSE_TIMEOUT (a skill) or ATTENTION with
 * TIMEOUT (a document), and /api/health answers all along. The limit is set small here so ordinary-sized but
 * costly inputs overrun it; before the pool, parsing ran on the event loop and nothing could stop it.
 */

let world: World
let employee: Person

beforeAll(async () => {
  world = await startWorld({ parsing: { timeoutMs: 150 } })
  employee = await world.person("hostile-parse@example.com")
})
afterAll(async () => world.server.dispose())

/** A valid skill whose 28 MB of incompressible files make its canonical package cost real deflate work. */
const costlySkill = () => skillZip("heavy", "name: heavy\ndescription: Carries large data files.", Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`data/part${i}.bin`, noise(7 * 1024 * 1024)])))

/** Markdown of ~8 MB: ordinary text, but CommonMark parsing of it takes seconds. */
const longMarkdown = () => {
  const section = (i: number) => `## Section ${i}\n\nThe ferry leaves at ${i} o'clock from pier ${i % 7}; bring your ticket and arrive early.\n\n- first point ${i}\n- second point ${i}\n\n`
  return Array.from({ length: 55_000 }, (_, i) => section(i)).join("")
}

describe("parse time limit", { timeout: 240_000 }, () => {
  it("answers a skill whose parse overruns with 422 INVALID_SKILL_PACKAGE holding PARSE_TIMEOUT, health answering all along", async () => {
    const { result, answered } = await healthDuring(world.server.url, postZip(`${world.server.url}/api/assets/skills/inspections`, employee.token, costlySkill()))
    expect(result.status, JSON.stringify(result.body)).toBe(422)
    expect(result.body.code).toBe("INVALID_SKILL_PACKAGE")
    expect(result.body.errors.map((e: { code: string }) => e.code)).toEqual(["PARSE_TIMEOUT"])
    expect(answered).toBeGreaterThan(0)
    // The terminated worker is replaced: an ordinary skill is inspected next.
    const small = await postZip(`${world.server.url}/api/assets/skills/inspections`, employee.token, skillZip("light", "name: light\ndescription: Small."))
    expect(small.status, JSON.stringify(small.body)).toBe(200)
  })

  it("ends a document whose parse overruns in ATTENTION with failureCode TIMEOUT, while /api/health keeps answering", async () => {
    const me = client(world.server.url, employee.token)
    const reply = await upload(me, { spaceId: world.spaceId, name: "long.md", bytes: longMarkdown(), type: "text/markdown" })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    const sourceId = (reply.body as { id: string }).id
    const settled = eventually(
      () => me.call("GET", `/api/sources/${sourceId}`),
      (r) => r.status === 200 && (r.body.status === "READY" || r.body.status === "ATTENTION"),
      "the source settled",
      120_000
    )
    const { result, slowestMs, answered } = await healthDuring(world.server.url, settled)
    expect(result.body).toMatchObject({ status: "ATTENTION", failureCode: "TIMEOUT" })
    expect(result.body.failureMessage).toContain("150 ms")
    expect(answered).toBeGreaterThan(0)
    // Generous: only a blocked event loop (seconds of CommonMark parsing in process) comes near it.
    expect(slowestMs).toBeLessThan(3_000)
  })
})
