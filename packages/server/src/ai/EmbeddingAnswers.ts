import { Either } from "effect"

/**
 * The checks Lore adds to the provider library's embeddings answer, without trusting the provider: pure
 * functions, each failure answered as a reason a person can read. The library decodes the JSON (float
 * arrays) and keeps the answer's order; Lore restores the input order from `index`, checks the count and the
 * size, and normalizes.
 */

/** Scales to unit length in place, so cosine similarity is a dot product; a zero vector stays zero. */
export const normalizeL2 = (vector: Float32Array): Float32Array => {
  let sum = 0
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!
  const norm = Math.sqrt(sum)
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm
  return vector
}

/** Dot product; the cosine similarity of two normalized vectors. */
export const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let sum = 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!
  return sum
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Checks the vectors the library read from an answer to `count` inputs (`embeddings`, in answer order, with
 * the answer's raw body for the items' `index`) and answers them in input order, L2-normalized: exactly
 * `count` vectors whose `index` values are 0..count-1 (in any order; a server that leaves `index` out
 * entirely is taken in answer order), each of `dimensions` finite numbers.
 */
export const checkEmbeddings = (
  embeddings: ReadonlyArray<ReadonlyArray<number>>,
  body: unknown,
  expected: { readonly count: number; readonly dimensions: number }
): Either.Either<ReadonlyArray<Float32Array>, string> => {
  if (embeddings.length !== expected.count) return Either.left(`${embeddings.length} embeddings came back for ${expected.count} inputs`)
  const data: ReadonlyArray<unknown> = isRecord(body) && Array.isArray(body.data) && body.data.length === embeddings.length ? body.data : []
  const withoutIndex = data.length === 0 || data.every((item) => isRecord(item) && item.index === undefined)
  const vectors: Array<Float32Array | undefined> = new Array(expected.count)
  for (let position = 0; position < embeddings.length; position++) {
    const item = data[position]
    const index = withoutIndex ? position : isRecord(item) ? item.index : undefined
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected.count) {
      return Either.left(`data[${position}].index is ${JSON.stringify(index)}, expected an integer from 0 to ${expected.count - 1}`)
    }
    if (vectors[index] !== undefined) return Either.left(`index ${index} appears twice in the answer`)
    const embedding = embeddings[position]!
    if (embedding.length !== expected.dimensions) return Either.left(`vectors have ${embedding.length} dimensions, expected ${expected.dimensions}`)
    const vector = Float32Array.from(embedding)
    for (let i = 0; i < vector.length; i++) {
      if (!Number.isFinite(vector[i]!)) return Either.left(`data[${position}].embedding[${i}] is not a finite number`)
    }
    vectors[index] = normalizeL2(vector)
  }
  return Either.right(vectors as ReadonlyArray<Float32Array>)
}

/** The provider's own error message: OpenAI's `{ error: { message } }`, `{ error: "..." }`, `{ message }`, or the text. */
export const providerMessageOf = (text: string): string | undefined => {
  let message: unknown = text
  try {
    const body: unknown = JSON.parse(text)
    if (isRecord(body)) {
      message = isRecord(body.error) ? (body.error.message ?? body.error) : (body.error ?? body.message ?? body.detail ?? text)
    }
  } catch {
    // not JSON: the text itself
  }
  const raw = typeof message === "string" ? message : (JSON.stringify(message) ?? "")
  const trimmed = raw.replace(/\s+/g, " ").trim()
  if (trimmed === "") return undefined
  return trimmed.length > 300 ? `${trimmed.slice(0, 300)}…` : trimmed
}

/**
 * Milliseconds to wait from the provider's headers: OpenAI's `retry-after-ms`, else `Retry-After` as
 * seconds or an HTTP date.
 */
export const retryAfterMsOf = (headers: Readonly<Record<string, string | undefined>>, now = Date.now()): number | undefined => {
  const ms = Number(headers["retry-after-ms"])
  if (headers["retry-after-ms"] !== undefined && Number.isFinite(ms) && ms >= 0) return Math.ceil(ms)
  const value = headers["retry-after"]?.trim()
  if (!value) return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
