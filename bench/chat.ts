/**
 * The assistant's chat stream (POST /api/assistant/chat, UI Message Stream v1): time to the first text delta
 * and to the end of the stream, answered by LOCAL and by a loopback OpenAI-compatible provider that streams
 * after a fixed delay; Lore's added latency before the first token beyond retrieval; and, on PostgreSQL,
 * BENCH_CHAT_CONCURRENT streams at once (p50/p95 first token). Prints tables; never asserts on timing.
 *
 * Per database (a throwaway PostgreSQL database, and a fresh embedded data dir): Lore runs in a child process
 * (bench/lib/me-servers.ts "lore" mode); ~BENCH_CHAT_CHUNKS chunks of the synthetic corpus are uploaded over
 * HTTP; a gateway to the loopback provider gets one assistant model. Each question of bench/lib/corpus.ts is
 * asked once to warm up, then BENCH_CHAT_ROUNDS times per answerer, one at a time, each in a new conversation.
 *
 * "Added before first token" = first-token time - the provider's fixed delay - the retrieval time, where the
 * retrieval time is GET /api/knowledge/search for the same keywords (what the chat's search runs, with the same
 * authentication and HTTP path): what Lore itself adds (validation, conversation and message writes, keyword
 * planning, model resolution, prompt, the provider connection). For LOCAL the provider delay is 0.
 *
 * Settings (env): BENCH_CHAT_DATABASES=embedded,postgresql  BENCH_CHAT_CHUNKS=2000  BENCH_CHAT_ROUNDS=2
 * BENCH_CHAT_PROVIDER_DELAY_MS=200  BENCH_CHAT_CONCURRENT=50  BENCH_CHAT_LEVELS=1,10,50 (0: no bursts, only the
 * one-at-a-time figures and CPU per request)  BENCH_CHAT_BURSTS=3 (bursts per level)  BENCH_CHAT_USERS=one,many
 * (bursts from the bench admin, from a user each)  DATABASE_URL (admin URL, default
 * postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { startStreamingChat } from "../packages/test-support/aiProviders"
import { documents, QUESTIONS } from "./lib/corpus"
import { percentile } from "./lib/latency"
import { postgresCpuMicros } from "./lib/pg"
import { table } from "./lib/load"
import { timedChat, timedSearch } from "./lib/chat-requests"
import { ingestOverHttp, type Lore, startLore, takeChunks } from "./lib/search-ingest"

export const description = "assistant chat stream: first text delta and total, LOCAL vs a loopback provider; Lore's added latency; 50 concurrent streams on PostgreSQL"

const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test"
const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const settings = {
  databases: (process.env.BENCH_CHAT_DATABASES ?? "embedded,postgresql").split(",").map((s) => s.trim()),
  chunks: number("BENCH_CHAT_CHUNKS", 2000),
  rounds: number("BENCH_CHAT_ROUNDS", 2),
  providerDelayMs: number("BENCH_CHAT_PROVIDER_DELAY_MS", 200),
  concurrent: number("BENCH_CHAT_CONCURRENT", 50),
  bursts: number("BENCH_CHAT_BURSTS", 3),
  users: (process.env.BENCH_CHAT_USERS ?? "one,many").split(",").map((s) => s.trim())
}
const QUESTION_COUNT = 20

const stats = (values: ReadonlyArray<number>) => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b)
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), n: sorted.length }
}
const ms = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(1))

/**
 * `count` users of the bench admin's department, role and clearance (so they read what it reads), each with a token
 * of its own (an invitation, accepted): a burst from many users, as a burst really comes, where one user's chats
 * take their tokens from one rate-limit bucket, a row whose lock makes them commit one after another.
 */
const benchUsers = async (lore: Lore, count: number): Promise<Array<Record<string, string>>> => {
  const me = await lore.api<{ departmentId: string; role: string; clearance: string }>("/api/me")
  const users: Array<Record<string, string>> = []
  for (let i = 0; i < count; i++) {
    const invitation = await lore.call("POST", "/api/admin/invitations", { email: `bench-${i}@lore.test`, departmentId: me.departmentId, role: me.role, clearance: me.clearance })
    const accepted = await lore.call("POST", "/api/invitations/accept", { code: invitation.invitationCode })
    users.push({ authorization: `Bearer ${accepted.token.token}` })
  }
  return users
}

/**
 * What a LOCAL chat and a search cost in CPU, one at a time: Lore's process and every PostgreSQL process, for
 * the chat's whole stream and for its part before the first token (read when the first text-delta arrives). Under
 * a burst on two cores the first tokens wait on that work, so the ratio before the first token bounds the p95
 * ratio above.
 */
const cpuPerRequest = async (lore: Lore, questions: ReadonlyArray<string>) => {
  const count = 3 * questions.length
  const measure = async (run: (question: string) => Promise<unknown>) => {
    const lore0 = await lore.child.cpuMicros()
    const pg0 = postgresCpuMicros()
    for (let i = 0; i < count; i++) await run(questions[i % questions.length]!)
    const pg1 = postgresCpuMicros()
    return { lore: ((await lore.child.cpuMicros()) - lore0) / count, pg: pg0 === undefined || pg1 === undefined ? NaN : (pg1 - pg0) / count }
  }
  /** Only what comes before each one's first token (or a search's answer): CPU read at its start and there, summed. */
  const beforeFirst = async (run: (question: string, reached: () => void) => Promise<unknown>) => {
    let loreMicros = 0
    let pgMicros = 0
    for (let i = 0; i < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20)) // the last one's save is over
      const lore0 = await lore.child.cpuMicros()
      const pg0 = postgresCpuMicros() ?? NaN
      let reached: Promise<void> = Promise.resolve()
      await run(questions[i % questions.length]!, () => {
        const pg1 = postgresCpuMicros() ?? NaN
        reached = lore.child.cpuMicros().then((lore1) => {
          loreMicros += lore1 - lore0
          pgMicros += pg1 - pg0
        })
      })
      await reached
    }
    return { lore: loreMicros / count, pg: pgMicros / count }
  }
  const chat = await measure((question) => timedChat(lore, { message: question }))
  const search = await measure((question) => timedSearch(lore, question))
  const chatFirst = await beforeFirst((question, reached) => timedChat(lore, { message: question }, lore.headers, reached))
  const searchFirst = await beforeFirst(async (question, reached) => {
    await timedSearch(lore, question)
    reached()
  })
  const us = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(0))
  const ratio = (a: number, b: number) => (a / b).toFixed(2)
  console.log("\nCPU per request, one at a time (Lore's process; every postgres process, 10 ms ticks)")
  console.log(table(["request", "Lore µs", "PostgreSQL µs", "together µs"], [
    ["LOCAL chat, whole stream", us(chat.lore), us(chat.pg), us(chat.lore + chat.pg)],
    ["search", us(search.lore), us(search.pg), us(search.lore + search.pg)],
    ["chat / search", ratio(chat.lore, search.lore), ratio(chat.pg, search.pg), ratio(chat.lore + chat.pg, search.lore + search.pg)],
    ["LOCAL chat, to its first token", us(chatFirst.lore), us(chatFirst.pg), us(chatFirst.lore + chatFirst.pg)],
    ["search, to its answer", us(searchFirst.lore), us(searchFirst.pg), us(searchFirst.lore + searchFirst.pg)],
    ["first token / search", ratio(chatFirst.lore, searchFirst.lore), ratio(chatFirst.pg, searchFirst.pg), ratio(chatFirst.lore + chatFirst.pg, searchFirst.lore + searchFirst.pg)]
  ]))
}

/**
 * How busy Lore's process, PostgreSQL and the bench itself were during a kind of burst, up to its last first token
 * (a search burst: its last answer): their CPU over that wall time (1.00 is one core of the machine's two). A burst
 * whose Lore share nears 1 waits on Lore's one JavaScript thread.
 */
const burstLoad = (lore: Lore) => {
  let wallMicros = 0
  let loreMicros = 0
  let pgMicros = 0
  let benchMicros = 0
  const ownCpu = () => {
    const { user, system } = process.cpuUsage()
    return user + system
  }
  return {
    /** `run` calls `reached` when the part measured is over (a chat burst: its last first token), else its end counts. */
    during: async <A>(run: (reached: () => void) => Promise<A>): Promise<A> => {
      const lore0 = await lore.child.cpuMicros()
      const pg0 = postgresCpuMicros() ?? NaN
      const bench0 = ownCpu()
      const started = performance.now()
      let measured: Promise<void> | undefined
      const reached = () => {
        if (measured) return
        wallMicros += (performance.now() - started) * 1000
        pgMicros += (postgresCpuMicros() ?? NaN) - pg0
        benchMicros += ownCpu() - bench0
        measured = lore.child.cpuMicros().then((lore1) => void (loreMicros += lore1 - lore0))
      }
      const result = await run(reached)
      reached()
      await measured
      return result
    },
    shares: () => `${(loreMicros / wallMicros).toFixed(2)} / ${Number.isNaN(pgMicros) ? "-" : (pgMicros / wallMicros).toFixed(2)} / ${(benchMicros / wallMicros).toFixed(2)}`
  }
}

const runDatabase = async (database: string, providerUrl: string) => {
  const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-chat-"))
  const token = `lore_pat_bench${randomBytes(16).toString("hex")}`
  let databaseUrl: string | undefined
  let admin: pg.Client | undefined
  if (database === "postgresql") {
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL })
    await admin.connect()
    const name = `lore_bench_chat_${process.pid}`
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${name}`)
    const url = new URL(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL)
    url.pathname = `/${name}`
    databaseUrl = url.toString()
  }
  const lore = await startLore(dataDir, token, databaseUrl)
  try {
    const [space] = await lore.api<Array<{ id: string }>>("/api/knowledge-spaces/visible")
    const corpus = documents({ seed: 20240611, minPages: 1, maxPages: 3 })
    const ingested = await ingestOverHttp(lore, space!.id, await takeChunks(corpus, settings.chunks), 4)
    const gateway = await lore.call("POST", "/api/admin/ai/gateways", {
      gatewayKey: "bench", displayName: "Bench provider", preset: "OPENAI_COMPATIBLE", baseUrl: `${providerUrl}/v1`, requestTimeoutSeconds: 30
    })
    await lore.call("PUT", `/api/admin/ai/gateways/${gateway.id}/credential`, { apiKey: "sk-bench" })
    const [model] = await lore.call("PUT", `/api/admin/ai/gateways/${gateway.id}/assistant-models`, [{ modelId: "bench-model", displayName: "Bench model" }])
    const questions = QUESTIONS.slice(0, QUESTION_COUNT)
    const answerers = [
      { name: "LOCAL", body: (q: string) => ({ message: q }), delay: 0 },
      { name: `provider (first token after ${settings.providerDelayMs} ms)`, body: (q: string) => ({ message: q, modelActivationId: model.id }), delay: settings.providerDelayMs }
    ]
    const rows: Array<Array<string>> = []
    for (const answerer of answerers) {
      for (const q of questions) await timedChat(lore, answerer.body(q)) // warm-up
      const first: number[] = []
      const total: number[] = []
      const search: number[] = []
      let failures = 0
      for (let round = 0; round < settings.rounds; round++) {
        for (const q of questions) {
          search.push(await timedSearch(lore, q))
          const timing = await timedChat(lore, answerer.body(q))
          if (!timing.ok) failures++
          first.push(timing.firstTokenMs)
          total.push(timing.totalMs)
        }
      }
      const f = stats(first)
      const t = stats(total)
      const s = stats(search)
      rows.push([answerer.name, String(f.n), ms(f.p50), ms(f.p95), ms(t.p50), ms(t.p95), ms(s.p50), ms(f.p50 - answerer.delay - s.p50), String(failures)])
    }
    console.log(`\n${database}: ${ingested.documents} documents, ${ingested.chunks} chunks; ${QUESTION_COUNT} questions x ${settings.rounds} rounds, one chat at a time`)
    console.log(table(["answerer", "chats", "first p50 ms", "first p95 ms", "total p50 ms", "total p95 ms", "search p50 ms", "added p50 ms", "failed"], rows))

    if (database === "postgresql") {
      // LOCAL answers beside the same number of searches for the same questions, at 1, 10 and 50 at once
      // (BENCH_CHAT_LEVELS): chat first token against search's whole answer, each burst three times.
      // Each level twice: every request from the bench admin, then each from a user of its own.
      const levels = (process.env.BENCH_CHAT_LEVELS ?? "1,10,50").split(",").map(Number).filter((level) => level > 0)
      const users = await benchUsers(lore, Math.max(0, ...levels))
      const levelRows: Array<Array<string>> = []
      for (const manyUsers of [false, true].filter((many) => settings.users.includes(many ? "many" : "one"))) {
        for (const level of levels) {
          const headersOf = (i: number) => (manyUsers ? users[i]! : lore.headers)
          const firsts: number[] = []
          const searches: number[] = []
          const chatLoad = burstLoad(lore)
          const searchLoad = burstLoad(lore)
          let failed = 0
          for (let round = 0; round < settings.bursts; round++) {
            const chats = await chatLoad.during((reached) => {
              let waiting = level
              return Promise.all(Array.from({ length: level }, (_, i) => timedChat(lore, { message: questions[(i + round) % questions.length] }, headersOf(i), () => --waiting === 0 && reached())))
            })
            failed += chats.filter((timing) => !timing.ok).length
            firsts.push(...chats.map((timing) => timing.firstTokenMs))
            searches.push(...await searchLoad.during(() => Promise.all(Array.from({ length: level }, (_, i) => timedSearch(lore, questions[(i + round) % questions.length]!, headersOf(i))))))
          }
          const f = stats(firsts)
          const s = stats(searches)
          levelRows.push([String(level), manyUsers ? String(level) : "1", String(f.n), ms(f.p50), ms(f.p95), ms(s.p50), ms(s.p95), (f.p95 / s.p95).toFixed(2), chatLoad.shares(), searchLoad.shares(), String(failed)])
        }
      }
      if (levels.length > 0) console.log(`\nLOCAL chats at once on ${database}, beside as many searches at once (${settings.bursts} bursts per level; users: ${settings.users.join(", ")})`)
      if (levels.length > 0) console.log(table(["at once", "users", "chats", "chat first p50 ms", "chat first p95 ms", "search p50 ms", "search p95 ms", "p95 ratio", "chat bursts: Lore / PostgreSQL / bench CPU", "search bursts: Lore / PostgreSQL / bench CPU", "failed"], levelRows))
      await cpuPerRequest(lore, questions)
      const burst = await Promise.all(Array.from({ length: settings.concurrent }, (_, i) => timedChat(lore, { message: questions[i % questions.length], modelActivationId: model.id })))
      const f = stats(burst.map((timing) => timing.firstTokenMs))
      const t = stats(burst.map((timing) => timing.totalMs))
      console.log(`\n${settings.concurrent} chats at once on ${database} (provider, first token after ${settings.providerDelayMs} ms)`)
      console.log(table(["streams", "completed", "first p50 ms", "first p95 ms", "total p50 ms", "total p95 ms"], [
        [String(settings.concurrent), String(burst.filter((timing) => timing.ok).length), ms(f.p50), ms(f.p95), ms(t.p50), ms(t.p95)]
      ]))
    }
  } finally {
    await lore.child.stop()
    rmSync(dataDir, { recursive: true, force: true })
    if (admin && databaseUrl) {
      await admin.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`)
      await admin.end()
    }
  }
}

export default async () => {
  const provider = await startStreamingChat({ firstTokenMs: settings.providerDelayMs, gapMs: 5, text: ["The answer ", "is in ", "the passage ", "[1]."] })
  try {
    for (const database of settings.databases) await runDatabase(database, provider.url)
  } finally {
    await provider.close()
  }
}
