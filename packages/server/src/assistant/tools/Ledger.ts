import type { ChatPassage } from "../Passages"

/**
 * The passages a turn has found, numbered once in order of discovery across every step: passage n is what a
 * model cites as [n], whichever step found it. A passage found again keeps its number.
 */
export const passageLedger = () => {
  const passages: Array<ChatPassage> = []
  const numbers = new Map<string, number>()
  const add = (passage: ChatPassage) => {
    const known = numbers.get(passage.citationId)
    if (known !== undefined) return known
    passages.push(passage)
    numbers.set(passage.citationId, passages.length)
    return passages.length
  }
  return {
    add,
    /** The number of the passage with this citation id, if found. */
    numberOf: (citationId: string) => numbers.get(citationId.toLowerCase()) ?? numbers.get(citationId),
    /** Passage n (1-based). */
    at: (number: number): ChatPassage | undefined => passages[number - 1],
    all: (): ReadonlyArray<ChatPassage> => passages,
    count: () => passages.length
  }
}
export type PassageLedger = ReturnType<typeof passageLedger>

/**
 * A tool's output with the passage numbers added: each hit (and an excerpt) whose citationId the ledger knows
 * gets `passage`, the number to cite. The model reads this, and the user sees the same.
 */
export const numberedOutput = (output: Record<string, unknown>, ledger: PassageLedger): Record<string, unknown> => {
  const numbered = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value
    const citationId = (value as { citationId?: unknown }).citationId
    const number = typeof citationId === "string" ? ledger.numberOf(citationId) : undefined
    return number === undefined ? value : { passage: number, ...value }
  }
  const hits = output.hits
  const withHits = Array.isArray(hits) ? { ...output, hits: hits.map(numbered) } : output
  return numbered(withHits) as Record<string, unknown>
}
