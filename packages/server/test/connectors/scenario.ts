import { expect } from "vitest"
import { type Client, eventually, search } from "../knowledge/support"

/**
 * What a connector kind's scenario test does again and again: run a crawl or permission sync of one connection and
 * wait for its attempt, and ask which of some words a user finds. `admin` is read when called (set in beforeAll).
 */
export const connectionScenario = (admin: () => Client, kind: string, key: string) => {
  const activity = async () => (await admin().call("GET", `/api/admin/connectors/${kind}/${key}/activity`)).body
  const attemptsOf = async (component: "content" | "permissions") =>
    ((await activity()).recentAttempts as Array<any>).filter((a) => a.component === component)
  /** Waits for one more attempt of the component than `before`, and answers it. */
  const nextAttempt = async (component: "content" | "permissions", before: number) =>
    (await eventually(() => attemptsOf(component), (list) => list.length > before, `a ${component} attempt`, 120_000))[0]
  const run = async (component?: "content" | "permissions") => {
    const [content, permissions] = [(await attemptsOf("content")).length, (await attemptsOf("permissions")).length]
    const reply = await admin().call("POST", `/api/admin/connectors/${kind}/${key}/crawl${component ? `?component=${component}` : ""}`)
    expect(reply.status, JSON.stringify(reply.body)).toBe(202)
    return {
      content: component === "permissions" ? undefined : await nextAttempt("content", content),
      permissions: component === "content" ? undefined : await nextAttempt("permissions", permissions)
    }
  }
  const words = async (who: Client, candidates: ReadonlyArray<string>) => {
    const found: Array<string> = []
    for (const word of candidates) if ((await search(who, word)).length > 0) found.push(word)
    return found
  }
  return { activity, attemptsOf, run, words }
}
