import { LoreApiError } from "./errors"

/** What every openapi-fetch call resolves to. */
export interface FetchResult<T> {
  readonly data?: T
  readonly error?: unknown
  readonly response: Response
}

/**
 * The one place where `{ data, error, response }` becomes a value or a thrown LoreApiError, so every
 * area method reads as a single line. openapi-fetch has already parsed the error body (JSON or text).
 */
export const unwrap = async <T>(call: Promise<FetchResult<T>>): Promise<T> => {
  const { data, error, response } = await call
  if (!response.ok) throw LoreApiError.fromBody(response, error)
  return data as T
}

/** For endpoints that answer 204. */
export const unwrapEmpty = async (call: Promise<FetchResult<unknown>>): Promise<void> => {
  await unwrap(call)
}
