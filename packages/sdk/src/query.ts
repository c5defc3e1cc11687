import { LoreApiError } from "./errors"

/** A query parameter as callers give it: Dates are turned into the ISO 8601 strings the API expects. */
export type QueryValue = string | number | boolean | Date | null | undefined

/** A query type whose `Keys` (ISO 8601 strings in the document) also take a Date. */
export type WithDates<Query, Keys extends keyof Query> = Omit<Query, Keys> & { readonly [K in Keys]?: Query[K] | Date | undefined }

/** What toQuery makes of a caller's filter: Dates become strings, everything else stays as typed. */
export type EncodedQuery<Q> = {
  -readonly [K in keyof Q]?: Exclude<Q[K], undefined | null> extends Date ? string : Exclude<Exclude<Q[K], undefined | null>, Date>
}

/**
 * Turns a caller's filter object into URL query parameters: drops undefined/null and writes Dates as
 * ISO 8601. An invalid Date or a number that is not finite is refused here, with a LoreApiError of code
 * INVALID_ARGUMENT naming the parameter, rather than a RangeError or a request the server must refuse.
 */
export const toQuery = <Q extends object>(input: Q | undefined): EncodedQuery<Q> => {
  const query: Record<string, string | number | boolean> = {}
  for (const [key, value] of Object.entries((input ?? {}) as Record<string, QueryValue>)) {
    if (value === undefined || value === null) continue
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw LoreApiError.invalidArgument(`${key} is an invalid Date: pass a valid Date or an ISO 8601 string`)
      query[key] = value.toISOString()
    } else if (typeof value === "number" && !Number.isFinite(value)) {
      throw LoreApiError.invalidArgument(`${key} must be a finite number, not ${value}`)
    } else {
      query[key] = value
    }
  }
  return query as EncodedQuery<Q>
}
