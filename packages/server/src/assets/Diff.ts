import { createTwoFilesPatch } from "diff"
import { canonicalJson } from "./Digest"

export interface FieldChange {
  readonly path: string
  readonly change: "ADDED" | "REMOVED" | "CHANGED"
  readonly before?: unknown
  readonly after?: unknown
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)

/** Leaf-level changes between two JSON values, by dotted path (array elements by index), in path order. */
export const fieldChanges = (before: unknown, after: unknown, path = ""): Array<FieldChange> => {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
    return keys.flatMap((key) => {
      const at = path ? `${path}.${key}` : key
      if (!(key in before)) return [{ path: at, change: "ADDED" as const, after: after[key] }]
      if (!(key in after)) return [{ path: at, change: "REMOVED" as const, before: before[key] }]
      return fieldChanges(before[key], after[key], at)
    })
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    return Array.from({ length: Math.max(before.length, after.length) }, (_, i) => {
      const at = `${path}.${i}`
      if (i >= before.length) return [{ path: at, change: "ADDED" as const, after: after[i] }]
      if (i >= after.length) return [{ path: at, change: "REMOVED" as const, before: before[i] }]
      return fieldChanges(before[i], after[i], at)
    }).flat()
  }
  return canonicalJson(before) === canonicalJson(after) ? [] : [{ path, change: "CHANGED", before, after }]
}

/** Canonical JSON pretty-printed (keys sorted), so a line diff shows changes and nothing else. */
const pretty = (value: unknown) => (value === undefined ? "" : JSON.stringify(JSON.parse(canonicalJson(value)), null, 2) + "\n")

/** A unified diff between the base release's content and the revision's, as `git diff` prints it. */
export const unifiedPatch = (baseLabel: string, before: unknown, revisionLabel: string, after: unknown) =>
  createTwoFilesPatch(baseLabel, revisionLabel, pretty(before), pretty(after), "", "", { context: 3 })
