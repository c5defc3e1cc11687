import { quoteInput } from "./Echo"

/**
 * Schema decode issues in words a person reads: which field, what was wrong, what is accepted. Effect's own
 * messages end in ", actual <the submitted value>": a 100 kB field or a secret in a wrong-shaped body would
 * come back in the response and land in logs. Nothing here ever repeats a submitted value.
 */
export interface DecodeIssue {
  readonly _tag?: string
  readonly path?: ReadonlyArray<PropertyKey>
  readonly message?: string
}

export interface FieldMessage {
  readonly path: string
  readonly message: string
}

const MAX_PATH = 120

const phrases: ReadonlyArray<readonly [RegExp, (...groups: Array<string>) => string]> = [
  [/^string$/, () => "text"],
  [/^number$/, () => "a number"],
  [/^boolean$/, () => "true or false"],
  [/^null$/, () => "null"],
  [/^an integer$/, () => "a whole number"],
  [/^a string at most (\d+) character\(s\) long$/, (n) => `at most ${n} characters`],
  [/^a string at least (\d+) character\(s\) long$/, (n) => (n === "1" ? "not empty" : `at least ${n} characters`)],
  [/^a string with no leading or trailing whitespace$/, () => "text without leading or trailing spaces"],
  [/^a Universally Unique Identifier$/, () => "a UUID"],
  [/^a number between (\S+) and (\S+)$/, (a, b) => `a number from ${a} to ${b}`],
  [/^a string matching the pattern .*$/, () => "in the documented format"],
  [/^"([^"]*)"$/, (literal) => `"${literal}"`]
]

/** What the schema expected, from Effect's message, in plain words; never the submitted value. */
const expectation = (issue: DecodeIssue): string | undefined => {
  const message = issue.message ?? ""
  if (issue._tag === "Missing") return undefined
  if (/^Unable to decode .* into a number$/s.test(message)) return "a number"
  if (/^Unable to decode .* into a Date$/s.test(message)) return "an ISO 8601 date-time"
  const expected = /^Expected ([\s\S]*?), actual [\s\S]*$/.exec(message)?.[1]
  if (expected === undefined) return "valid"
  for (const [pattern, say] of phrases) {
    const match = pattern.exec(expected)
    if (match) return say(...match.slice(1))
  }
  // An unknown phrasing: keep it only when it cannot carry input (it names the schema, not the value).
  return expected.length <= 80 && !/actual/.test(expected) ? expected : "valid"
}

/** A field's path, which may hold caller keys (a record's): cut to MAX_PATH bytes like any quoted input. */
const fieldPath = (issue: DecodeIssue) => quoteInput((issue.path ?? []).map(String).join("."), MAX_PATH)

const joinAlternatives = (alternatives: ReadonlyArray<string>) => {
  const literals = alternatives.filter((a) => a.startsWith('"')).map((a) => a.slice(1, -1))
  const others = alternatives.filter((a) => !a.startsWith('"'))
  const all = [...others, ...(literals.length > 0 ? [`one of ${literals.join(", ")}`] : [])]
  return all.length <= 1 ? all[0] ?? "valid" : `${all.slice(0, -1).join(", ")} or ${all.at(-1)}`
}

/** One message per field: the rule it broke and what is accepted. */
export const describeIssues = (issues: ReadonlyArray<DecodeIssue>): Array<FieldMessage> => {
  const byPath = new Map<string, Array<DecodeIssue>>()
  for (const issue of issues) {
    const path = fieldPath(issue)
    byPath.set(path, [...(byPath.get(path) ?? []), issue])
  }
  return [...byPath].map(([path, group]) => {
    if (group.some((issue) => issue._tag === "Missing")) return { path, message: "is required" }
    // Lore's own refinements already speak in words ("must not contain ...").
    const own = group.find((issue) => issue.message?.startsWith("must "))
    if (own) return { path, message: own.message! }
    const unexpected = group.find((issue) => issue._tag === "Unexpected")
    if (unexpected) {
      const accepted = [...(unexpected.message ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]!)
      return { path, message: accepted.length > 0 ? `is not accepted here; the accepted fields are ${accepted.join(", ")}` : "is not accepted here" }
    }
    // An optional field reports "Expected undefined" beside the real rule: leaving it out is always allowed.
    const alternatives = [...new Set(group.map(expectation).filter((e): e is string => e !== undefined && e !== "undefined"))]
    return { path, message: `must be ${joinAlternatives(alternatives)}`.replace("must be not empty", "must not be empty") }
  })
}

/** The problem's detail: every field and its rule, bounded in length. */
export const summarize = (fields: ReadonlyArray<FieldMessage>): string => {
  const text = fields.map((field) => (field.path === "" ? field.message : `${field.path} ${field.message}`)).join("; ")
  return `The request is invalid: ${text.length > 600 ? text.slice(0, 600) + "…" : text}`
}
