import { createLoreClient } from "@lore/sdk"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type InspectableServer, startInspectableServer } from "./inspect"
import { client, type Client, eventually, expectProblemReply, filler, settled, uploaded } from "./support"

/**
 * What people and the assistant actually send: a pasted paragraph is searched by its most informative
 * terms (never refused below the documented 10,000 characters); results page by offset; and a bulk load
 * leaves the search tables with planner statistics (Lore refreshes them itself: autovacuum may be off).
 */
describe("long questions, paging and search statistics", { timeout: 180_000 }, () => {
  let server: InspectableServer
  let admin: Client
  let space: string

  /** A Markdown handbook of `sections` sections on `topic`: one chunk or more per section. */
  const handbook = (topic: string, sections: number) =>
    Array.from({ length: sections }, (_, i) => `# ${topic} ${i + 1}\n\n${filler(`${topic} step ${i + 1}`, 30)}\n`).join("\n")

  const search = (params: Record<string, string>) => admin.call("GET", `/api/knowledge/search?${new URLSearchParams(params)}`)

  beforeAll(async () => {
    server = await startInspectableServer()
    admin = client(server.url, server.adminToken)
    space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "manuals", name: "Manuals" })).body.id
    const sources = await Promise.all([
      uploaded(admin, { spaceId: space, name: "lighthouse.md", bytes: handbook("lighthouse lamp maintenance", 110), type: "text/markdown", classification: "INTERNAL" }),
      uploaded(admin, { spaceId: space, name: "beekeeping.md", bytes: handbook("beekeeping hive inspection", 12), type: "text/markdown", classification: "INTERNAL" })
    ])
    for (const source of sources) expect((await settled(admin, source.id)).status).toBe("READY")
  }, 180_000)
  afterAll(() => server?.dispose())

  it("searches a pasted paragraph of nearly 10,000 characters by its most informative terms", async () => {
    // Mostly words every section shares, repeated; the informative ones appear a few times.
    const common = "This is a sentence about the rules that apply to it and the step. "
    let paragraph = "How do I do a beekeeping hive inspection? "
    while (paragraph.length < 9_800) paragraph += common + (paragraph.length % 7 === 0 ? "hive inspection " : "")
    paragraph = paragraph.slice(0, 9_950)
    const reply = await search({ q: paragraph, limit: "5" })
    expect(reply.status, JSON.stringify(reply.body).slice(0, 500)).toBe(200)
    expect(reply.body.evidence.length).toBe(5)
    for (const hit of reply.body.evidence) expect(hit.title).toMatch(/beekeeping/i)
  })

  it("refuses a question over 10,000 characters or without a word, a limit past 100 and an offset past rank 500", async () => {
    expectProblemReply(await search({ q: " \n " }), 400, "VALIDATION_FAILED")
    expectProblemReply(await search({ q: "hive ".repeat(2_001).trim() + "s" }), 400, "VALIDATION_FAILED")
    expectProblemReply(await search({ q: "hive", limit: "101" }), 400, "VALIDATION_FAILED")
    expectProblemReply(await search({ q: "hive", offset: "500" }), 400, "VALIDATION_FAILED")
  })

  it("pages by offset: the pages of 7 are the single ranking of 100, in order, without repeats", async () => {
    const whole = await search({ q: "lighthouse lamp maintenance step", limit: "100" })
    expect(whole.status).toBe(200)
    expect(whole.body.evidence).toHaveLength(100)
    expect(whole.body.nextOffset).toBe(100)
    const paged: Array<string> = []
    let offset: number | null = 0
    while (offset !== null && offset < 100) {
      const page = await search({ q: "lighthouse lamp maintenance step", limit: "7", offset: String(offset) })
      expect(page.status).toBe(200)
      paged.push(...page.body.evidence.map((hit: { citationId: string }) => hit.citationId))
      offset = page.body.nextOffset
    }
    expect(paged.slice(0, 100)).toEqual(whole.body.evidence.map((hit: { citationId: string }) => hit.citationId))
    // The last page says there is no next one.
    const tail = await search({ q: "beekeeping hive inspection", limit: "100" })
    expect(tail.body.evidence.length).toBeLessThan(100)
    expect(tail.body.nextOffset).toBeNull()
  })

  it("the SDK's searchAll walks the pages lazily, ending where the ranking ends", async () => {
    const lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const seen: Array<string> = []
    for await (const hit of lore.knowledge.searchAll({ q: "beekeeping hive inspection", limit: 5 })) seen.push(hit.citationId)
    const whole = await search({ q: "beekeeping hive inspection", limit: "100" })
    expect(seen).toEqual(whole.body.evidence.map((hit: { citationId: string }) => hit.citationId))
    expect(seen.length).toBeGreaterThan(5)
  })

  it("refreshes the search tables' planner statistics after a bulk load, by itself", async () => {
    const analyzed = await eventually(
      () =>
        server.sql((sql) =>
          Effect.map(sql<{ tuples: number }>`SELECT reltuples::float8 AS tuples FROM pg_class WHERE oid = 'search_postings'::regclass`, (rows) => rows[0]!.tuples)
        ),
      (tuples) => tuples > 0,
      "search_postings analyzed"
    )
    expect(analyzed).toBeGreaterThan(1_000)
  })

  it("vacuums the search tables again by itself once churn left dead rows in them (autovacuum may be off)", async () => {
    const deadPostings = () =>
      server.sql((sql) => Effect.map(sql<{ dead: number }>`SELECT n_dead_tup::float8 AS dead FROM pg_stat_user_tables WHERE relid = 'search_postings'::regclass`, (rows) => rows[0]?.dead ?? 0))
    // What the packer and block maintenance do to their tables all day, at once: every row replaced. The backend
    // reports its counts when it next goes idle (PostgreSQL 15+ waits up to a second unless told to).
    await server.sql((sql) => sql.withTransaction(Effect.zipRight(sql`UPDATE search_postings SET frequency = frequency`, sql`SELECT pg_stat_force_next_flush()`)))
    const dead = await eventually(deadPostings, (count) => count > 1_000, "the dead rows counted")
    // The next ingestion (or pack, or maintenance run) sees them and queues the refresh, which vacuums them.
    const source = await uploaded(admin, { spaceId: space, name: "kites.md", bytes: handbook("kite line splicing", 2), type: "text/markdown", classification: "INTERNAL" })
    expect((await settled(admin, source.id)).status).toBe("READY")
    await eventually(deadPostings, (count) => count < dead / 10, "the dead rows vacuumed", 60_000)
  })
})
