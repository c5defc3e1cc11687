const MARKER = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g
/** An unfinished marker at the end of a delta ("[", "[1", "[1, "), held back until the next delta completes it. */
const OPEN_TAIL = /\[[\d,\s]{0,16}$/

/**
 * Renumbers an answer's citation markers as it streams. A model cites the passages by their position in the
 * prompt ([3] is the third passage); the reader sees them numbered in order of first use ([1] is the first
 * passage the answer cites), and only cited passages become citations. Markers split across deltas are held
 * back until complete; a number that names no passage is left as written and cites nothing.
 *
 * In the tool loop passages arrive step by step, so the count may be a function (read at each marker); one
 * numbering serves every step, so a number means the same passage wherever it appears. `startText` begins a
 * new text (a step's), and `citedInText` answers the positions that text cited: only the answer's are saved.
 */
export const citationNumbering = (passageCount: number | (() => number)) => {
  const numbers = new Map<number, number>()
  let held = ""
  let inText = new Set<number>()

  const rewrite = (text: string) =>
    text.replace(MARKER, (marker, list: string) => {
      const positions = list.split(",").map((part) => Number(part.trim()))
      const count = typeof passageCount === "function" ? passageCount() : passageCount
      if (positions.some((position) => position < 1 || position > count)) return marker
      const renumbered = positions.map((position) => {
        let number = numbers.get(position)
        if (number === undefined) {
          number = numbers.size + 1
          numbers.set(position, number)
        }
        inText.add(position)
        return number
      })
      return renumbered.map((number) => `[${number}]`).join("")
    })

  return {
    /** The delta as the reader sees it (possibly empty while a marker is incomplete). */
    push: (delta: string) => {
      const text = held + delta
      const open = text.match(OPEN_TAIL)
      held = open ? open[0] : ""
      return rewrite(open ? text.slice(0, open.index) : text)
    },
    /** Whatever was held back, at the end of the answer. */
    flush: () => {
      const rest = rewrite(held)
      held = ""
      return rest
    },
    /** The cited passages' positions (1-based) in order of first use: citation n is `used()[n - 1]`. */
    used: (): ReadonlyArray<number> => [...numbers.entries()].sort((a, b) => a[1] - b[1]).map(([position]) => position),
    /** Begins a new text: `citedInText` forgets what earlier texts cited (their numbers stay). */
    startText: () => {
      inText = new Set()
    },
    /** The current text's cited passages as [position, number], in number order. */
    citedInText: (): ReadonlyArray<readonly [number, number]> =>
      [...inText].map((position) => [position, numbers.get(position)!] as const).sort((a, b) => a[1] - b[1])
  }
}

/** A conversation's title from its first question: the first line, whitespace collapsed, cut at a word near 60 characters. */
export const titleFrom = (question: string) => {
  const line = question.split(/\r?\n/).map((part) => part.trim()).find((part) => part.length > 0) ?? question.trim()
  const flat = line.replace(/\s+/g, " ")
  if (flat.length <= 60) return flat
  const cut = flat.slice(0, 60)
  const space = cut.lastIndexOf(" ")
  return `${(space > 30 ? cut.slice(0, space) : cut).replace(/[\s,;:.!?-]+$/, "")}…`
}
