import { expect } from "vitest"
import { type Client, eventually, search } from "../knowledge/support"

/**
 * What a connector kind's scenario test does to its connection through the admin API: start a content crawl and/or a
 * permission sync and wait for their attempts (`admin` is read when called: tests make it in beforeAll), and ask which of some words a user finds. The Confluence and
 * SharePoint scenario tests carry the same helpers inline and can move to these.
 */
export const connectionScenario = (admin: () => Client, path: string) => {
  const activity = async () => (await admin().call("GET", `${path}/activity`)).body
  const attemptsOf = async (component: "content" | "permissions") => ((await activity()).recentAttempts as Array<any>).filter((a) => a.component === component)
  const nextAttempt = async (component: "content" | "permissions", before: number) =>
    (await eventually(() => attemptsOf(component), (list) => list.length > before, `a ${component} attempt`, 120_000))[0]
  /** POST …/crawl (both components, or the one named) and the attempts it made. */
  const run = async (component?: "content" | "permissions") => {
    const [content, permissions] = [(await attemptsOf("content")).length, (await attemptsOf("permissions")).length]
    const reply = await admin().call("POST", `${path}/crawl${component ? `?component=${component}` : ""}`)
    expect(reply.status, JSON.stringify(reply.body)).toBe(202)
    return {
      content: component === "permissions" ? undefined : await nextAttempt("content", content),
      permissions: component === "content" ? undefined : await nextAttempt("permissions", permissions)
    }
  }
  return { activity, attemptsOf, run }
}

/** Which of `candidates` `who` finds through /api/knowledge/search, in order. */
export const wordsFound = async (who: Client, candidates: ReadonlyArray<string>) => {
  const found: Array<string> = []
  for (const word of candidates) if ((await search(who, word)).length > 0) found.push(word)
  return found
}
