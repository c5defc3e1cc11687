/**
 * Caller-controlled keys and attribute paths that could reach an object's prototype. Every path or key a caller
 * sends (SCIM PATCH paths and values, attributes lists, POST/PUT bodies, skill metadata, sourceConfig maps) is
 * checked here before any library sees it: refusing is the guard; null-prototype objects are the second wall.
 */
const deniedSegments = new Set(["__proto__", "prototype", "constructor"])

/** Whether one key or path segment is denied (compared as JavaScript would look it up, case-sensitively). */
export const isDeniedKey = (key: string): boolean => deniedSegments.has(key)

/** The segments of an attribute path as SCIM and dotted notations write them: split on `.`, `:` and brackets. */
export const pathSegments = (path: string): ReadonlyArray<string> =>
  path.split(/[.:[\]\s]+/).filter((segment) => segment.length > 0)

/** The first denied segment of a dotted/URN path, or null. */
export const deniedPathSegment = (path: string): string | null =>
  pathSegments(path).find(isDeniedKey) ?? null

/**
 * The first denied key anywhere in a JSON value (each key also read as a dotted path, since libraries such as
 * scim-patch split `"a.__proto__"`), or null. Iterative with a bounded depth, so a deeply nested value cannot
 * overflow the stack: past `maxDepth` it answers the sentinel `"(too deep)"`, which callers refuse too.
 */
export const findDeniedKey = (value: unknown, maxDepth = 64): string | null => {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!
    if (current === null || typeof current !== "object") continue
    if (depth > maxDepth) return "(too deep)"
    if (Array.isArray(current)) {
      for (const item of current) stack.push({ value: item, depth: depth + 1 })
      continue
    }
    for (const key of Object.keys(current)) {
      const denied = isDeniedKey(key) ? key : deniedPathSegment(key)
      if (denied !== null) return denied
      stack.push({ value: (current as Record<string, unknown>)[key], depth: depth + 1 })
    }
  }
  return null
}

/** An empty object with no prototype: what every map built from caller keys starts from. */
export const nullPrototypeObject = <V = unknown>(): Record<string, V> => Object.create(null) as Record<string, V>

/** A copy of a plain JSON value whose objects, at every depth, have null prototypes (denied keys dropped). */
export const withNullPrototypes = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map(withNullPrototypes)
  const copy = nullPrototypeObject()
  for (const [key, item] of Object.entries(value)) {
    if (!isDeniedKey(key)) copy[key] = withNullPrototypes(item)
  }
  return copy
}
