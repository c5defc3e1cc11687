import { type Document, isAlias, isMap, isScalar, isSeq, parseDocument } from "yaml"
import { isDeniedKey, nullPrototypeObject } from "../../domain/SafeKeys"
import type { SkillProblem } from "./Archive"

/**
 * SKILL.md's YAML frontmatter, read with bounded work whatever the input (docs/security.md, "Parsers"):
 * the frontmatter is capped before YAML sees it, yaml's own duplicate-key check (`uniqueKeys`, quadratic in
 * the number of keys) is off, and the document is walked here instead of by `toJS`, checking duplicate keys
 * with a Set per mapping, counting aliases and every node reached (through aliases too, so a billion-laughs
 * file stops at the budget) and refusing keys that could reach a prototype. The values come back in
 * null-prototype objects.
 */

/** The Agent Skills fields fit in a few hundred bytes; 16 KiB leaves room for generous metadata. */
export const MAX_FRONTMATTER_BYTES = 16 * 1024
/** Aliases (`*name`) in one frontmatter: none are needed; a few are tolerated (yaml's toJS default was 100). */
export const MAX_FRONTMATTER_ALIASES = 10
/** Nodes (keys, values, sequence items) reached while reading, aliases expanded. */
export const MAX_FRONTMATTER_NODES = 2_000
/** Mappings and sequences inside one another (the format itself needs 2: `metadata` and its entries). */
export const MAX_FRONTMATTER_DEPTH = 8

export type Frontmatter =
  | { readonly ok: true; readonly fields: Record<string, unknown>; readonly instructions: string }
  | { readonly ok: false; readonly problems: Array<SkillProblem> }

const problem = (code: string, message: string, path = "SKILL.md"): { ok: false; problems: Array<SkillProblem> } => ({ ok: false, problems: [{ code, path, message }] })

const DELIMITER = /^---[ \t]*\r?$/

/** A closing '---' line anywhere after `from` (one native regex pass). */
const CLOSING = /\n---[ \t]*\r?(?:\n|$)/g

/**
 * The frontmatter's text and what follows it, found line by line (linear, unlike a lazy regex over the whole
 * file), looking no further than the cap: past it, one regex pass tells a too-large frontmatter from none.
 */
const split = (body: string): { readonly yaml: string; readonly rest: string } | "missing" | "too-large" => {
  const firstEnd = body.indexOf("\n")
  if (firstEnd < 0 || !DELIMITER.test(body.slice(0, firstEnd))) return "missing"
  let at = firstEnd + 1
  while (at < body.length) {
    // More characters than the cap has bytes: too large, whatever they encode to.
    if (at - firstEnd > MAX_FRONTMATTER_BYTES + 1) {
      CLOSING.lastIndex = at - 1
      return CLOSING.test(body) ? "too-large" : "missing"
    }
    const end = body.indexOf("\n", at)
    const line = end < 0 ? body.slice(at) : body.slice(at, end)
    if (line.startsWith("---") && DELIMITER.test(line)) {
      return { yaml: body.slice(firstEnd + 1, Math.max(firstEnd + 1, at - 1)).replace(/\r$/, ""), rest: end < 0 ? "" : body.slice(end + 1) }
    }
    if (end < 0) break
    at = end + 1
  }
  return "missing"
}

class Refused extends Error {
  constructor(readonly result: { ok: false; problems: Array<SkillProblem> }) {
    super(result.problems[0]!.code)
  }
}

interface Budget {
  nodes: number
  aliases: number
}

const lineOf = (yaml: string, offset: number | undefined) => {
  if (offset === undefined) return ""
  let line = 2 // the opening '---' is line 1 of SKILL.md
  for (let i = 0; i < offset && i < yaml.length; i++) if (yaml.charCodeAt(i) === 10) line++
  return ` (line ${line})`
}

/** The node as a plain value (null-prototype objects), or a Refused thrown at the first broken limit. */
const valueOf = (node: unknown, document: Document, yaml: string, budget: Budget, depth: number, path: string): unknown => {
  if (node === null || node === undefined) return null
  if (++budget.nodes > MAX_FRONTMATTER_NODES) {
    throw new Refused(problem("FRONTMATTER_TOO_LARGE", `the frontmatter holds more than ${MAX_FRONTMATTER_NODES} keys and values (aliases expanded)`))
  }
  if (isAlias(node)) {
    if (++budget.aliases > MAX_FRONTMATTER_ALIASES) {
      throw new Refused(problem("FRONTMATTER_INVALID_YAML", `the frontmatter uses more than ${MAX_FRONTMATTER_ALIASES} YAML aliases`))
    }
    const target = node.resolve(document)
    if (target === undefined) throw new Refused(problem("FRONTMATTER_INVALID_YAML", `the frontmatter is not valid YAML${lineOf(yaml, node.range?.[0])}: an alias names no anchor`))
    return valueOf(target, document, yaml, budget, depth, path)
  }
  if (isScalar(node)) return node.value
  if (depth >= MAX_FRONTMATTER_DEPTH) {
    throw new Refused(problem("FRONTMATTER_TOO_DEEP", `the frontmatter nests mappings or lists deeper than ${MAX_FRONTMATTER_DEPTH} levels`))
  }
  if (isSeq(node)) return node.items.map((item) => valueOf(item, document, yaml, budget, depth + 1, path))
  if (isMap(node)) {
    const out = nullPrototypeObject()
    const seen = new Set<string>()
    for (const pair of node.items) {
      const key = isAlias(pair.key) ? valueOf(pair.key, document, yaml, budget, depth + 1, path) : isScalar(pair.key) ? pair.key.value : undefined
      ++budget.nodes
      if (key !== null && typeof key === "object") throw new Refused(problem("FRONTMATTER_INVALID_YAML", `the frontmatter is not valid YAML: keys must be plain words`))
      const name = String(key ?? "")
      const keyAt = isScalar(pair.key) ? pair.key.range?.[0] : undefined
      if (isDeniedKey(name)) {
        throw new Refused(problem("FRONTMATTER_KEY_NOT_ALLOWED", "__proto__, constructor and prototype are not allowed as keys", `SKILL.md#${path}${path ? "." : ""}${name}`))
      }
      if (seen.has(name)) throw new Refused(problem("FRONTMATTER_INVALID_YAML", `the frontmatter is not valid YAML${lineOf(yaml, keyAt)}: DUPLICATE_KEY`))
      seen.add(name)
      out[name] = valueOf(pair.value, document, yaml, budget, depth + 1, path ? `${path}.${name.slice(0, 64)}` : name.slice(0, 64))
    }
    return out
  }
  throw new Refused(problem("FRONTMATTER_INVALID_YAML", "the frontmatter is not valid YAML"))
}

/** SKILL.md's frontmatter fields (a null-prototype mapping) and its body, or why not. */
export const readFrontmatter = (text: string): Frontmatter => {
  const body = text.replace(/^\uFEFF/, "")
  const parts = split(body)
  if (parts === "missing") return problem("FRONTMATTER_MISSING", "SKILL.md must start with YAML frontmatter between '---' lines")
  if (parts === "too-large" || Buffer.byteLength(parts.yaml, "utf8") > MAX_FRONTMATTER_BYTES) {
    return problem("FRONTMATTER_TOO_LARGE", `the frontmatter is larger than ${MAX_FRONTMATTER_BYTES} bytes (16 KiB); put long text in the instructions below it`)
  }
  // yaml's own parser spends long on deep flow nesting (5,000 '[' took 0.4 s): a cheap count refuses it first.
  let open = 0
  for (let i = 0; i < parts.yaml.length; i++) {
    const c = parts.yaml.charCodeAt(i)
    if (c === 91 || c === 123) open++
    else if ((c === 93 || c === 125) && open > 0) open--
    if (open > 4 * MAX_FRONTMATTER_DEPTH) return problem("FRONTMATTER_TOO_DEEP", `the frontmatter nests mappings or lists deeper than ${MAX_FRONTMATTER_DEPTH} levels`)
  }
  let document: Document
  try {
    // uniqueKeys off: duplicates are found below with a Set (yaml's check compares every pair of keys).
    document = parseDocument(parts.yaml, { uniqueKeys: false, prettyErrors: false, version: "1.2", schema: "core" }) as Document
  } catch {
    return problem("FRONTMATTER_INVALID_YAML", "the frontmatter is not valid YAML")
  }
  if (document.errors.length > 0) {
    const first = document.errors[0]!
    return problem("FRONTMATTER_INVALID_YAML", `the frontmatter is not valid YAML${lineOf(parts.yaml, first.pos?.[0])}: ${first.code}`)
  }
  if (!isMap(document.contents)) return problem("FRONTMATTER_NOT_A_MAPPING", "the frontmatter must be a mapping of fields")
  try {
    const fields = valueOf(document.contents, document, parts.yaml, { nodes: 0, aliases: 0 }, 0, "") as Record<string, unknown>
    return { ok: true, fields, instructions: parts.rest }
  } catch (error) {
    if (error instanceof Refused) return error.result
    return problem("FRONTMATTER_INVALID_YAML", "the frontmatter is not valid YAML")
  }
}
