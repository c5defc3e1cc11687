/**
 * Ranking metrics at a cutoff over graded judgements (grade 0 = not relevant): nDCG with gains 2^grade - 1
 * and a log2(rank + 1) discount, Recall (relevant documents found / all relevant), reciprocal rank of the
 * first relevant document. Averaged over questions by the caller.
 */
export type Judgements = Readonly<Record<string, number>>

export interface Scores {
  readonly ndcg: number
  readonly recall: number
  readonly rr: number
}

const gain = (grade: number) => 2 ** grade - 1
const discount = (index: number) => 1 / Math.log2(index + 2)

export const score = (ranked: ReadonlyArray<string>, judged: Judgements, cutoff = 10): Scores => {
  const top = ranked.slice(0, cutoff)
  const dcg = top.reduce((sum, id, i) => sum + gain(judged[id] ?? 0) * discount(i), 0)
  const ideal = Object.values(judged).filter((g) => g > 0).sort((a, b) => b - a).slice(0, cutoff)
  const idcg = ideal.reduce((sum, g, i) => sum + gain(g) * discount(i), 0)
  const relevant = Object.values(judged).filter((g) => g > 0).length
  const found = top.filter((id) => (judged[id] ?? 0) > 0).length
  const first = top.findIndex((id) => (judged[id] ?? 0) > 0)
  return { ndcg: idcg === 0 ? 0 : dcg / idcg, recall: relevant === 0 ? 0 : found / relevant, rr: first < 0 ? 0 : 1 / (first + 1) }
}

export const mean = (all: ReadonlyArray<Scores>): Scores => {
  const n = Math.max(1, all.length)
  return {
    ndcg: all.reduce((s, x) => s + x.ndcg, 0) / n,
    recall: all.reduce((s, x) => s + x.recall, 0) / n,
    rr: all.reduce((s, x) => s + x.rr, 0) / n
  }
}
