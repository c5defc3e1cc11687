/**
 * Runs the benchmarks in bench/*.ts (each module's default export), optionally only those named: a word that is a
 * benchmark's whole name picks that one (`npm run bench -- me` is not also `recommendations`), any other word every
 * benchmark whose name contains it (`npm run bench -- crawl`).
 * Benchmarks print figures; none asserts on wall time.
 */
import { readdirSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

export interface BenchmarkModule {
  /** One line saying what the benchmark measures. */
  readonly description?: string
  readonly default: () => Promise<void>
}

const here = dirname(fileURLToPath(import.meta.url))
const available = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && file !== "run.ts")
  .map((file) => basename(file, ".ts"))
  .sort()

const filters = process.argv.slice(2).filter((arg) => !arg.startsWith("-"))
const picks = (filter: string) => (name: string) => available.includes(filter) ? name === filter : name.includes(filter)
const chosen = filters.length === 0 ? available : available.filter((name) => filters.some((f) => picks(f)(name)))

if (chosen.length === 0) {
  console.error(`No benchmark matches ${filters.join(", ")}; available: ${available.join(", ")}`)
  process.exit(2)
}

for (const name of chosen) {
  const module: BenchmarkModule = await import(pathToFileURL(join(here, `${name}.ts`)).href)
  console.log(`\n=== bench/${name}.ts${module.description ? ` — ${module.description}` : ""}\n`)
  await module.default()
}
