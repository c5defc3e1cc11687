import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedLore, serveBeside, serveLore } from "./support/serve"

// Two `lore serve` processes on one PostgreSQL database, as two machines of a deployment (docs/deployment.md):
// what one process does, the other sees at once; jobs run once; budgets are shared. PostgreSQL only: an
// embedded database belongs to one process (the PGlite run skips this file).

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The chat budget both processes are started with: three in a burst, then one a minute. */
const CHAT_LIMIT = { LORE_RATE_LIMIT_CHAT_PER_MINUTE: "1", LORE_RATE_LIMIT_CHAT_BURST: "3" }

describe.runIf(process.env.DATABASE_URL)("several Lore processes on one database", { timeout: 180_000 }, () => {
  let first: ServedLore
  let second: ServedLore

  const request = (server: ServedLore, method: string, route: string, options: { token?: string; cookie?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
    fetch(`${server.url}${route}`, {
      method,
      headers: {
        ...(options.cookie ? { cookie: options.cookie } : { authorization: `Bearer ${options.token ?? server.adminToken}` }),
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        ...options.headers
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
    })

  beforeAll(async () => {
    first = await serveLore(CHAT_LIMIT)
    second = await serveBeside(first, CHAT_LIMIT)
  }, 180_000)
  afterAll(async () => {
    await second?.stop()
    await first?.stop()
  })

  it("ingests what one process received exactly once, on either, and the other finds it", async () => {
    const [space] = (await (await request(first, "GET", "/api/knowledge-spaces/upload-targets")).json()) as Array<{ id: string }>
    const sources: Array<string> = []
    for (let i = 0; i < 6; i++) {
      const form = new FormData()
      form.append("file", new Blob([`# Shipment ${i}\n\nThe pelican crate number ${i} leaves the harbour on day ${i + 1}.\n`], { type: "text/markdown" }), `shipment-${i}.md`)
      const response = await fetch(`${first.url}/api/sources?knowledgeSpaceId=${space!.id}&classification=INTERNAL`, { method: "POST", headers: { authorization: `Bearer ${first.adminToken}` }, body: form })
      expect(response.status).toBe(201)
      sources.push(((await response.json()) as { id: string }).id)
    }
    for (const id of sources) {
      for (let tries = 0; ; tries++) {
        const source = (await (await request(second, "GET", `/api/sources/${id}`)).json()) as { status: string }
        if (source.status === "READY") break
        expect(source.status).not.toBe("ATTENTION")
        if (tries > 900) throw new Error(`source ${id} not READY: ${source.status}`)
        await sleep(100)
      }
    }
    const found = (await (await request(second, "GET", `/api/knowledge/search?q=pelican+crate&limit=20`)).json()) as { evidence: Array<{ knowledgeAssetVersionId: string }> }
    expect(new Set(found.evidence.map((hit) => hit.knowledgeAssetVersionId))).toEqual(new Set(sources))

    const client = new pg.Client({ connectionString: first.databaseUrl })
    await client.connect()
    try {
      const jobs = await client.query<{ status: string; attempts: number }>(`SELECT status, attempts FROM jobs WHERE kind = 'knowledge.ingest'`)
      expect(jobs.rows).toHaveLength(6)
      for (const job of jobs.rows) expect(job).toEqual({ status: "SUCCEEDED", attempts: 1 })
    } finally {
      await client.end()
    }
  })

  it("refuses a token revoked through one process on the other's next request", async () => {
    const issued = (await (await request(first, "POST", "/api/me/tokens", { body: { name: "two processes" } })).json()) as { id: string; token: string }
    // The second process has seen the token work (and may hold it in its credential cache).
    expect((await request(second, "GET", "/api/me", { token: issued.token })).status).toBe(200)
    expect((await request(second, "GET", "/api/me", { token: issued.token })).status).toBe(200)
    expect((await request(first, "DELETE", `/api/me/tokens/${issued.id}`)).status).toBe(204)
    expect((await request(second, "GET", "/api/me", { token: issued.token })).status).toBe(401)
  })

  it("serves a session cookie from one process on the other, and signing out on one ends it on both", async () => {
    const signIn = await request(first, "POST", "/api/session", { body: { token: first.adminToken }, headers: {} })
    expect(signIn.status).toBe(201)
    const cookie = signIn.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ")
    expect((await request(second, "GET", "/api/me", { cookie })).status).toBe(200)
    const csrf = (await (await request(second, "GET", "/api/session/csrf", { cookie })).json()) as { headerName: string; token: string }
    expect((await request(first, "DELETE", "/api/session", { cookie, headers: { [csrf.headerName]: csrf.token } })).status).toBe(204)
    expect((await request(second, "GET", "/api/me", { cookie })).status).toBe(401)
  })

  it("counts the chat rate limit once across processes", async () => {
    const chat = (server: ServedLore) => request(server, "POST", "/api/assistant/chat", { body: { message: "When does the pelican crate leave?" } })
    const answers: Array<number> = []
    for (const server of [first, second, first]) {
      const response = await chat(server)
      await response.text()
      answers.push(response.status)
    }
    expect(answers).toEqual([200, 200, 200])
    const refused = await chat(second)
    expect(refused.status).toBe(429)
    expect(((await refused.json()) as { code: string }).code).toBe("RATE_LIMITED")
  })
})
