import { expect } from "vitest"
import { type Client, eventually, search } from "../knowledge/support"

/**
 * What the connector scenario tests share (`admin` read when called: tests set it in beforeAll): a connection's crawl and permission sync asked for and awaited (each
 * answers its recorded attempt), and which of some words a user finds by search.
 */
export const connectionRuns = (admin: () => Client, path: string) => {
  const activity = async () => (await admin().call("GET", `${path}/activity`)).body
  const attemptsOf = async (component: "content" | "permissions") =>
    ((await activity()).recentAttempts as Array<any>).filter((a) => a.component === component)
  /** Waits for one more attempt of the component than `before`, and answers it. */
  const nextAttempt = async (component: "content" | "permissions", before: number) =>
    (await eventually(() => attemptsOf(component), (list) => list.length > before, `a ${component} attempt`, 120_000))[0]
  const run = async (component?: "content" | "permissions") => {
    const [content, permissions] = [(await attemptsOf("content")).length, (await attemptsOf("permissions")).length]
    const reply = await admin().call("POST", `${path}/crawl${component ? `?component=${component}` : ""}`)
    expect(reply.status, JSON.stringify(reply.body)).toBe(202)
    return {
      content: component === "permissions" ? undefined : await nextAttempt("content", content),
      permissions: component === "content" ? undefined : await nextAttempt("permissions", permissions)
    }
  }
  return { activity, attemptsOf, nextAttempt, run }
}

/** The candidates `who` finds by search, in their order. */
export const wordsFound = async (who: Client, candidates: ReadonlyArray<string>) => {
  const found: Array<string> = []
  for (const word of candidates) if ((await search(who, word)).length > 0) found.push(word)
  return found
}

/** The candidates `who` finds once ingestion, which runs behind the crawl, has made `expected` of them searchable:
 * waiting on a few named words let the rest race the assertion. */
export const wordsOnceIngested = (who: Client, candidates: ReadonlyArray<string>, expected: ReadonlyArray<string>, timeoutMs = 120_000) =>
  eventually(() => wordsFound(who, candidates), (found) => expected.every((word) => found.includes(word)), `${expected.join(", ")} searchable`, timeoutMs)

