import { createHash } from "node:crypto"
import { countWords } from "./text"
import type { Block, Chunk, ChunkOptions, ParsedDocument } from "./types"

/**
 * Heading- and page-aware chunking.
 *
 * - A chunk never crosses a top-level section: those headings always end the current chunk.
 * - A deeper heading ends the chunk too, unless the chunk is still short (under a third of the
 *   target); then the small subsection joins it, its heading kept as a line of the text, and the
 *   chunk keeps the heading path of where it started.
 * - Inside a section, chunks close at about `targetWords`; the next one repeats the last
 *   `overlapWords` (whole trailing sentences where possible). No overlap across headings.
 * - A paragraph longer than the target is split at sentence ends, a sentence longer than the
 *   target at word boundaries, so no chunk exceeds targetWords + overlapWords.
 * - startPage/endPage are the first and last pages of the text in the chunk (overlap included).
 */

interface Unit {
  readonly text: string
  readonly words: number
  readonly page: number | undefined
}

interface Draft {
  units: Unit[]
  words: number
  path: ReadonlyArray<string>
}

const DEFAULT_TARGET_WORDS = 350
const DEFAULT_OVERLAP_WORDS = 50

export const chunkDocument = (parsed: ParsedDocument, options: ChunkOptions): Chunk[] => {
  const target = Math.max(20, Math.floor(options.targetWords ?? DEFAULT_TARGET_WORDS))
  const overlap = Math.max(0, Math.min(Math.floor(options.overlapWords ?? DEFAULT_OVERLAP_WORDS), Math.floor(target / 2)))
  const mergeBelow = Math.floor(target / 3)
  // A document of headings only (slides, outlines) is indexed by its headings.
  const blocks: ReadonlyArray<Block> = parsed.blocks.some((block) => block.kind === "text")
    ? parsed.blocks
    : parsed.blocks.map((block) => ({ ...block, kind: "text" as const }))
  const top = topLevel(blocks)

  const drafts: Draft[] = []
  const stack: Array<{ readonly level: number; readonly text: string }> = []
  let current: Draft = { units: [], words: 0, path: [] }
  let carry: Unit[] = []
  let pendingHeadings: Unit[] = []

  const close = (withCarry: boolean) => {
    if (current.words > 0) {
      drafts.push(current)
      carry = withCarry && overlap > 0 ? tail(current.units, overlap) : []
    } else {
      carry = []
    }
    current = { units: [], words: 0, path: stack.map((h) => h.text) }
  }
  const add = (unit: Unit) => {
    current.units.push(unit)
    current.words += unit.words
  }

  for (const block of blocks) {
    if (block.kind === "heading") {
      const level = block.level ?? 1
      if (level <= top || current.words >= mergeBelow) {
        close(false)
        pendingHeadings = []
      } else if (current.words > 0) {
        pendingHeadings.push(unit(block.text, block.page))
      }
      carry = []
      while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop()
      stack.push({ level, text: block.text })
      if (current.words === 0) current.path = stack.map((h) => h.text)
      continue
    }
    for (const piece of pieces(block, target)) {
      const incoming = pendingHeadings.reduce((n, h) => n + h.words, piece.words)
      if (current.words > 0 && current.words + incoming > target) {
        close(pendingHeadings.length === 0)
        if (pendingHeadings.length > 0) {
          // The subsection did not fit after all: it starts its own chunk under its own heading.
          current.path = stack.map((h) => h.text)
          pendingHeadings = []
        }
      }
      if (current.words === 0 && carry.length > 0) carry.forEach(add)
      carry = []
      pendingHeadings.forEach(add)
      pendingHeadings = []
      add(piece)
    }
  }
  close(false)

  return drafts.map((draft, ordinal) => {
    const text = draft.units.map((u) => u.text).join("\n\n")
    const pages = draft.units.flatMap((u) => (u.page === undefined ? [] : [u.page]))
    const contentHash = createHash("sha256").update(text).digest("hex")
    return {
      id: chunkId(options.sourceRevisionId, ordinal, contentHash),
      ordinal,
      text,
      headingPath: draft.path,
      heading: draft.path[draft.path.length - 1] ?? null,
      startPage: pages.length > 0 ? pages[0]! : null,
      endPage: pages.length > 0 ? Math.max(...pages) : null,
      wordCount: countWords(text),
      contentHash
    }
  })
}

const unit = (text: string, page: number | undefined): Unit => ({ text, words: countWords(text), page })

/**
 * The level whose headings divide the document: the outermost one, unless it occurs only once
 * (a document title above its sections), in which case the next one in.
 */
const topLevel = (blocks: ReadonlyArray<Block>): number => {
  const counts = new Map<number, number>()
  for (const block of blocks) if (block.kind === "heading") counts.set(block.level ?? 1, (counts.get(block.level ?? 1) ?? 0) + 1)
  const levels = [...counts.keys()].sort((a, b) => a - b)
  if (levels.length === 0) return 0
  return counts.get(levels[0]!) === 1 && levels.length > 1 ? levels[1]! : levels[0]!
}

const SENTENCE_END = /(?<=[.!?…:;])\s+(?=\S)/u

/** A text block as units of at most `max` words: whole if it fits, else by sentences, else by words. */
const pieces = (block: Block, max: number): Unit[] => {
  const whole = unit(block.text, block.page)
  if (whole.words <= max) return whole.words > 0 ? [whole] : []
  const out: Unit[] = []
  let buffer: string[] = []
  let words = 0
  const flush = () => {
    if (buffer.length > 0) out.push({ text: buffer.join(" "), words, page: block.page })
    buffer = []
    words = 0
  }
  for (const sentence of block.text.split(SENTENCE_END)) {
    const n = countWords(sentence)
    if (n > max) {
      flush()
      const all = sentence.split(/\s+/).filter((w) => w !== "")
      for (let i = 0; i < all.length; i += max) out.push({ text: all.slice(i, i + max).join(" "), words: Math.min(max, all.length - i), page: block.page })
      continue
    }
    if (words + n > max) flush()
    buffer.push(sentence)
    words += n
  }
  flush()
  return out
}

/** The last ~`limit` words of a chunk: whole trailing sentences, or the final words of a long one. */
const tail = (units: ReadonlyArray<Unit>, limit: number): Unit[] => {
  const last = units[units.length - 1]
  if (last === undefined) return []
  const sentences = last.text.split(SENTENCE_END)
  const kept: string[] = []
  let words = 0
  for (let i = sentences.length - 1; i >= 0; i--) {
    const n = countWords(sentences[i]!)
    if (words + n > limit) {
      if (kept.length === 0) {
        const all = sentences[i]!.split(/\s+/).filter((w) => w !== "")
        kept.unshift(all.slice(-limit).join(" "))
        words = Math.min(limit, all.length)
      }
      break
    }
    kept.unshift(sentences[i]!)
    words += n
  }
  return words > 0 ? [{ text: kept.join(" "), words, page: last.page }] : []
}

/** Fixed namespace for chunk ids (a random v4, chosen once for Lore). */
const CHUNK_NAMESPACE = "5b1d7c52-4f0e-4a8e-9d3c-2f6a1e9b7c40"

/** RFC 4122 name-based (version 5, SHA-1) UUID of (revision, ordinal, text hash). */
export const chunkId = (sourceRevisionId: string, ordinal: number, contentHash: string): string => {
  const hash = createHash("sha1")
    .update(Buffer.from(CHUNK_NAMESPACE.replace(/-/g, ""), "hex"))
    .update(`${sourceRevisionId}\n${ordinal}\n${contentHash}`)
    .digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
