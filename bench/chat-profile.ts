/**
 * Where a chat's CPU goes before its first token, beside a search's: Lore runs as built (packages/server/dist, or
 * other builds of it side by side), under V8's CPU profiler, answering LOCAL chats and searches one at a time, the
 * builds' requests alternating; each profile sample is given to the request it fell in (a chat from its POST to its
 * first text-delta, and after that to its end; a search whole) and, through the build's source map, to the source
 * file it ran in. Prints CPU per request by file (Lore's own files, effect's, node's) for each build.
 *
 * Builds are compared side by side because two processes of the same build differ by up to ~0.6 ms a chat: compare
 * the chat/search ratios, and expect differences under ~5% to be noise. To compare code before and after a change:
 * `npm run build -w packages/server && cp -r packages/server/dist packages/server/dist-before`, change, build again,
 * then `BENCH_CHAT_PROFILE_BUILDS=dist-before,dist npm run bench -- chat-profile`.
 *
 * Settings (env): BENCH_CHAT_PROFILE_BUILDS=dist (folders of packages/server)  BENCH_CHAT_PROFILE_REQUESTS=250 (chats
 * and searches per build)  BENCH_CHAT_PROFILE_TOP=30 (rows)  BENCH_CHAT_PROFILE_LINES (a pattern: those sources by function)  DATABASE_URL (admin URL, default
 * postgres://postgres@127.0.0.1:5432/test). PostgreSQL only.
 */
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SourceMapConsumer } from "source-map-js"
import { documents, QUESTIONS } from "./lib/corpus"
import { timedChat, timedSearch } from "./lib/chat-requests"
import { percentile } from "./lib/latency"
import { table } from "./lib/load"
import { createThrowawayDatabase, type ThrowawayDatabase } from "./lib/pg"
import { ingestOverHttp, type Lore, startLore, takeChunks } from "./lib/search-ingest"

export const description = "a chat's CPU before its first token beside a search's, by source file, from V8 CPU profiles of built servers (PostgreSQL)"

const builds = (process.env.BENCH_CHAT_PROFILE_BUILDS ?? "dist").split(",").map((name) => name.trim())
const requests = Number(process.env.BENCH_CHAT_PROFILE_REQUESTS ?? 250)
const top = Number(process.env.BENCH_CHAT_PROFILE_TOP ?? 30)
/** Sources whose time is shown by line (the function's first line) and function, e.g. `LocalModel|Chat\.ts`. */
const lines = process.env.BENCH_CHAT_PROFILE_LINES ? new RegExp(process.env.BENCH_CHAT_PROFILE_LINES) : undefined
const serverDir = new URL("../packages/server/", import.meta.url).pathname

type Kind = "chat" | "after" | "search"
interface Window {
  readonly kind: Kind
  readonly from: number
  readonly to: number
}
interface Build {
  readonly name: string
  readonly lore: Lore
  readonly database: ThrowawayDatabase
  readonly profileDir: string
  readonly dataDir: string
  readonly windows: Array<Window>
  readonly firstTokenMs: Array<number>
  readonly searchMs: Array<number>
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number }
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
  readonly startTime: number
}

/** The monotonic clock in microseconds: the clock V8's profile timestamps are read from. */
const micros = () => Number(process.hrtime.bigint() / 1000n)

/** A profile frame's source: a file of Lore's source or of a package, through the build's source map; else node's or V8's own. */
const sourceOf = () => {
  const consumers = new Map<string, SourceMapConsumer>()
  return (frame: ProfileNode["callFrame"]) => {
    const { functionName, url } = frame
    if (functionName === "(garbage collector)") return "(garbage collector)"
    if (functionName === "(program)" || functionName === "(idle)") return functionName
    const path = url.replace(/^file:\/\//, "")
    if (path.startsWith(serverDir) && existsSync(`${path}.map`)) {
      let consumer = consumers.get(path)
      if (!consumer) consumers.set(path, (consumer = new SourceMapConsumer(JSON.parse(readFileSync(`${path}.map`, "utf8")))))
      const original = consumer.originalPositionFor({ line: frame.lineNumber + 1, column: frame.columnNumber })
      const source = original.source?.replace(/^.*?src\//, "lore: ").replace(/^.*node_modules\//, "")
      if (source) return lines && lines.test(source) ? `${source}:${original.line} ${functionName}` : source
    }
    const inPackage = /node_modules\/(.*)$/.exec(path)
    if (inPackage) return inPackage[1]!.replace(/\/dist\/esm\//, "/")
    return url || `(native) ${functionName}`
  }
}

/** CPU microseconds per request of each kind, by source file (and "TOTAL"). */
const attribute = (profile: Profile, windows: ReadonlyArray<Window>) => {
  const source = sourceOf()
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const sums: Record<Kind, Map<string, number>> = { chat: new Map(), after: new Map(), search: new Map() }
  const sorted = [...windows].sort((a, b) => a.from - b.from)
  let at = profile.startTime
  let next = 0
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!
    while (next < sorted.length && sorted[next]!.to < at) next++
    const window = sorted[next]
    if (!window || at < window.from) continue
    const file = source(byId.get(profile.samples[i]!)!.callFrame)
    if (file === "(idle)") continue
    // A sample stands for the time until the next one.
    const spent = profile.timeDeltas[i + 1] ?? 0
    for (const key of [file, "TOTAL"]) sums[window.kind].set(key, (sums[window.kind].get(key) ?? 0) + spent)
  }
  return sums
}

export default async () => {
  const missing = builds.filter((name) => !existsSync(join(serverDir, name, "index.js")))
  if (missing.length > 0) {
    console.log(`No build in packages/server/${missing.join(", packages/server/")}: run \`npm run build -w packages/server\` first.`)
    return
  }
  const chunks = await takeChunks(documents({ seed: 20240611, minPages: 1, maxPages: 3 }), 2000)
  const questions = QUESTIONS.slice(0, 20)
  const started: Array<Build> = []
  try {
    for (const name of builds) {
      const database = await createThrowawayDatabase("chatprof")
      const profileDir = mkdtempSync(join(tmpdir(), "lore-chat-profile-"))
      const dataDir = mkdtempSync(join(tmpdir(), "lore-chat-profile-data-"))
      // Read by bench/lib/child.ts and me-servers.ts when the child starts.
      process.env.BENCH_CPU_PROF = profileDir
      process.env.BENCH_LORE_DIST = name
      const lore = await startLore(dataDir, `lore_pat_bench${randomBytes(16).toString("hex")}`, database.url)
      started.push({ name, lore, database, profileDir, dataDir, windows: [], firstTokenMs: [], searchMs: [] })
      const [space] = await lore.api<Array<{ id: string }>>("/api/knowledge-spaces/visible")
      await ingestOverHttp(lore, space!.id, chunks, 4)
      for (let i = 0; i < 40; i++) {
        await timedChat(lore, { message: questions[i % questions.length]! })
        await timedSearch(lore, questions[i % questions.length]!)
      }
    }
    const pause = () => new Promise((resolve) => setTimeout(resolve, 25)) // the last request's save is over
    for (let i = 0; i < requests; i++) {
      for (const build of i % 2 === 0 ? started : [...started].reverse()) {
        const question = questions[i % questions.length]!
        await pause()
        const from = micros()
        let firstToken = from
        await timedChat(build.lore, { message: question }, build.lore.headers, () => void (firstToken = micros()))
        build.windows.push({ kind: "chat", from, to: firstToken }, { kind: "after", from: firstToken + 1, to: micros() })
        build.firstTokenMs.push((firstToken - from) / 1000)
        await pause()
        const searched = micros()
        build.searchMs.push(await timedSearch(build.lore, question))
        build.windows.push({ kind: "search", from: searched, to: micros() })
      }
    }
  } finally {
    for (const build of started) await build.lore.child.stop() // writes the profile
    for (const build of started) await build.database.drop()
  }

  const results = started.map((build) => {
    const file = readdirSync(build.profileDir).find((name) => name.endsWith(".cpuprofile"))!
    const sums = attribute(JSON.parse(readFileSync(join(build.profileDir, file), "utf8")), build.windows)
    rmSync(build.profileDir, { recursive: true, force: true })
    rmSync(build.dataDir, { recursive: true, force: true })
    return { build, sums, per: (kind: Kind, key: string) => (sums[kind].get(key) ?? 0) / requests }
  })
  const ms = (values: ReadonlyArray<number>, p: number) => percentile([...values].sort((a, b) => a - b), p).toFixed(1)
  console.log(`\nPostgreSQL, 2,000 chunks, LOCAL; ${requests} chats and ${requests} searches per build, one at a time, builds alternating`)
  for (const { build, per } of results) {
    console.log(`${build.name}: first token p50 ${ms(build.firstTokenMs, 0.5)} ms, search p50 ${ms(build.searchMs, 0.5)} ms; CPU a chat before its first token ` +
      `${per("chat", "TOTAL").toFixed(0)} µs, after it ${per("after", "TOTAL").toFixed(0)} µs, a search ${per("search", "TOTAL").toFixed(0)} µs: ` +
      `chat / search ${(per("chat", "TOTAL") / per("search", "TOTAL")).toFixed(3)}`)
  }
  // Every file a build spent time in, by how much more the first build's chat spends there than its search.
  const files = [...new Set(results.flatMap(({ sums }) => [...sums.chat.keys(), ...sums.search.keys()]))].filter((key) => key !== "TOTAL")
  const [first] = results
  files.sort((a, b) => Math.abs(first!.per("chat", b) - first!.per("search", b)) - Math.abs(first!.per("chat", a) - first!.per("search", a)))
  const header = results.flatMap(({ build }) => [`${build.name}: chat µs`, "search µs"])
  const rows = files.slice(0, top).map((key) => [...results.flatMap(({ per }) => [per("chat", key).toFixed(0), per("search", key).toFixed(0)]), key])
  console.log(`\nCPU per request by source file (chat: before its first token)\n${table([...header, "file"], rows)}`)
  // What a chat does after its first token: its later lines, the save, the ending; it competes with a burst's later first tokens.
  const afterFiles = [...new Set(results.flatMap(({ sums }) => [...sums.after.keys()]))].filter((key) => key !== "TOTAL")
  afterFiles.sort((a, b) => first!.per("after", b) - first!.per("after", a))
  const afterRows = afterFiles.slice(0, top).map((key) => [...results.map(({ per }) => per("after", key).toFixed(0)), key])
  console.log(`\nCPU per chat after its first token, by source file\n${table([...results.map(({ build }) => `${build.name}: after µs`), "file"], afterRows)}`)
}
