/**
 * The peers beside Lore in bench/search.ts, on the same database and passages, for the same questions:
 *  - PostgreSQL ts_rank with the question's lexemes OR-ed, over Lore's own chunks (their tsvector and the
 *    GIN index chunks_search_idx), top 10: what a naive build on PostgreSQL does. No access filter.
 *  - SQLite FTS5 bm25() in process (better-sqlite3, porter tokenizer), loaded with the same searchable
 *    chunks (title and text), top 10: what an embedded alternative would use.
 */
import type pg from "pg"
import { type Latency, measureLatency } from "./latency"
import { sqliteFts5 } from "./quality-rankers"

const TS_RANK_SQL = `
  SELECT c.id FROM chunks c,
    (SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | '))
     FROM (SELECT DISTINCT v.lexeme FROM unnest(to_tsvector('english', $1)) AS v) AS t) AS q(query)
  WHERE c.searchable AND c.search_vector @@ q.query
  ORDER BY ts_rank(c.search_vector, q.query) DESC LIMIT 10`

export interface PeerLatency {
  readonly tsRank: Latency
  readonly fts5: Latency
}

/** Both peers for each set of questions (SQLite loaded once); answers in the order of `questionSets`. */
export const measurePeers = async (
  pool: pg.Pool,
  questionSets: ReadonlyArray<ReadonlyArray<string>>,
  options: { rounds: number; maxSeconds: number }
): Promise<ReadonlyArray<PeerLatency>> => {
  const timing = { rounds: options.rounds, maxSeconds: options.maxSeconds, concurrency: 1 }
  const tsRanks: Latency[] = []
  for (const questions of questionSets) {
    tsRanks.push(await measureLatency(questions.map((q) => async () => (await pool.query(TS_RANK_SQL, [q])).rows.length > 0), timing))
  }
  const { rows } = await pool.query<{ id: string; title: string; content: string }>(
    "SELECT c.id, s.title, c.content FROM chunks c JOIN sources s ON s.id = c.source_id WHERE c.searchable"
  )
  const fts = sqliteFts5(rows.map((r) => ({ id: r.id, title: r.title, text: r.content })))
  try {
    const peers: PeerLatency[] = []
    for (const [i, questions] of questionSets.entries()) {
      peers.push({ tsRank: tsRanks[i]!, fts5: await measureLatency(questions.map((q) => async () => (await fts.rank(q, 10)).length > 0), timing) })
    }
    return peers
  } finally {
    fts.close()
  }
}
