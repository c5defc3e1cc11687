/**
 * The in-process ranking recommendations used before they were ranked in SQL (issue 33.13, migration 0040,
 * assets/DeliveryRepo.ts `recommended`), kept as bench/recommendations.ts's baseline: Okapi BM25 (k1 1.2, b 0.75) over each release's title,
 * summary and body (the payload's text), with the title's terms counted twice, document frequencies taken over
 * the releases the caller may use (the candidates, already access-filtered in SQL). OR semantics: a release that
 * shares any term with the request is a candidate; without a request, the newest releases come first.
 */

const STOPWORDS = new Set(
  ("a an and are as at be been but by can could did do does for from had has have how i if in into is it its me my of on or our " +
    "should so than that the their them then there these they this to was we were what when where which who whom why will with would " +
    "you your about any all also after before between both each few more most other some such only own same too very just not no nor").split(" ")
)

/** Lower-cased words, stop words dropped, a light suffix stemming (plurals, -ing, -ed). */
export const terms = (text: string): Array<string> =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((word) => word.length > 1 && !STOPWORDS.has(word))
    .map((word) => (word.length > 4 ? word.replace(/(ing|ed|es|s)$/, "") : word.replace(/s$/, "")))

/** Every string inside a payload (JSON text), keys left out: what the body says. */
export const payloadText = (payload: string): string => {
  const parts: Array<string> = []
  const walk = (value: unknown, depth: number) => {
    if (depth > 20 || parts.length > 5_000) return
    if (typeof value === "string") parts.push(value)
    else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1)
    else if (value && typeof value === "object") for (const item of Object.values(value)) walk(item, depth + 1)
  }
  try {
    walk(JSON.parse(payload), 0)
  } catch {
    parts.push(payload)
  }
  return parts.join(" ").slice(0, 200_000)
}

export interface RankableRelease {
  readonly title: string
  readonly summary: string
  readonly payload: string
}

const K1 = 1.2
const B = 0.75

/** BM25 scores of `releases` for `query`, in their order; 0 for a release that shares no term with it. */
export const bm25Scores = (query: string, releases: ReadonlyArray<RankableRelease>): Array<number> => {
  const wanted = [...new Set(terms(query))]
  if (wanted.length === 0) return releases.map(() => 0)
  const documents = releases.map((release) => {
    const words = [...terms(release.title), ...terms(release.title), ...terms(release.summary), ...terms(payloadText(release.payload))]
    const frequency = new Map<string, number>()
    for (const word of words) frequency.set(word, (frequency.get(word) ?? 0) + 1)
    return { length: words.length, frequency }
  })
  const count = documents.length
  const averageLength = documents.reduce((sum, d) => sum + d.length, 0) / Math.max(count, 1) || 1
  const idf = new Map(wanted.map((term) => {
    const holding = documents.filter((d) => d.frequency.has(term)).length
    return [term, Math.log(1 + (count - holding + 0.5) / (holding + 0.5))]
  }))
  return documents.map((d) =>
    wanted.reduce((score, term) => {
      const f = d.frequency.get(term) ?? 0
      return f === 0 ? score : score + idf.get(term)! * (f * (K1 + 1)) / (f + K1 * (1 - B + B * d.length / averageLength))
    }, 0))
}
