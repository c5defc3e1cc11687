/**
 * SCIM provisioning at scale: user creates per second over /scim/v2, a full sync of BENCH_SCIM_USERS users and
 * BENCH_SCIM_GROUPS groups (each with BENCH_SCIM_MEMBERS members), then GET /api/knowledge/search p50/p95 for
 * one provisioned user whose access comes through a GROUP grant. Embedded PGlite and PostgreSQL. Prints a table;
 * never asserts on timing.
 *
 * Settings (env): BENCH_SCIM_DATABASES=embedded,postgresql BENCH_SCIM_USERS=10000 BENCH_SCIM_GROUPS=1000
 * BENCH_SCIM_MEMBERS=10 BENCH_SCIM_CONCURRENCY=8 BENCH_SCIM_SEARCHES=100
 * DATABASE_URL (admin URL for a throwaway database; default postgres://postgres@127.0.0.1:5432/test).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { startServer } from "../packages/server/src/index"
import { table } from "./lib/load"

export const description = "SCIM: user creates/s, full sync of 10k users + 1k groups, search p95 for a provisioned user afterwards"

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const USERS = setting("BENCH_SCIM_USERS", 10_000)
const GROUPS = setting("BENCH_SCIM_GROUPS", 1_000)
const MEMBERS = setting("BENCH_SCIM_MEMBERS", 10)
const CONCURRENCY = setting("BENCH_SCIM_CONCURRENCY", 8)
const SEARCHES = setting("BENCH_SCIM_SEARCHES", 100)
const DATABASES = (process.env.BENCH_SCIM_DATABASES ?? "embedded,postgresql").split(",").map((s) => s.trim())
const TOKEN = `lore_pat_bench${"x".repeat(30)}`

const call = (base: string, token: string, type = "application/json") => async (method: string, path: string, body?: unknown) => {
  const response = await fetch(base + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": type }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

/** Runs `count` tasks with `concurrency` in flight. */
const pool = async (count: number, concurrency: number, task: (i: number) => Promise<void>) => {
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await task(next++)
  }))
}

const percentile = (values: Array<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

const run = async (database: string) => {
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-scim-"))
  let databaseUrl: string | undefined
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
  if (database === "postgresql") {
    const name = `lore_bench_scim_${process.pid}`
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await client.query(`CREATE DATABASE ${name}`)
    await client.end()
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    databaseUrl = url.toString()
  }
  const server = await startServer({ port: 0, dataDir, ...(databaseUrl ? { databaseUrl } : {}), bootstrapToken: TOKEN })
  try {
    const admin = call(server.url, TOKEN)
    const connection = (await admin("POST", "/api/admin/provisioning/connections", { alias: "bench", providerProfile: "OKTA", usersEnabled: true, groupsEnabled: true })).body
    await admin("PATCH", `/api/admin/provisioning/connections/${connection.id}/state`, { operationalState: "ENABLED", version: connection.version })
    const scimToken = (await admin("POST", `/api/admin/provisioning/connections/${connection.id}/credentials`, { usersScope: true, groupsScope: true })).body.token
    const scim = call(`${server.url}/scim/v2`, scimToken, "application/scim+json")

    // The searcher: invited first (so they hold a token), then provisioned like everyone else (linked by email).
    const departmentId = (await admin("GET", "/api/admin/departments")).body[0].id
    const invitation = (await admin("POST", "/api/admin/invitations", { email: "user0@bench.example", departmentId })).body
    const searcherToken = (await call(server.url, "")("POST", "/api/invitations/accept", { code: invitation.invitationCode })).body.token.token

    const ids: Array<string> = []
    const started = performance.now()
    await pool(USERS, CONCURRENCY, async (i) => {
      const reply = await scim("POST", "/Users", {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
        userName: `user${i}@bench.example`, externalId: `ext-${i}`, name: { givenName: "User", familyName: String(i) },
        emails: [{ value: `user${i}@bench.example`, type: "work", primary: true }], active: true,
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: `Department ${i % 20}` }
      })
      if (reply.status !== 201) throw new Error(`user ${i}: ${reply.status} ${JSON.stringify(reply.body)}`)
      ids[i] = reply.body.id
    })
    const usersSeconds = (performance.now() - started) / 1000
    const groupIds: Array<string> = []
    const groupsStarted = performance.now()
    await pool(GROUPS, CONCURRENCY, async (g) => {
      const members = Array.from({ length: MEMBERS }, (_, k) => ({ value: ids[(g * MEMBERS + k) % USERS]! }))
      const reply = await scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: `Group ${g}`, members })
      if (reply.status !== 201) throw new Error(`group ${g}: ${reply.status}`)
      groupIds[g] = reply.body.id
    })
    const groupsSeconds = (performance.now() - groupsStarted) / 1000

    // Search for user0 (member of Group 0) through a GROUP grant on a space holding one document.
    const space = (await admin("POST", "/api/admin/knowledge-spaces", { key: "bench-scim", name: "Bench SCIM" })).body.id
    const form = new FormData()
    form.append("file", new Blob(["The quarterly provisioning review covers onboarding, offboarding and access recertification."], { type: "text/plain" }), "review.txt")
    const upload = await fetch(`${server.url}/api/sources?knowledgeSpaceId=${space}&classification=INTERNAL`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: form })
    const source = await upload.json()
    for (let i = 0; i < 600; i++) {
      const state = (await admin("GET", `/api/sources/${source.id}`)).body.status
      if (state === "READY") break
      await new Promise((r) => setTimeout(r, 50))
    }
    await admin("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", kind: "GROUP", subjectId: groupIds[0] })
    const searcher = call(server.url, searcherToken)
    const first = await searcher("GET", "/api/knowledge/search?q=provisioning%20review")
    const hits = first.body?.evidence?.length ?? 0
    const latencies: Array<number> = []
    for (let i = 0; i < SEARCHES; i++) {
      const t = performance.now()
      const reply = await searcher("GET", `/api/knowledge/search?q=${encodeURIComponent(i % 2 ? "access recertification" : "provisioning review")}`)
      if (reply.status !== 200) throw new Error(`search ${reply.status}`)
      latencies.push(performance.now() - t)
    }
    return [
      database, String(USERS), (USERS / usersSeconds).toFixed(0), usersSeconds.toFixed(1), String(GROUPS), groupsSeconds.toFixed(1),
      (usersSeconds + groupsSeconds).toFixed(1), String(hits), percentile(latencies, 50).toFixed(1), percentile(latencies, 95).toFixed(1)
    ]
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
    if (databaseUrl) {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`)
      await client.end()
    }
  }
}

export default async () => {
  const rows: Array<Array<string>> = []
  for (const database of DATABASES) rows.push(await run(database))
  console.log(table(
    ["database", "users", "user creates/s", "users s", "groups", "groups s", "full sync s", "hits", "search p50 ms", "search p95 ms"],
    rows
  ))
  console.log(`\n${CONCURRENCY} SCIM requests in flight; groups of ${MEMBERS} members; ${SEARCHES} sequential searches by a provisioned user granted through a GROUP.`)
}
