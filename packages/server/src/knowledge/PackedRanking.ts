/**
 * Early termination's accumulation over packed postings (search_blocks, migration 0025), done in the process
 * because PostgreSQL spends ~0.8 µs a posting reading and grouping rows, and this ~0.1 µs: a long question
 * reads ~50k postings.
 */

/** A packed posting: the chunk id's 16 bytes, then its impact as a big-endian float4. */
export const POSTING_BYTES = 20

/** One query term's postings as read: its weight, the bound on one it did not read (`cut`), and its packed blocks. */
export interface PackedList {
  readonly weight: number
  /** The term's weight times the highest impact of a posting not read (0 when the list was read whole). */
  readonly cut: number
  /** How far a posting's true term-frequency part may exceed its stored impact (see SearchIndexReader `bounds`). */
  readonly factor: number
  readonly blocks: ReadonlyArray<Uint8Array>
}

export interface PackedCandidates {
  /** The best `candidates` chunks by the weighted sum of the impacts read, best first. */
  readonly ids: ReadonlyArray<string>
  /**
   * The best score a chunk not among them could reach: every cut, plus the most a chunk read but not chosen
   * exceeds the cuts by; -1 when every list was read whole and every chunk read was chosen (the ranking of
   * the chosen is then exhaustive BM25's).
   */
  readonly unscoredBound: number
}

/** Each byte's two hex digits, as a table: writing 500 ids a search through toString, padStart and slice showed in profiles. */
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"))
const wordHex = (word: number) => BYTE_HEX[word >>> 24]! + BYTE_HEX[(word >>> 16) & 255]! + BYTE_HEX[(word >>> 8) & 255]! + BYTE_HEX[word & 255]!
const halfHex = (half: number) => BYTE_HEX[(half >>> 8) & 255]! + BYTE_HEX[half & 255]!
/** The uuid whose 16 bytes are the big-endian words a, b, c, d. */
const uuidOf = (a: number, b: number, c: number, d: number) =>
  `${wordHex(a)}-${halfHex(b >>> 16)}-${halfHex(b)}-${halfHex(c >>> 16)}-${halfHex(c)}${wordHex(d)}`

/** The k-th largest value (1-based) of `values`, which it reorders (Hoare's selection, middle pivot). */
const kthLargest = (values: Float64Array, k: number): number => {
  let low = 0
  let high = values.length - 1
  const target = k - 1
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!
    let i = low
    let j = high
    while (i <= j) {
      while (values[i]! > pivot) i++
      while (values[j]! < pivot) j--
      if (i <= j) {
        const swap = values[i]!
        values[i++] = values[j]!
        values[j--] = swap
      }
    }
    if (target <= j) high = j
    else if (target >= i) low = i
    else return values[target]!
  }
  return values[target]!
}

/**
 * The open-addressing table's arrays, kept between calls and grown as needed: a long question's are several
 * megabytes, which V8 allocates as large objects that only a full collection frees. Safe to share: a call runs
 * synchronously.
 */
let scratch = { size: 0, keys: new Int32Array(0), taken: new Uint8Array(0), partial: new Float64Array(0), excess: new Float64Array(0), used: new Int32Array(0), sums: new Float64Array(0) }

/** The table's arrays for `size` slots, the slots' flags and sums cleared (only the first `size` slots are used). */
const scratchFor = (size: number) => {
  if (scratch.size < size) {
    scratch = { size, keys: new Int32Array(size * 4), taken: new Uint8Array(size), partial: new Float64Array(size), excess: new Float64Array(size), used: new Int32Array(size), sums: new Float64Array(size) }
  } else {
    scratch.taken.fill(0, 0, size)
    scratch.partial.fill(0, 0, size)
    scratch.excess.fill(0, 0, size)
  }
  return scratch
}

/**
 * Sums each chunk's postings over the lists (an open-addressing table keyed by the id's four words), then
 * takes the best `candidates` by that sum. A chunk's `excess` is what its postings read could add beyond the
 * cuts at most (impact x factor, capped at `maxTermScore`, less the term's cut), as in the SQL statement.
 */
export const packedCandidates = (lists: ReadonlyArray<PackedList>, candidates: number, maxTermScore: number): PackedCandidates => {
  let postings = 0
  for (const list of lists) for (const block of list.blocks) postings += block.length / POSTING_BYTES
  let size = 1024
  while (size < postings * 2) size *= 2
  const mask = size - 1
  const { keys, taken, partial, excess, used, sums: sumsScratch } = scratchFor(size)
  let count = 0
  let unread = 0
  for (const { weight, cut, factor, blocks } of lists) {
    unread += cut
    for (const block of blocks) {
      const view = new DataView(block.buffer, block.byteOffset, block.byteLength)
      for (let at = 0; at + POSTING_BYTES <= block.byteLength; at += POSTING_BYTES) {
        const a = view.getInt32(at), b = view.getInt32(at + 4), c = view.getInt32(at + 8), d = view.getInt32(at + 12)
        let slot = (Math.imul(a ^ d, 0x9e3779b1) ^ b ^ c) & mask
        while (taken[slot] === 1) {
          const k = slot * 4
          if (keys[k] === a && keys[k + 1] === b && keys[k + 2] === c && keys[k + 3] === d) break
          slot = (slot + 1) & mask
        }
        if (taken[slot] === 0) {
          taken[slot] = 1
          const k = slot * 4
          keys[k] = a
          keys[k + 1] = b
          keys[k + 2] = c
          keys[k + 3] = d
          used[count++] = slot
        }
        const impact = view.getFloat32(at + 16)
        partial[slot]! += weight * impact
        excess[slot]! += weight * Math.min(maxTermScore, impact * factor) - cut
      }
    }
  }
  // The `candidates`-th best sum (a selection, linear on average), then one pass to pick.
  let threshold = -Infinity
  if (count > candidates) {
    const sums = sumsScratch.subarray(0, count)
    for (let i = 0; i < count; i++) sums[i] = partial[used[i]!]!
    threshold = kthLargest(sums, candidates)
  }
  const chosen: Array<number> = []
  const tied: Array<number> = []
  let bestExcess = 0
  for (let i = 0; i < count; i++) {
    const slot = used[i]!
    if (partial[slot]! > threshold) chosen.push(slot)
    else if (partial[slot] === threshold) tied.push(slot)
    else bestExcess = Math.max(bestExcess, excess[slot]!)
  }
  for (const slot of tied) {
    if (chosen.length < candidates) chosen.push(slot)
    else bestExcess = Math.max(bestExcess, excess[slot]!)
  }
  chosen.sort((x, y) => partial[y]! - partial[x]!)
  const ids = chosen.map((slot) => uuidOf(keys[slot * 4]!, keys[slot * 4 + 1]!, keys[slot * 4 + 2]!, keys[slot * 4 + 3]!))
  return { ids, unscoredBound: unread === 0 && count <= candidates ? -1 : unread + bestExcess }
}
