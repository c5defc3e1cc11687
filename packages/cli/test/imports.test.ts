import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const src = fileURLToPath(new URL("../src", import.meta.url))

const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
  })

/** The module a relative specifier names: `./x` is x.ts, x.tsx or x/index.ts. */
const moduleOf = (from: string, specifier: string): string | undefined => {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ""))
  return [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((candidate) => {
    try {
      return statSync(candidate).isFile()
    } catch {
      return false
    }
  })
}

/** Every relative import of a file, static, type-only and dynamic (`import("./ink")` counts: it is still a circle). */
const importsOf = (file: string): Array<string> =>
  ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith("."))
    .flatMap((name) => moduleOf(file, name) ?? [])

const cycles = (graph: Map<string, Array<string>>): Array<string> => {
  const found = new Set<string>()
  const state = new Map<string, "open" | "done">()
  const stack: Array<string> = []
  const visit = (node: string) => {
    state.set(node, "open")
    stack.push(node)
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.add([...stack.slice(stack.indexOf(next)), next].map((f) => relative(src, f)).join(" -> "))
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(node, "done")
  }
  for (const node of graph.keys()) if (!state.has(node)) visit(node)
  return [...found]
}

describe("modules of the CLI", () => {
  it("import one another without a circle", () => {
    const graph = new Map(files(src).map((file) => [file, importsOf(file)]))
    expect(cycles(graph)).toEqual([])
  })
})
