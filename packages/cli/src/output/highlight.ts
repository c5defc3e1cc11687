import type { Segment } from "./view"

/**
 * Search snippets: a window of a passage around the first query term the server found in it
 * (`evidence.highlights`), and that window split into plain and highlighted runs for the terminal; and
 * a cited excerpt split around the cited passage.
 */

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** One pattern for all terms, longest first so "vacation days" wins over "vacation"; undefined for none. */
const termsPattern = (highlights: ReadonlyArray<string>): RegExp | undefined => {
  const terms = [...new Set(highlights.map((term) => term.trim()).filter((term) => term.length > 0))].sort((a, b) => b.length - a.length)
  return terms.length === 0 ? undefined : new RegExp(terms.map(escapeRegExp).join("|"), "giu")
}

/**
 * About `width` characters of `content` (whitespace collapsed), starting a little before the first
 * highlighted term and cut at word boundaries, with `…` where text was left out.
 */
export const snippet = (content: string, highlights: ReadonlyArray<string>, width = 280): string => {
  const text = content.replace(/\s+/g, " ").trim()
  if (text.length <= width) return text
  const pattern = termsPattern(highlights)
  const firstHit = pattern ? text.search(pattern) : -1
  let start = firstHit <= 0 ? 0 : Math.max(0, firstHit - Math.floor(width / 4))
  if (start > 0) {
    const space = text.indexOf(" ", start)
    start = space !== -1 && space < firstHit ? space + 1 : start
  }
  let end = Math.min(text.length, start + width)
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end)
    if (space > start + width / 2) end = space
  }
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`
}

/** `text` as runs, emphasis `term` where a highlight term occurs (case-insensitive). */
export const highlightSegments = (text: string, highlights: ReadonlyArray<string>): Array<Segment> => {
  const pattern = termsPattern(highlights)
  if (!pattern) return [{ text }]
  const segments: Array<Segment> = []
  let last = 0
  for (const match of text.matchAll(pattern)) {
    const index = match.index ?? 0
    if (match[0].length === 0) continue
    if (index > last) segments.push({ text: text.slice(last, index) })
    segments.push({ text: match[0], emphasis: "term" })
    last = index + match[0].length
  }
  if (last < text.length) segments.push({ text: text.slice(last) })
  return segments
}

/**
 * `text` split around the cited passage, `start` to `end` (character offsets into `text`, end
 * exclusive). Offsets outside the text are clamped; none, or an empty range, mark nothing.
 */
export const citedSegments = (text: string, start: number | null | undefined, end: number | null | undefined): Array<Segment> => {
  if (start === null || start === undefined || end === null || end === undefined) return [{ text }]
  const from = Math.max(0, Math.min(text.length, start))
  const to = Math.max(from, Math.min(text.length, end))
  if (to === from) return [{ text }]
  return [{ text: text.slice(0, from) }, { text: text.slice(from, to), emphasis: "cited" as const }, { text: text.slice(to) }].filter((segment) => segment.text !== "")
}
