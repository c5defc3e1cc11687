import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const src = fileURLToPath(new URL("../../src", import.meta.url))

const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) ? [path] : []
  })

/** The folder a source file belongs to: its top folder under src/, or the root file itself (App.ts, Config.ts...). */
const folderOf = (file: string) => {
  const [first, ...rest] = relative(src, file).split("/")
  return rest.length === 0 ? first!.replace(/\.tsx?$/, "") : first!
}

interface Edge {
  readonly from: string
  readonly to: string
  readonly file: string
  readonly target: string
}

const imports = (file: string): ReadonlyArray<string> =>
  ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => relative(src, resolve(dirname(file), name)))

const edges: ReadonlyArray<Edge> = files(src).flatMap((file) =>
  imports(file).map((target) => ({ from: folderOf(file), to: folderOf(join(src, target + ".ts")), file: relative(src, file), target }))
).filter((edge) => edge.from !== edge.to)

/**
 * The one sanctioned import into http/: an area's handler file (<area>/Http.ts, <area>/<Part>Http.ts, or a sub-feature's <area>/<feature>/Http.ts) reads the assembled API
 * (http/Api.ts) to implement its group. It points "up" by design, so it is left out of the cycle check.
 */
const isHandlerReadingApi = (edge: Edge) => edge.to === "http" && /^[^/]+\/([a-z-]+\/)?[A-Za-z]*Http\.ts$/.test(edge.file) && edge.target === "http/Api"

const cycles = (graph: ReadonlyArray<Edge>): Array<Array<string>> => {
  const next = new Map<string, Set<string>>()
  for (const edge of graph) next.set(edge.from, (next.get(edge.from) ?? new Set()).add(edge.to))
  const found: Array<Array<string>> = []
  const visit = (node: string, path: Array<string>) => {
    for (const to of next.get(node) ?? []) {
      const at = path.indexOf(to)
      if (at >= 0) found.push([...path.slice(at), to])
      else visit(to, [...path, to])
    }
  }
  for (const node of next.keys()) visit(node, [node])
  // The same cycle is found from each of its nodes: keep one, rotated to start at its smallest node.
  const unique = new Map<string, Array<string>>()
  for (const cycle of found) {
    const ring = cycle.slice(1)
    const start = ring.indexOf([...ring].sort()[0]!)
    const rotated = [...ring.slice(start), ...ring.slice(0, start)]
    unique.set(rotated.join(">"), [...rotated, rotated[0]!])
  }
  return [...unique.values()]
}

describe("folder dependencies of the server", () => {
  it("the kernel (domain/) imports nothing of Lore", () => {
    expect(edges.filter((edge) => edge.from === "domain")).toEqual([])
  })

  it("no area file imports http/ except its handler file reading the assembled API", () => {
    // The composition root (App.ts, with Handlers.ts listing each handler group's services, and index.ts) assembles http/ and the areas.
    const offending = edges.filter((edge) => edge.to === "http" && !["App", "Handlers", "index"].includes(edge.from) && !isHandlerReadingApi(edge))
    expect(offending.map((edge) => `${edge.file} -> ${edge.target}`)).toEqual([])
  })

  it("no area reads another area's repository: it asks that area's services", () => {
    const offending = edges.filter((edge) => /Repo$/.test(edge.target.split("/").pop()!))
    expect(offending.map((edge) => `${edge.file} -> ${edge.target}`)).toEqual([])
  })

  it("has no cycle between folders", () => {
    const found = cycles(edges.filter((edge) => !isHandlerReadingApi(edge)))
    const explain = found.map((cycle) =>
      cycle.slice(1).map((to, i) => {
        const from = cycle[i]!
        const witness = edges.find((edge) => edge.from === from && edge.to === to)!
        return `${witness.file} -> ${witness.target}`
      }).join("  |  ")
    )
    expect(explain).toEqual([])
  })
})
