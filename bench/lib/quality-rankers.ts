/**
 * The rankers bench/quality.ts compares Lore with, each over whole documents (title + text):
 *  - a textbook Okapi BM25 written here (Robertson/Sparck Jones IDF with +1 inside the log as Lucene has it,
 *    k1 1.2, b 0.75, Porter stemming, the Snowball English stopwords PostgreSQL's 'english' configuration
 *    uses, query term frequency counted);
 *  - SQLite FTS5's bm25() through better-sqlite3 (porter tokenizer over unicode61), the query's distinct
 *    non-stopword words OR-ed (what an embedded build would do);
 *  - PostgreSQL's ts_rank over a GIN-indexed tsvector (title weight A) with the query's lexemes OR-ed
 *    (what a naive build on PostgreSQL does), on any pg-speaking target.
 */
import Database from "better-sqlite3"
import { stemmer } from "stemmer"

export interface CorpusDocument {
  readonly id: string
  readonly title: string
  readonly text: string
}

/** A ranker answers a question with document ids, best first. */
export type Ranker = (question: string, limit: number) => Promise<ReadonlyArray<string>>

/** Snowball's English stop list, as PostgreSQL ships it (tsearch_data/english.stop). */
export const STOPWORDS = new Set(
  ("i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they " +
    "them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do does " +
    "did doing a an the and but if or because as until while of at by for with about against between into through during before after " +
    "above below to from up down in out on off over under again further then once here there when where why how all any both each few " +
    "more most other some such no nor not only own same so than too very s t can will just don should now").split(" ")
)

/** Lower-cased words (letters and digits; apostrophes split words, as PostgreSQL's parser does). */
export const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** Words without stopwords, Porter-stemmed. */
export const analyze = (text: string) => words(text).filter((w) => !STOPWORDS.has(w)).map((w) => stemmer(w))

export const K1 = 1.2
export const B = 0.75

/** Textbook Okapi BM25 over whole documents, in memory. */
export const textbookBm25 = (documents: ReadonlyArray<CorpusDocument>) => {
  const postings = new Map<string, Array<{ doc: number; tf: number }>>()
  const lengths: number[] = []
  documents.forEach((document, doc) => {
    const terms = analyze(`${document.title}\n${document.text}`)
    lengths.push(terms.length)
    const counts = new Map<string, number>()
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1)
    for (const [term, tf] of counts) {
      const list = postings.get(term) ?? []
      list.push({ doc, tf })
      postings.set(term, list)
    }
  })
  const n = documents.length
  const avgLength = lengths.reduce((a, b) => a + b, 0) / n
  const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5))
  const rank: Ranker = async (question, limit) => {
    const queryTerms = new Map<string, number>()
    for (const term of analyze(question)) queryTerms.set(term, (queryTerms.get(term) ?? 0) + 1)
    const scores = new Map<number, number>()
    for (const [term, qtf] of queryTerms) {
      const list = postings.get(term)
      if (!list) continue
      const weight = qtf * idf(list.length)
      for (const { doc, tf } of list) {
        const norm = tf + K1 * (1 - B + (B * lengths[doc]!) / avgLength)
        scores.set(doc, (scores.get(doc) ?? 0) + (weight * tf * (K1 + 1)) / norm)
      }
    }
    return [...scores.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([doc]) => documents[doc]!.id)
  }
  return rank
}

/** SQLite FTS5 in memory, bm25() with the default column weights (1, 1). */
export const sqliteFts5 = (documents: ReadonlyArray<CorpusDocument>): { rank: Ranker; close: () => void } => {
  const db = new Database(":memory:")
  db.exec("CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, body, tokenize = 'porter unicode61')")
  const insert = db.prepare("INSERT INTO docs (id, title, body) VALUES (?, ?, ?)")
  db.transaction(() => {
    for (const d of documents) insert.run(d.id, d.title, d.text)
  })()
  const search = db.prepare("SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?").pluck()
  const rank: Ranker = async (question, limit) => {
    const distinct = [...new Set(words(question).filter((w) => !STOPWORDS.has(w)))]
    if (distinct.length === 0) return []
    return search.all(distinct.map((w) => `"${w}"`).join(" OR "), limit) as string[]
  }
  return { rank, close: () => db.close() }
}

/** The query's lexemes OR-ed into a tsquery, in SQL (as CANDIDATES_SQL in bench/search.ts does). */
const OR_QUERY = `(SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | '))
  FROM (SELECT DISTINCT v.lexeme FROM unnest(to_tsvector('english', $1)) AS v) AS t)`

/** Anything that answers SQL with rows (a pg Client or Pool, PGlite). */
export interface SqlTarget {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>
}

/** Loads the documents into `quality_docs` (a tsvector with the title weighted A, GIN index) on the target. */
export const loadTsRank = async (target: SqlTarget, documents: ReadonlyArray<CorpusDocument>) => {
  await target.query("DROP TABLE IF EXISTS quality_docs")
  await target.query("CREATE TABLE quality_docs (id text PRIMARY KEY, title text NOT NULL, body text NOT NULL, tsv tsvector)")
  for (let start = 0; start < documents.length; start += 200) {
    const slice = documents.slice(start, start + 200)
    await target.query(
      `INSERT INTO quality_docs (id, title, body, tsv)
       SELECT id, title, body, setweight(to_tsvector('english', title), 'A') || to_tsvector('english', body)
       FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, title, body)`,
      [slice.map((d) => d.id), slice.map((d) => d.title), slice.map((d) => d.text)]
    )
  }
  await target.query("CREATE INDEX quality_docs_tsv ON quality_docs USING gin (tsv)")
  await target.query("VACUUM ANALYZE quality_docs")
  const rank: Ranker = async (question, limit) => {
    const { rows } = await target.query<{ id: string }>(
      `SELECT d.id FROM quality_docs d, ${OR_QUERY} AS q(query)
       WHERE d.tsv @@ q.query ORDER BY ts_rank(d.tsv, q.query) DESC, d.id LIMIT $2`,
      [question, limit]
    )
    return rows.map((r) => r.id)
  }
  return rank
}
