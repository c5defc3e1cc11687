import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const src = fileURLToPath(new URL("../src", import.meta.url))

const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : /\.ts$/.test(name) ? [path] : []
  })

/** A relative import as a file of src/ (`./areas/admin` is `areas/admin/index.ts`); type-only imports count too. */
const resolveImport = (from: string, specifier: string) => {
  const base = resolve(dirname(from), specifier)
  const file = [`${base}.ts`, join(base, "index.ts")].find(existsSync)
  if (!file) throw new Error(`${relative(src, from)} imports ${specifier}, which is not a file of src/`)
  return relative(src, file)
}

const graph = new Map<string, ReadonlyArray<string>>(
  files(src).map((file) => [
    relative(src, file),
    ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles
      .map((ref) => ref.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => resolveImport(file, name))
  ])
)

const cycles = (): Array<Array<string>> => {
  const found: Array<Array<string>> = []
  const done = new Set<string>()
  const visit = (file: string, path: Array<string>) => {
    if (done.has(file)) return
    for (const target of graph.get(file) ?? []) {
      const at = path.indexOf(target)
      if (at >= 0) found.push([...path.slice(at), target])
      else visit(target, [...path, target])
    }
    done.add(file)
  }
  for (const file of graph.keys()) visit(file, [file])
  return found
}

describe("the SDK's module graph", () => {
  it("has no import cycle, type-only imports included", () => {
    expect(cycles()).toEqual([])
  })

  it("areas take the fetch client's type from fetchClient.ts, never from client.ts (which imports every area)", () => {
    const areaFiles = [...graph.keys()].filter((file) => file.startsWith("areas/"))
    expect(areaFiles.length).toBeGreaterThan(5)
    for (const file of areaFiles) expect(graph.get(file), file).not.toContain("client.ts")
    expect(graph.get("client.ts")).toContain("fetchClient.ts")
  })

  it("keeps no hand-written copy of the API's types: src/types.ts is gone", () => {
    expect(graph.has("types.ts")).toBe(false)
  })

  it("detects a cycle when there is one (the check itself works)", () => {
    const saved = graph.get("fetchClient.ts")!
    graph.set("fetchClient.ts", [...saved, "client.ts"])
    try {
      expect(cycles().some((cycle) => cycle.includes("client.ts") && cycle.includes("fetchClient.ts"))).toBe(true)
    } finally {
      graph.set("fetchClient.ts", saved)
    }
  })
})
