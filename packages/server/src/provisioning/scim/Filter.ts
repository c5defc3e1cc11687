import type { SqlClient, Statement } from "@effect/sql"
import { type Filter, parse } from "scim2-parse-filter"
import { quoteInput } from "../../domain/Echo"
import { deniedPathSegment } from "../../domain/SafeKeys"

/**
 * SCIM filters (RFC 7644 §3.4.2.2) as SQL: scim2-parse-filter parses the text, this turns its tree into a
 * predicate over the stored rows, so filtering happens in the database on PostgreSQL and PGlite alike.
 * Strings compare case-insensitively (caseExact false, as for userName and displayName); attribute names
 * are case-insensitive too.
 */
export class InvalidFilter extends Error {}

export const CORE_USER = "urn:ietf:params:scim:schemas:core:2.0:User"
export const CORE_GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
export const ENTERPRISE_USER = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"

type Fragment = Statement.Fragment

/** What an attribute path names, for one resource type. */
export type Operand =
  /** A column (or expression) of the row. */
  | { readonly kind: "column"; readonly expr: Fragment; readonly type: "string" | "boolean" | "date"; readonly caseExact?: boolean }
  /** A value inside a jsonb document, by path. */
  | { readonly kind: "json"; readonly doc: Fragment; readonly path: ReadonlyArray<string> }
  /** A multi-valued attribute stored as a jsonb array; `sub` is the element's attribute compared. */
  | { readonly kind: "array"; readonly doc: Fragment; readonly path: ReadonlyArray<string>; readonly sub: ReadonlyArray<string> }
  /** Membership (a group's members, a user's groups): compared by id through a join. */
  | { readonly kind: "membership"; readonly exists: (inner: (idExpr: Fragment) => Fragment) => Fragment }

export interface FilterTarget {
  /** The operand for an attribute path (already split: schema URN, attribute, sub-attribute). */
  readonly resolve: (path: ReadonlyArray<string>) => Operand
  /** For a value path `attr[...]`: the jsonb array to range over; undefined when the attribute is not multi-valued. */
  readonly elements: (path: ReadonlyArray<string>) => Fragment | undefined
}

/** `urn:...:User:name.givenName` -> ["urn:...:User", "name", "givenName"]; the core schema's URN is dropped. */
export const splitPath = (attrPath: string): Array<string> => {
  let rest = attrPath
  let urn: string | undefined
  const lower = attrPath.toLowerCase()
  if (lower.startsWith("urn:")) {
    for (const known of [CORE_USER, CORE_GROUP, ENTERPRISE_USER]) {
      if (lower.startsWith(known.toLowerCase() + ":")) {
        urn = known
        rest = attrPath.slice(known.length + 1)
        break
      }
    }
    if (urn === undefined) {
      const cut = attrPath.lastIndexOf(":")
      urn = attrPath.slice(0, cut)
      rest = attrPath.slice(cut + 1)
    }
  }
  const parts = rest.split(".").filter((p) => p.length > 0)
  return urn === undefined || urn === CORE_USER || urn === CORE_GROUP ? parts : [urn, ...parts]
}

/** Limits on one filter (docs/security.md): its length, and how deeply its parentheses and brackets nest. */
export const MAX_FILTER_LENGTH = 4096
export const MAX_FILTER_DEPTH = 16

/** The deepest nesting of ( and [ outside string literals; counted before the (recursive) parser runs. */
const textDepth = (text: string) => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === "\\") i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === "(" || c === "[") deepest = Math.max(deepest, ++depth)
    else if (c === ")" || c === "]") depth = Math.max(0, depth - 1)
  }
  return deepest
}

/** The depth of a parsed filter (and/or/not/value paths), walked without recursion. */
const treeDepth = (filter: Filter) => {
  let deepest = 0
  const stack: Array<[unknown, number]> = [[filter, 1]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    deepest = Math.max(deepest, depth)
    const f = node as { filters?: Array<Filter>; filter?: Filter; valFilter?: Filter }
    for (const child of [...(f.filters ?? []), f.filter, f.valFilter]) if (child) stack.push([child, depth + 1])
  }
  return deepest
}

export const parseFilter = (text: string): Filter => {
  if (text.length > MAX_FILTER_LENGTH) throw new InvalidFilter(`The filter is longer than ${MAX_FILTER_LENGTH} characters`)
  if (textDepth(text) > MAX_FILTER_DEPTH) throw new InvalidFilter(`The filter nests deeper than ${MAX_FILTER_DEPTH} levels`)
  let parsed: Filter
  try {
    parsed = parse(text)
  } catch (error) {
    throw new InvalidFilter(`The filter could not be parsed: ${quoteInput(error instanceof Error ? error.message.split("\n")[0] : "syntax error")}`)
  }
  if (treeDepth(parsed) > MAX_FILTER_DEPTH) throw new InvalidFilter(`The filter nests deeper than ${MAX_FILTER_DEPTH} levels`)
  return parsed
}

/** Timestamps a filter may compare with: years 0001-9999 (outside them PostgreSQL refuses the value). */
const MIN_FILTER_DATE = Date.parse("0001-01-01T00:00:00.000Z")
const MAX_FILTER_DATE = Date.parse("9999-12-31T23:59:59.999Z")
const filterDate = (value: unknown): Date => {
  const time = typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(time)) throw new InvalidFilter("A date attribute compares with an ISO 8601 date-time")
  if (time < MIN_FILTER_DATE || time > MAX_FILTER_DATE) throw new InvalidFilter("A date in a filter must be within the years 0001-9999")
  return new Date(time)
}

/** An attribute path's segments, refusing those that name an object's prototype (domain/SafeKeys.ts). */
const safePath = (attrPath: string) => {
  if (deniedPathSegment(attrPath) !== null) throw new InvalidFilter("The filter names an attribute that is not allowed")
  return splitPath(attrPath)
}

type CompareOp = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "lt" | "ge" | "le"

/** Compiles a parsed filter into a predicate. */
export const compileFilter = (sql: SqlClient.SqlClient, target: FilterTarget, filter: Filter): Fragment => {
  let depth = 0

  const textCompare = (text: Fragment, op: CompareOp | "pr", value: unknown, caseExact = false): Fragment => {
    if (op === "pr") return sql`(${text} IS NOT NULL AND ${text} <> '')`
    if (value === null) {
      if (op === "eq") return sql`(${text} IS NULL)`
      if (op === "ne") return sql`(${text} IS NOT NULL)`
      throw new InvalidFilter(`${op} cannot compare with null`)
    }
    if (typeof value === "boolean") {
      const v = String(value)
      if (op === "eq") return sql`(lower(${text}) = ${v})`
      if (op === "ne") return sql`(lower(${text}) IS DISTINCT FROM ${v})`
      throw new InvalidFilter(`${op} does not apply to booleans`)
    }
    if (typeof value === "number") {
      const numeric = sql`(CASE WHEN ${text} ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN (${text})::numeric END)`
      return compareWith(numeric, op, sql`${value}::numeric`)
    }
    const s = String(value)
    const left = caseExact ? text : sql`lower(${text})`
    const right = caseExact ? sql`${s}::text` : sql`lower(${s}::text)`
    switch (op) {
      case "co": return sql`(strpos(${left}, ${right}) > 0)`
      case "sw": return sql`(left(${left}, length(${right})) = ${right})`
      case "ew": return sql`(right(${left}, length(${right})) = ${right})`
      default: return compareWith(left, op, right)
    }
  }

  const compareWith = (left: Fragment, op: CompareOp, right: Fragment): Fragment => {
    switch (op) {
      case "eq": return sql`(${left} = ${right})`
      case "ne": return sql`(${left} IS DISTINCT FROM ${right})`
      case "gt": return sql`(${left} > ${right})`
      case "ge": return sql`(${left} >= ${right})`
      case "lt": return sql`(${left} < ${right})`
      case "le": return sql`(${left} <= ${right})`
      default: throw new InvalidFilter(`${op} does not apply here`)
    }
  }

  const compareOperand = (operand: Operand, op: CompareOp | "pr", value: unknown): Fragment => {
    switch (operand.kind) {
      case "column":
        if (operand.type === "boolean") {
          if (op === "pr") return sql`(${operand.expr} IS NOT NULL)`
          const v = typeof value === "string" ? value.toLowerCase() === "true" : value
          if (typeof v !== "boolean") throw new InvalidFilter("A boolean attribute compares with true or false")
          if (op === "eq") return sql`(${operand.expr} = ${v})`
          if (op === "ne") return sql`(${operand.expr} <> ${v})`
          throw new InvalidFilter(`${op} does not apply to booleans`)
        }
        if (operand.type === "date") {
          if (op === "pr") return sql`(${operand.expr} IS NOT NULL)`
          const date = filterDate(value)
          if (op === "co" || op === "sw" || op === "ew") throw new InvalidFilter(`${op} does not apply to dates`)
          return compareWith(operand.expr, op, sql`${date}::timestamptz`)
        }
        return textCompare(operand.expr, op, value, operand.caseExact)
      case "json":
        return textCompare(sql`(${operand.doc} #>> ${operand.path as Array<string>}::text[])`, op, value)
      case "array": {
        const alias = sql.literal(`e${depth++}`)
        const element = sql`(${alias}.v #>> ${operand.sub as Array<string>}::text[])`
        const inner = op === "pr" && operand.sub.length === 0 ? sql`true` : textCompare(operand.sub.length === 0 ? sql`(${alias}.v #>> '{}')` : element, op, value)
        return sql`EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${operand.doc} #> ${operand.path as Array<string>}::text[]) = 'array' THEN ${operand.doc} #> ${operand.path as Array<string>}::text[] ELSE '[]'::jsonb END) AS ${alias}(v) WHERE ${inner})`
      }
      case "membership":
        if (op === "pr") return operand.exists(() => sql`true`)
        return operand.exists((id) => textCompare(sql`${id}::text`, op, value))
    }
  }

  const compile = (f: Filter, scope: FilterTarget): Fragment => {
    switch (f.op) {
      case "and":
      case "or": {
        // One flat AND/OR list, not a left-nested chain, so a long list does not nest deeply in SQL either.
        const parts = (f as { filters: Array<Filter> }).filters.map((x) => compile(x, scope))
        return f.op === "and" ? sql.and(parts) : sql.or(parts)
      }
      case "not":
        return sql`(NOT coalesce(${compile((f as { filter: Filter }).filter, scope)}, false))`
      case "[]": {
        const vp = f as { attrPath: string; valFilter: Filter }
        const path = safePath(vp.attrPath)
        const elements = scope.elements(path)
        if (elements === undefined) {
          // A membership attribute (members[value eq "..."]): only `value` can be filtered on.
          const operand = scope.resolve(path)
          if (operand.kind === "membership") return compile(vp.valFilter, { resolve: () => operand, elements: () => undefined })
          throw new InvalidFilter(`${quoteInput(vp.attrPath)} is not multi-valued`)
        }
        const alias = sql.literal(`e${depth++}`)
        const elementScope: FilterTarget = {
          resolve: (sub) => ({ kind: "json", doc: sql`${alias}.v`, path: sub }),
          elements: () => undefined
        }
        return sql`EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${elements}) = 'array' THEN ${elements} ELSE '[]'::jsonb END) AS ${alias}(v) WHERE ${compile(vp.valFilter, elementScope)})`
      }
      case "pr":
        return compareOperand(scope.resolve(safePath((f as { attrPath: string }).attrPath)), "pr", undefined)
      case "eq": case "ne": case "co": case "sw": case "ew": case "gt": case "lt": case "ge": case "le": {
        const c = f as { attrPath: string; compValue: unknown; op: CompareOp }
        return compareOperand(scope.resolve(safePath(c.attrPath)), c.op, c.compValue)
      }
      default:
        throw new InvalidFilter(`Unsupported filter operator ${quoteInput(String((f as { op?: unknown }).op))}`)
    }
  }

  return compile(filter, target)
}
