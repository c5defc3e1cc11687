import { Either } from "effect"

/**
 * The OpenAI `/v1/embeddings` answer, decoded and checked without trusting the provider: pure functions,
 * each failure answered as a reason a person can read.
 */

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/

/** Decodes base64 of little-endian float32 values (OpenAI's `encoding_format: "base64"`), whatever the host's byte order. */
export const decodeBase64Float32 = (text: string): Either.Either<Float32Array, string> => {
  if (!base64Pattern.test(text) || text.length % 4 !== 0) return Either.left("an embedding is not valid base64")
  const bytes = Buffer.from(text, "base64")
  if (bytes.byteLength % 4 !== 0) return Either.left(`a base64 embedding has ${bytes.byteLength} bytes, not a whole number of float32 values`)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const vector = new Float32Array(bytes.byteLength / 4)
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true)
  return Either.right(vector)
}

/** Encodes float32 values as little-endian base64 (what a provider sends; used by the test provider). */
export const encodeBase64Float32 = (vector: ArrayLike<number>): string => {
  const bytes = Buffer.alloc(vector.length * 4)
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4)
  return bytes.toString("base64")
}

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

const toVector = (embedding: unknown, position: number): Either.Either<Float32Array, string> => {
  // Tolerate either encoding whatever was asked: some servers ignore encoding_format.
  if (typeof embedding === "string") return decodeBase64Float32(embedding)
  if (!Array.isArray(embedding)) return Either.left(`data[${position}].embedding is neither a number array nor a base64 string`)
  const vector = new Float32Array(embedding.length)
  for (let i = 0; i < embedding.length; i++) {
    const value = embedding[i]
    if (typeof value !== "number") return Either.left(`data[${position}].embedding[${i}] is not a number`)
    vector[i] = value
  }
  return Either.right(vector)
}

/**
 * Checks an answer to a request of `count` inputs and answers its vectors in input order, L2-normalized:
 * exactly `count` items whose `index` values are 0..count-1 (in any order; a server that leaves `index`
 * out entirely is taken in answer order), each of `dimensions` finite numbers.
 */
export const decodeEmbeddingResponse = (
  body: unknown,
  expected: { readonly count: number; readonly dimensions: number }
): Either.Either<ReadonlyArray<Float32Array>, string> => {
  if (!isRecord(body) || !Array.isArray(body.data)) return Either.left(`the answer has no "data" array`)
  const data: ReadonlyArray<unknown> = body.data
  if (data.length !== expected.count) return Either.left(`${data.length} embeddings came back for ${expected.count} inputs`)
  const withoutIndex = data.every((item) => isRecord(item) && item.index === undefined)
  const vectors: Array<Float32Array | undefined> = new Array(expected.count)
  for (let position = 0; position < data.length; position++) {
    const item = data[position]
    if (!isRecord(item)) return Either.left(`data[${position}] is not an object`)
    const index = withoutIndex ? position : item.index
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected.count) {
      return Either.left(`data[${position}].index is ${JSON.stringify(index)}, expected an integer from 0 to ${expected.count - 1}`)
    }
    if (vectors[index] !== undefined) return Either.left(`index ${index} appears twice in the answer`)
    const vector = toVector(item.embedding, position)
    if (Either.isLeft(vector)) return Either.left(vector.left)
    if (vector.right.length !== expected.dimensions) {
      return Either.left(`vectors have ${vector.right.length} dimensions, expected ${expected.dimensions}`)
    }
    for (let i = 0; i < vector.right.length; i++) {
      if (!Number.isFinite(vector.right[i]!)) return Either.left(`data[${position}].embedding[${i}] is not a finite number`)
    }
    vectors[index] = normalizeL2(vector.right)
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
