/**
 * Exact BM25 of early termination's candidates in the process, from each chunk's `search_vector` as text: one
 * row per candidate, where scoring them in SQL reads and joins ~120 postings rows each (17-19 ms for 500
 * candidates at 100k chunks, docs/benchmarks.md). The text form is read rather than the binary one
 * (`tsvectorsend`), because node-postgres receives every column as text: bytes came as hex, twice their size,
 * then decoded; the text form is 42% smaller than that hex and is scanned as it arrives.
 *
 * The text form (`tsvectorout`): lexemes in single quotes (a quote or backslash inside doubled), in order,
 * separated by a space; after each, `:` and its positions, comma-separated, each a number with its label
 * (`3A`, `5B`, `7C`; D is written bare). A term's frequency weighs its positions by label as
 * `search_postings.frequency` does (title A x2, heading B x1.5, body x1), and the saturation is
 * SearchIndexReader's, operation for operation, so scores equal the exhaustive statement's up to the order of
 * the sum.
 */

/** A query term and its weight (IDF x query term frequency). */
export interface WeightedTerm {
  readonly term: string
  readonly weight: number
}

/** A candidate chunk as read: its id, its length in tokens, and `search_vector::text`. */
export interface ChunkVector {
  readonly id: string
  readonly tokenCount: number
  readonly vector: string
}

export interface Bm25Parameters {
  readonly k1: number
  readonly b: number
  readonly avgLen: number
}

const QUOTE = 39
const COLON = 58
const COMMA = 44
const LABEL_A = 65
const LABEL_B = 66

interface QuotedTerm {
  /** The term as the text form writes it between its quotes. */
  readonly quoted: string
  readonly weight: number
}

/**
 * The query terms by the length of their quoted form (an array indexed by length: one lookup per lexeme of
 * every candidate, ~60k a long question), so a lexeme is compared only with terms as long as it.
 */
const byLength = (terms: ReadonlyArray<WeightedTerm>) => {
  const lengths: Array<Array<QuotedTerm> | undefined> = []
  for (const { term, weight } of terms) {
    const quoted = term.replace(/\\/g, "\\\\").replace(/'/g, "''")
    while (lengths.length <= quoted.length) lengths.push(undefined)
    ;(lengths[quoted.length] ??= []).push({ quoted, weight })
  }
  return lengths
}

/** The query term the lexeme quoted from `start` in `vector` is, if any (`candidates` are those of its length). */
const matching = (candidates: ReadonlyArray<QuotedTerm> | undefined, vector: string, start: number) => {
  if (candidates === undefined) return undefined
  for (const candidate of candidates) if (vector.startsWith(candidate.quoted, start)) return candidate
  return undefined
}

/** The weighted frequency of the positions at [from, to): each position by its label (A 2, B 1.5, C and D 1). */
const frequencyOf = (vector: string, from: number, to: number) => {
  let frequency = 0
  let label = 1
  for (let at = from; at < to; at++) {
    const code = vector.charCodeAt(at)
    if (code === COMMA) {
      frequency += label
      label = 1
    } else if (code === LABEL_A) label = 2
    else if (code === LABEL_B) label = 1.5
  }
  return from < to ? frequency + label : 0
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
    const end = vector.length
    const lengthNorm = k1 * (1 - b + b * chunk.tokenCount / avgLen)
    let score = 0
    let matched = false
    // `at` is on a lexeme's opening quote.
    for (let at = 0; at < end;) {
      const start = at + 1
      // The closing quote: the first one not doubled.
      let close = vector.indexOf("'", start)
      while (close >= 0 && vector.charCodeAt(close + 1) === QUOTE) close = vector.indexOf("'", close + 2)
      if (close < 0) break
      const next = vector.indexOf(" ", close)
      const stop = next < 0 ? end : next
      const length = close - start
      const term = length < lengths.length ? matching(lengths[length], vector, start) : undefined
      if (term !== undefined) {
        const frequency = vector.charCodeAt(close + 1) === COLON ? frequencyOf(vector, close + 2, stop) : 0
        score += term.weight * ((frequency * (k1 + 1)) / (frequency + lengthNorm))
        matched = true
      }
      at = stop + 1
    }
    if (matched) scored.push({ id: chunk.id, score })
  }
  return scored.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
}
