import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Person, startWorld, type World } from "../assets/support"
import { healthDuring, postZip, skillZip } from "./support"

/**
 * Issue 29, finding 2 and 5: hostile SKILL.md frontmatter. Yaml's `uniqueKeys` made 40,000 metadata keys cost
 * 9 s of the event loop, and more than 10 aliases answered 500 (`ReferenceError: Excessive alias count`). Each
 * is now a 422 INVALID_SKILL_PACKAGE naming the rule, on inspect and on create, and the server keeps answering.
 */

let world: World
let employee: Person

beforeAll(async () => {
  world = await startWorld()
  employee = await world.person("hostile-skills@example.com")
})
afterAll(async () => world.server.dispose())

const inspect = (zip: Uint8Array) => postZip(`${world.server.url}/api/assets/skills/inspections`, employee.token, zip)
const create = (zip: Uint8Array) => postZip(`${world.server.url}/api/assets/skills?namespace=hostile&knowledgeSpaceId=${world.spaceId}`, employee.token, zip)

/** Both endpoints refuse the package with 422 INVALID_SKILL_PACKAGE holding `code`. */
const refusedEverywhere = async (zip: Uint8Array, code: string) => {
  for (const send of [inspect, create]) {
    const reply = await send(zip)
    expect(reply.status, JSON.stringify(reply.body)).toBe(422)
    expect(reply.body.code).toBe("INVALID_SKILL_PACKAGE")
    expect(reply.body.errors.map((e: { code: string }) => e.code)).toContain(code)
  }
}

const base = "name: hostile\ndescription: A skill that attacks the parser."

describe("hostile SKILL.md frontmatter", { timeout: 120_000 }, () => {
  it("refuses 40,000 metadata keys as FRONTMATTER_TOO_LARGE, quickly, while /api/health keeps answering", async () => {
    const keys = Array.from({ length: 40_000 }, (_, i) => `  key${i}: value${i}`).join("\n")
    const zip = skillZip("hostile", `${base}\nmetadata:\n${keys}`)
    const { result, answered } = await healthDuring(world.server.url, inspect(zip))
    expect(result.status, JSON.stringify(result.body)).toBe(422)
    expect(result.body.errors.map((e: { code: string }) => e.code)).toEqual(["FRONTMATTER_TOO_LARGE"])
    // Generous: the old parser took 9 s here on an idle machine; the cap answers in milliseconds.
    expect(result.ms).toBeLessThan(5_000)
    expect(answered).toBeGreaterThan(0)
    await refusedEverywhere(zip, "FRONTMATTER_TOO_LARGE")
  })

  it("refuses frontmatter over 16 KiB as FRONTMATTER_TOO_LARGE, and admits it just under", async () => {
    await refusedEverywhere(skillZip("hostile", `${base}\nmetadata:\n  notes: "${"x".repeat(16 * 1024)}"`), "FRONTMATTER_TOO_LARGE")
    const under = await inspect(skillZip("hostile", `${base}\nmetadata:\n  notes: "${"x".repeat(15 * 1024)}"`))
    expect(under.status, JSON.stringify(under.body)).toBe(200)
  })

  it("refuses a billion-laughs alias bomb as FRONTMATTER_INVALID_YAML (not 500)", async () => {
    let bomb = `${base}\nmetadata:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n`
    for (let i = 1; i < 10; i++) bomb += `  a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(", ")}]\n`
    await refusedEverywhere(skillZip("hostile", bomb.trimEnd()), "FRONTMATTER_INVALID_YAML")
  })

  it("refuses an ordinary file with 12 aliases as FRONTMATTER_INVALID_YAML (not 500), and admits 10", async () => {
    const aliases = (n: number) => `${base}\nmetadata:\n  owner: &owner ops\n${Array.from({ length: n }, (_, i) => `  copy${i}: *owner`).join("\n")}`
    await refusedEverywhere(skillZip("hostile", aliases(12)), "FRONTMATTER_INVALID_YAML")
    const ten = await inspect(skillZip("hostile", aliases(10)))
    expect(ten.status, JSON.stringify(ten.body)).toBe(200)
    expect(ten.body.metadata.copy9).toBe("ops")
  })

  it("refuses duplicate keys, found with a set", async () => {
    await refusedEverywhere(skillZip("hostile", `${base}\nmetadata:\n  team: a\n  team: b`), "FRONTMATTER_INVALID_YAML")
  })

  it("refuses __proto__, constructor and prototype as metadata keys, and nothing is polluted", async () => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      await refusedEverywhere(skillZip("hostile", `${base}\nmetadata:\n  ${key}:\n    polluted: "yes"`), "FRONTMATTER_KEY_NOT_ALLOWED")
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    const health = await fetch(`${world.server.url}/api/health`)
    expect(health.status).toBe(200)
  })

  it("refuses nesting deeper than the format needs as FRONTMATTER_TOO_DEEP", async () => {
    await refusedEverywhere(skillZip("hostile", `${base}\nmetadata:\n  deep: ${"[".repeat(40)}${"]".repeat(40)}`), "FRONTMATTER_TOO_DEEP")
  })
})
