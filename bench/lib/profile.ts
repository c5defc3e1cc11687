/**
 * Summarizes a V8 .cpuprofile (from BENCH_CPU_PROF=<dir> npm run bench -- me): self time by package
 * and by function, to see where a server's time goes, as shares of the busy (non-idle) time.
 * Usage: npx tsx bench/lib/profile.ts <file> [top] [skipSeconds]; skipSeconds leaves out the start
 * (module loading, migrations), so that what remains is the serving.
 */
import { readFileSync } from "node:fs"

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
  children?: number[]
}
interface Profile {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
}

const [file, topArg, skipArg] = process.argv.slice(2)
if (!file) {
  console.error("usage: tsx bench/lib/profile.ts <file.cpuprofile> [top] [skipSeconds]")
  process.exit(2)
}
const top = Number(topArg ?? 25)
const skipMicros = Number(skipArg ?? 0) * 1e6
const profile: Profile = JSON.parse(readFileSync(file, "utf8"))
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const isIdle = (id: number) => byId.get(id)?.callFrame.functionName === "(idle)"
const selfMicros = new Map<number, number>()
let elapsed = 0
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0
  elapsed += delta
  if (elapsed < skipMicros || isIdle(id)) return
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta)
})
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0)

const packageOf = (url: string) => {
  if (!url) return "(native/vm)"
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (m) return m[1]!
  if (url.startsWith("node:")) return "node:" + url.slice(5).split("/")[0]
  const src = /\/(packages\/[^/]+|bench)\//.exec(url)
  return src ? src[1]! : url
}

const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value)
const byPackage = new Map<string, number>()
const byFunction = new Map<string, number>()
for (const [id, micros] of selfMicros) {
  const node = byId.get(id)!
  const { functionName, url, lineNumber } = node.callFrame
  add(byPackage, packageOf(url), micros)
  add(byFunction, `${functionName || "(anonymous)"}  ${url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/main\//, "")}:${lineNumber + 1}`, micros)
}
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`)
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * micros) / total).toFixed(1).padStart(5)}%  ${key}`)
  }
}
console.log(`${file}: ${(total / 1e6).toFixed(1)} s busy${skipMicros > 0 ? ` after the first ${skipMicros / 1e6} s` : ""}`)
print("self time by package", byPackage)
print("self time by function", byFunction)
