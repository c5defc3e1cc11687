/**
 * Exact BM25 of early termination's candidates in the process, from each chunk's `search_vector` in its binary
 * form (`tsvectorsend`): one row per candidate, where scoring them in SQL reads and joins ~120 postings rows
 * each (17-19 ms for 500 candidates at 100k chunks, docs/benchmarks.md).
 *
 * The binary form: the lexeme count (int32), then per lexeme its UTF-8 bytes, a NUL, its position count
 * (uint16) and each position (uint16, the label in the top two bits: 3 A, 2 B, 1 C, 0 D).
 * A term's frequency weighs its positions by label as `search_postings.frequency` does (title A x2, heading B
 * x1.5, body x1), and the saturation is SearchIndexReader's, operation for operation, so scores equal the
 * exhaustive statement's up to the order of the sum.
 */

/** A query term and its weight (IDF x query term frequency). */
export interface WeightedTerm {
  readonly term: string
  readonly weight: number
}

/** A candidate chunk as read: its id, its length in tokens, and `tsvectorsend(search_vector)`. */
export interface ChunkVector {
  readonly id: string
  readonly tokenCount: number
  readonly vector: Uint8Array
}

export interface Bm25Parameters {
  readonly k1: number
  readonly b: number
  readonly avgLen: number
}

/** A position's weight by its label bits (D, C, B, A). */
const LABEL_WEIGHTS = [1, 1, 1.5, 2] as const

interface EncodedTerm {
  readonly bytes: Uint8Array
  readonly weight: number
}

const encoder = new TextEncoder()

/**
 * The query terms by their UTF-8 length (an array indexed by length: one lookup per lexeme of every candidate,
 * ~60k a long question), so a lexeme is compared byte by byte only with terms as long as it.
 */
const byLength = (terms: ReadonlyArray<WeightedTerm>) => {
  const lengths: Array<Array<EncodedTerm> | undefined> = []
  for (const { term, weight } of terms) {
    const bytes = encoder.encode(term)
    while (lengths.length <= bytes.length) lengths.push(undefined)
    ;(lengths[bytes.length] ??= []).push({ bytes, weight })
  }
  return lengths
}

const matching = (candidates: ReadonlyArray<EncodedTerm> | undefined, vector: Uint8Array, start: number, length: number) => {
  if (candidates === undefined) return undefined
  for (const candidate of candidates) {
    let i = 0
    while (i < length && candidate.bytes[i] === vector[start + i]) i++
    if (i === length) return candidate
  }
  return undefined
}

/**
 * Each chunk's BM25 score for the terms; a chunk holding none of them is left out (as the SQL join leaves it).
 * Best first, ties by id (the SQL order: uuids compare as their lowercase text).
 */
export const scoreVectors = (terms: ReadonlyArray<WeightedTerm>, chunks: ReadonlyArray<ChunkVector>, { k1, b, avgLen }: Bm25Parameters) => {
  const lengths = byLength(terms)
  const scored: Array<{ id: string; score: number }> = []
  for (const chunk of chunks) {
    const vector = chunk.vector
    const view = new DataView(vector.buffer, vector.byteOffset, vector.byteLength)
    const lexemes = view.getInt32(0)
    const lengthNorm = k1 * (1 - b + b * chunk.tokenCount / avgLen)
    let at = 4
    let score = 0
    let matched = false
    for (let n = 0; n < lexemes; n++) {
      const start = at
      while (vector[at] !== 0) at++
      const term = at - start < lengths.length ? matching(lengths[at - start], vector, start, at - start) : undefined
      const positions = view.getUint16(at + 1)
      at += 3
      if (term !== undefined) {
        let frequency = 0
        for (let p = 0; p < positions; p++) frequency += LABEL_WEIGHTS[view.getUint16(at + 2 * p) >>> 14]!
        score += term.weight * ((frequency * (k1 + 1)) / (frequency + lengthNorm))
        matched = true
      }
      at += 2 * positions
    }
    if (matched) scored.push({ id: chunk.id, score })
  }
  return scored.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
}
