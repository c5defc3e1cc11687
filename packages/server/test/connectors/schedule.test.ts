import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backends, client, type Client, eventually } from "../knowledge/support"

/**
 * Scheduled crawls (issue 16 point 1): `contentCrawlIntervalSeconds` with `crawlEnabled` makes the server crawl a
 * connection again once that long has passed since its last crawl ended; without either, nothing is crawled
 * unless asked. The server here looks for due crawls every 200 ms instead of every 30 s.
 */
describe.each(backends)("scheduled crawls on $name", { timeout: 120_000 }, (backend) => {
  let server: Awaited<ReturnType<(typeof backends)[number]["start"]>>
  let admin: Client
  let spaceId: string
  const attempts = async (key: string) =>
    ((await admin.call("GET", `/api/admin/connectors/PUSH/${key}/activity`)).body.recentAttempts as Array<{ attemptedAt: string }>)

  beforeAll(async () => {
    server = await backend.start({ connectors: { scheduleCheckMs: 200 } })
    admin = client(server.url, server.adminToken)
    spaceId = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "sched", name: "Scheduled" })).body.id
  })
  afterAll(async () => {
    await server?.dispose()
  })

  it("crawls an enabled connection every interval, and leaves a disabled one alone", async () => {
    const put = (key: string, body: Record<string, unknown>) =>
      admin.call("PUT", `/api/admin/connectors/PUSH/${key}`, { knowledgeSpaceId: spaceId, sourceConfig: {}, ...body })
    expect((await put("every-second", { crawlEnabled: true, contentCrawlIntervalSeconds: 1 })).status).toBe(200)
    expect((await put("disabled", { crawlEnabled: false, contentCrawlIntervalSeconds: 1 })).status).toBe(200)
    expect((await put("no-interval", { crawlEnabled: true, contentCrawlIntervalSeconds: 0 })).status).toBe(200)

    const crawled = await eventually(() => attempts("every-second"), (list) => list.length >= 3, "three scheduled crawls", 30_000)
    // The interval counts from the end of the previous crawl: consecutive crawls are at least a second apart.
    const times = crawled.map((a) => Date.parse(a.attemptedAt)).sort()
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(900)
    expect(await attempts("disabled")).toEqual([])
    expect(await attempts("no-interval")).toEqual([])

    // Turning crawling off stops the schedule.
    expect((await put("every-second", { crawlEnabled: false, contentCrawlIntervalSeconds: 1 })).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const settled = (await attempts("every-second")).length
    await new Promise((resolve) => setTimeout(resolve, 2000))
    expect((await attempts("every-second")).length).toBe(settled)
  })
})
