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
import { chunkDocument, parseDocument } from "../../packages/server/src/knowledge/parsing/index"

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

/** Words with their positions (stopwords keep their place, as PostgreSQL counts positions), stopwords dropped, Porter-stemmed. */
const positioned = (text: string, offset: number) =>
  words(text).flatMap((w, i) => (STOPWORDS.has(w) ? [] : [{ term: stemmer(w), position: offset + i }]))

/**
 * Published improvements measured on top of the textbook BM25 (each kept in Lore only if it helps):
 *  - proximity: BM25TP (Rasolofo & Savoy, ECIR 2003): pairs of different query terms at most `window` words
 *    apart add 1/distance^2 to both terms' accumulators, which are saturated like term frequencies and added
 *    to the BM25 score with `weight` (1 in the paper), over the BM25 top `depth`.
 *  - rm3: RM3 pseudo-relevance feedback (Lavrenko & Croft's relevance model, interpolated as in Anserini):
 *    the top `documents` give P(w|R) = sum of P(w|D) P(D|Q) (scores normalised), its `terms` best terms are
 *    mixed with the query's own term distribution by `originalWeight`, and BM25 runs again.
 */
export interface Bm25Options {
  /**
   * Score passages as Lore does instead of whole documents: each document cut by Lore's own chunker, every
   * chunk indexed with the title (its terms counted `titleWeight` times; 1 for whole documents), and a
   * document ranked at its best chunk.
   */
  readonly chunks?: { readonly titleWeight: number }
  readonly proximity?: { readonly window: number; readonly weight: number; readonly depth: number }
  readonly rm3?: { readonly documents: number; readonly terms: number; readonly originalWeight: number }
}

/** Textbook Okapi BM25 over whole documents, in memory. */
export const textbookBm25 = async (documents: ReadonlyArray<CorpusDocument>, options: Bm25Options = {}): Promise<Ranker> => {
  const postings = new Map<string, Array<{ doc: number; tf: number }>>()
  const lengths: number[] = []
  const positions: Array<Map<string, number[]>> = []
  /** The document of each scored unit (a document, or a chunk of one). */
  const owner: number[] = []
  const titleWeight = options.chunks?.titleWeight ?? 1
  for (const [index, document] of documents.entries()) {
    const texts = options.chunks ? await chunksOf(document.text) : [document.text]
    for (const text of texts) {
      // The title is one more line of the unit, its positions ahead of the text's.
      const terms = [...positioned(document.title, 0), ...positioned(text, 100)]
      lengths.push(terms.length)
      owner.push(index)
      const at = new Map<string, number[]>()
      for (const { term, position } of terms) at.set(term, [...(at.get(term) ?? []), position])
      positions.push(at)
      const titled = new Set(positioned(document.title, 0).map((t) => t.term))
      for (const [term, list] of at) {
        const entries = postings.get(term) ?? []
        entries.push({ doc: owner.length - 1, tf: list.length + (titled.has(term) ? titleWeight - 1 : 0) })
        postings.set(term, entries)
      }
    }
  }
  const n = lengths.length
  const avgLength = lengths.reduce((a, b) => a + b, 0) / n
  const idf = (term: string) => {
    const df = postings.get(term)?.length ?? 0
    return Math.log(1 + (n - df + 0.5) / (df + 0.5))
  }
  const norm = (doc: number) => K1 * (1 - B + (B * lengths[doc]!) / avgLength)
  /** BM25 of every matching document for weighted query terms (the weight is the query term frequency). */
  const bm25 = (query: ReadonlyMap<string, number>) => {
    const scores = new Map<number, number>()
    for (const [term, qtf] of query) {
      const weight = qtf * idf(term)
      for (const { doc, tf } of postings.get(term) ?? []) scores.set(doc, (scores.get(doc) ?? 0) + (weight * tf * (K1 + 1)) / (tf + norm(doc)))
    }
    return [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])
  }
  const proximity = (doc: number, query: ReadonlyMap<string, number>, window: number) => {
    const occurrences = [...query.keys()].flatMap((term) => (positions[doc]!.get(term) ?? []).map((position) => ({ term, position })))
    occurrences.sort((a, b) => a.position - b.position)
    const accumulated = new Map<string, number>()
    for (let i = 0; i < occurrences.length; i++) {
      for (let j = i + 1; j < occurrences.length && occurrences[j]!.position - occurrences[i]!.position <= window; j++) {
        const [a, b] = [occurrences[i]!, occurrences[j]!]
        if (a.term === b.term) continue
        const closeness = 1 / (b.position - a.position) ** 2
        accumulated.set(a.term, (accumulated.get(a.term) ?? 0) + closeness * Math.min(1, idf(b.term)))
        accumulated.set(b.term, (accumulated.get(b.term) ?? 0) + closeness * Math.min(1, idf(a.term)))
      }
    }
    let sum = 0
    for (const [term, acc] of accumulated) sum += (Math.min(1, idf(term)) * acc * (K1 + 1)) / (acc + norm(doc))
    return sum
  }
  const rm3 = (query: ReadonlyMap<string, number>, first: ReadonlyArray<[number, number]>, settings: NonNullable<Bm25Options["rm3"]>) => {
    const feedback = first.slice(0, settings.documents)
    const total = feedback.reduce((sum, [, s]) => sum + s, 0)
    const model = new Map<string, number>()
    for (const [doc, s] of feedback) {
      for (const [term, list] of positions[doc]!) model.set(term, (model.get(term) ?? 0) + (list.length / lengths[doc]!) * (s / total))
    }
    const best = [...model.entries()].sort((a, b) => b[1] - a[1]).slice(0, settings.terms)
    const modelTotal = best.reduce((sum, [, p]) => sum + p, 0)
    const queryTotal = [...query.values()].reduce((a, b) => a + b, 0)
    const expanded = new Map<string, number>()
    for (const [term, qtf] of query) expanded.set(term, (settings.originalWeight * qtf) / queryTotal)
    for (const [term, p] of best) expanded.set(term, (expanded.get(term) ?? 0) + ((1 - settings.originalWeight) * p) / modelTotal)
    return bm25(expanded)
  }
  const rank: Ranker = async (question, limit) => {
    const query = new Map<string, number>()
    for (const term of analyze(question)) query.set(term, (query.get(term) ?? 0) + 1)
    let ranked = bm25(query)
    if (options.rm3) ranked = rm3(query, ranked, options.rm3)
    const near = options.proximity
    if (near) {
      const head = ranked.slice(0, near.depth).map(([doc, s]): [number, number] => [doc, s + near.weight * proximity(doc, query, near.window)])
      ranked = [...head.sort((a, b) => b[1] - a[1] || a[0] - b[0]), ...ranked.slice(near.depth)]
    }
    // A document at its best unit's rank.
    return [...new Set(ranked.map(([unit]) => documents[owner[unit]!]!.id))].slice(0, limit)
  }
  return rank
}

/** A document's passages as Lore's chunker cuts them (plain text). */
const chunksOf = async (text: string) => {
  const parsed = await parseDocument(new TextEncoder().encode(text), "text/plain")
  if (!parsed.ok) throw new Error(parsed.error.message)
  return chunkDocument(parsed.document, { sourceRevisionId: "00000000-0000-4000-8000-000000000000" }).map((c) => c.text)
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
