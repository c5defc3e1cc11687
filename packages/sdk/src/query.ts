/** A query parameter as callers give it: numbers and Dates are turned into the strings the API expects. */
export type QueryValue = string | number | boolean | Date | null | undefined

/** Strings (and their literal unions) stay as they are; numbers, booleans and Dates become strings. */
export type EncodedQuery<Q> = {
  -readonly [K in keyof Q]?: Exclude<Q[K], undefined | null> extends string ? Exclude<Q[K], undefined | null>
    : Exclude<Q[K], undefined | null> extends number ? number
    : string
}

/**
 * Turns a caller's filter object into URL query parameters: drops undefined/null, writes Dates as ISO
 * 8601 and numbers as decimal strings (the API decodes e.g. `pageSize` from a string).
 */
export const toQuery = <Q extends object>(input: Q | undefined): EncodedQuery<Q> => {
  const query: Record<string, string | number> = {}
  for (const [key, value] of Object.entries((input ?? {}) as Record<string, QueryValue>)) {
    if (value === undefined || value === null) continue
    query[key] = value instanceof Date ? value.toISOString() : typeof value === "number" ? value : String(value)
  }
  return query as EncodedQuery<Q>
}
