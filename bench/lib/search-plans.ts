/**
 * Why the BM25 query is slow, and what would fix it, measured on the bench database (never on Lore's code):
 * EXPLAIN (ANALYZE, BUFFERS) of Lore's statement for a typical question, then alternatives timed on the same
 * questions with the same access parameters, each checked against Lore's ranking.
 *
 *  A  Lore's SQL with float8 constants (SQL-only change): `0.5`, `0.75` and the weight CASE are numeric today,
 *     so every lexeme row of every candidate is scored in numeric arithmetic.
 *  P  A postings table (term -> chunk, weighted term frequency, chunk length), maintained with the statistics
 *     when chunks become searchable or stop being so. BM25 sums over an index-only scan of the query terms'
 *     postings: no heap, no TOAST, no unnest of every candidate's whole tsvector. The access predicate's space
 *     list filters postings; classification/ACL are checked on the best 5 x limit (Lore would fall back to the
 *     full join when fewer than limit pass; the bench's admin sees everything, so the prototype leaves that out).
 *  M  P + MaxScore: candidates come from the rare query terms (df <= 10% of chunks; at least the rarest one);
 *     common terms are added only for candidates that could still reach the top k (partial + bound >= the k-th
 *     best partial); the result is exact when the k-th score is at least the common terms' bound, otherwise the
 *     statement falls back to P inside the same query.
 */
import type pg from "pg"
import { type Latency, measureLatency } from "./latency"
import { table } from "./load"
import type { CapturedSearch } from "./lore-sql"

const K_FACTOR = 5
const BM25 = (alias: string) =>
  `(${alias}.frequency * 2.2) / (${alias}.frequency + 1.2 * (0.25::float8 + 0.75::float8 * ${alias}.token_count / corpus.avg_len))`
const VISIBLE = (alias: string) =>
  `${alias}.searchable AND ${alias}.classification_rank <= $4 AND (${alias}.acl_keys IS NULL OR ${alias}.acl_keys && $5::text[])`

/** $1 query, $2 organization, $3 space ids, $4 max classification rank, $5 source-principal keys, $6 limit. */
const COMMON = `
  WITH terms AS (SELECT DISTINCT v.lexeme FROM unnest(to_tsvector('english', $1)) AS v),
  corpus AS (
    SELECT greatest(chunk_count, 1)::float8 AS n, greatest(token_total::float8 / greatest(chunk_count, 1), 1) AS avg_len
    FROM search_corpus WHERE organization_id = $2
  ),
  w0 AS (
    SELECT st.term, ln(1 + (corpus.n - st.document_frequency + 0.5::float8) / (st.document_frequency + 0.5::float8)) AS idf,
      st.document_frequency <= corpus.n * 0.1 AS rare
    FROM terms JOIN search_terms st ON st.organization_id = $2 AND st.term = terms.lexeme CROSS JOIN corpus
  ),
  w AS (SELECT term, idf, rare OR idf = (SELECT max(idf) FROM w0) AS essential FROM w0)`

const POSTINGS_ALL = `
  SELECT p.chunk_id, sum(w.idf * ${BM25("p")}) AS score
  FROM w JOIN bench_postings p ON p.organization_id = $2 AND p.term = w.term AND p.knowledge_space_id = ANY($3::uuid[])
  CROSS JOIN corpus
  GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT $6 * ${K_FACTOR}`

const POSTINGS_SQL = `${COMMON},
  best AS (${POSTINGS_ALL})
  SELECT b.chunk_id AS id, b.score FROM best b JOIN chunks c ON c.id = b.chunk_id WHERE ${VISIBLE("c")}
  ORDER BY b.score DESC, b.chunk_id LIMIT $6`

const MAXSCORE_SQL = `${COMMON},
  bound AS (SELECT coalesce(sum(idf) FILTER (WHERE NOT essential), 0) * 2.2 AS ub FROM w),
  partial AS (
    SELECT p.chunk_id, sum(w.idf * ${BM25("p")}) AS partial
    FROM w JOIN bench_postings p ON p.organization_id = $2 AND p.term = w.term AND p.knowledge_space_id = ANY($3::uuid[])
    CROSS JOIN corpus WHERE w.essential
    GROUP BY p.chunk_id
  ),
  visible_top AS (
    SELECT t.partial FROM (SELECT chunk_id, partial FROM partial ORDER BY partial DESC LIMIT $6 * ${K_FACTOR}) t
    JOIN chunks c ON c.id = t.chunk_id WHERE ${VISIBLE("c")}
    ORDER BY t.partial DESC LIMIT $6
  ),
  theta AS (SELECT CASE WHEN count(*) = $6 THEN min(partial) ELSE 0 END AS t FROM visible_top),
  pruned AS (SELECT pa.chunk_id, pa.partial FROM partial pa, bound, theta WHERE pa.partial + bound.ub >= theta.t),
  rest AS (
    SELECT q.chunk_id, sum(w.idf * ${BM25("q")}) AS extra
    FROM w JOIN bench_postings q ON q.organization_id = $2 AND q.term = w.term AND q.knowledge_space_id = ANY($3::uuid[])
    CROSS JOIN corpus
    WHERE NOT w.essential AND q.chunk_id IN (SELECT chunk_id FROM pruned)
    GROUP BY q.chunk_id
  ),
  scored AS (
    SELECT pr.chunk_id, pr.partial + coalesce(rest.extra, 0) AS score FROM pruned pr LEFT JOIN rest ON rest.chunk_id = pr.chunk_id
    ORDER BY score DESC, pr.chunk_id LIMIT $6 * ${K_FACTOR}
  ),
  ranked AS (
    SELECT s.chunk_id AS id, s.score FROM scored s JOIN chunks c ON c.id = s.chunk_id WHERE ${VISIBLE("c")}
    ORDER BY s.score DESC, s.chunk_id LIMIT $6
  ),
  verdict AS (SELECT count(*) = $6 AND min(r.score) >= (SELECT ub FROM bound) AS exact FROM ranked r)
  SELECT id, score FROM ranked WHERE (SELECT exact FROM verdict)
  UNION ALL
  (SELECT b.chunk_id AS id, b.score FROM (${POSTINGS_ALL}) b JOIN chunks c ON c.id = b.chunk_id
   WHERE NOT (SELECT exact FROM verdict) AND ${VISIBLE("c")} ORDER BY b.score DESC, b.chunk_id LIMIT $6)
  ORDER BY score DESC, id`

const BUILD_POSTINGS = [
  `DROP TABLE IF EXISTS bench_postings`,
  `CREATE TABLE bench_postings (organization_id uuid NOT NULL, term text NOT NULL, chunk_id uuid NOT NULL,
     knowledge_space_id uuid NOT NULL, frequency real NOT NULL, token_count integer NOT NULL)`,
  `INSERT INTO bench_postings
   SELECT c.organization_id, v.lexeme, c.id, c.knowledge_space_id,
     (SELECT sum(CASE w WHEN 'A' THEN 2.0 WHEN 'B' THEN 1.5 ELSE 1.0 END) FROM unnest(v.weights) AS w), c.token_count
   FROM chunks c CROSS JOIN LATERAL unnest(c.search_vector) AS v WHERE c.searchable`,
  `CREATE INDEX bench_postings_idx ON bench_postings (organization_id, term, chunk_id) INCLUDE (knowledge_space_id, frequency, token_count)`,
  `VACUUM ANALYZE bench_postings`
]

/** Lore's statement with float8 constants, or undefined when its text no longer has the expected shape. */
const withFloat8 = (text: string) => {
  const replaced = text
    .replace("(corpus.n - st.document_frequency + 0.5) / (st.document_frequency + 0.5)", "(corpus.n - st.document_frequency + 0.5::float8) / (st.document_frequency + 0.5::float8)")
    .replace(/\(1 - ([\d.]+) \+ ([\d.]+) \* cand\.token_count/, "(1::float8 - $1::float8 + $2::float8 * cand.token_count")
    .replace("THEN 2.0 WHEN 'B' THEN 1.5 ELSE 1.0 END", "THEN 2.0::float8 WHEN 'B' THEN 1.5::float8 ELSE 1.0::float8 END")
  return replaced.split("float8").length - text.split("float8").length === 8 ? replaced : undefined
}

/** The prototypes' parameters from the recorded statement: query, organization, spaces, clearance rank, source keys, limit. */
const prototypeParams = (c: CapturedSearch) => {
  const p = c.lexical.params
  // The GIN + unnest statement (before the postings table): query, organization (x3), spaces, rank, keys, limit.
  if (typeof p[0] === "string" && Array.isArray(p[3]) && Array.isArray(p[5]) && typeof p[7] === "number") return [p[0], p[1], p[3], p[4], p[5], p[7]]
  // The postings statement: query, organization (x3), spaces, rank, [filters], cap, spaces, rank, keys, [filters], limit.
  const spaces = p.findIndex((x) => Array.isArray(x) && x.every((s) => typeof s === "string" && /^[0-9a-f-]{36}$/.test(s)))
  const keys = p.findIndex((x) => Array.isArray(x) && x.some((s) => typeof s === "string" && s.startsWith("LORE_USER:")))
  const numbers = p.filter((x): x is number => typeof x === "number")
  if (typeof p[0] !== "string" || spaces < 0 || keys < 0 || numbers.length < 2) return undefined
  return [p[0], p[1], p[spaces], numbers[0], p[keys], numbers[numbers.length - 1]]
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1))

/** Runs the investigation; returns the report to print. */
export const investigate = async (
  pool: pg.Pool,
  captured: ReadonlyArray<CapturedSearch>,
  options: { rounds: number; maxSeconds: number; before: Latency }
): Promise<string> => {
  const lines: string[] = []
  // Lore's postings statement adds a row without an id (its candidate count): not part of the ranking.
  const ids = (rows: ReadonlyArray<{ id: string | null }>) => rows.flatMap((r) => (r.id === null ? [] : [r.id])).join(",")

  // Lore's statement once per question (within the time cap): the median one is the typical question, and the
  // answers are what the alternatives' rankings are checked against.
  const timed: Array<{ index: number; ms: number }> = []
  const reference = new Map<number, string>()
  const deadline = performance.now() + options.maxSeconds * 1000
  for (const [index, c] of captured.entries()) {
    if (timed.length >= 3 && performance.now() > deadline) break
    const started = performance.now()
    const result = await pool.query<{ id: string }>(c.lexical.text, c.lexical.params as unknown[])
    timed.push({ index, ms: performance.now() - started })
    reference.set(index, ids(result.rows))
  }
  const median = [...timed].sort((a, b) => a.ms - b.ms)[Math.floor(timed.length / 2)]!
  const typical = captured[median.index]!
  const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${typical.lexical.text}`, typical.lexical.params as unknown[])
  const candidates = await pool.query<{ n: number; lexemes: number }>(
    `SELECT count(*)::int AS n, avg(length(search_vector))::int AS lexemes FROM chunks c
     WHERE c.searchable AND c.search_vector @@ (SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | '))
       FROM (SELECT DISTINCT v.lexeme FROM unnest(to_tsvector('english', $1)) AS v) AS t)`,
    [typical.lexical.params[0]]
  )
  lines.push(
    `Investigation (PostgreSQL, largest corpus): EXPLAIN (ANALYZE, BUFFERS) of Lore's BM25 statement for the median question`,
    `"${typical.lexical.params[0]}" (${candidates.rows[0]!.n} candidate chunks, ${candidates.rows[0]!.lexemes} distinct lexemes each on average):`,
    "",
    ...plan.rows.map((row: Record<string, string>) => `    ${row["QUERY PLAN"]}`),
    ""
  )

  const rows: string[][] = [["Lore's statement (before)", ms(options.before.p50Ms), ms(options.before.p95Ms), options.before.count.toString(), "-", "-"]]
  /** Times a variant, then compares its top 10 with Lore's (a few questions) and with `baseline`'s (all, when given). */
  const measureVariant = async (
    name: string,
    run: (c: CapturedSearch) => Promise<ReadonlyArray<{ id: string }>>,
    compare: { all: boolean; baseline?: Map<number, string> }
  ) => {
    const answers = new Map<number, string>()
    const figures = await measureLatency(
      captured.map((c, index) => async () => (answers.set(index, ids(await run(c))), true)),
      { rounds: options.rounds, concurrency: 1, maxSeconds: options.maxSeconds, warmupSeconds: options.maxSeconds / 5 }
    )
    const needed = compare.all ? captured.map((_, index) => index) : [...reference.keys()]
    for (const index of needed) if (!answers.has(index)) answers.set(index, ids(await run(captured[index]!)))
    const baseline = compare.baseline
    const versusLore = [...reference].filter(([index, expected]) => answers.get(index) === expected).length
    const versusBaseline = baseline ? [...baseline].filter(([index, expected]) => answers.get(index) === expected).length : undefined
    rows.push([
      name,
      ms(figures.p50Ms),
      ms(figures.p95Ms),
      figures.count.toString(),
      `${versusLore}/${reference.size}`,
      versusBaseline === undefined ? "-" : `${versusBaseline}/${baseline!.size}`
    ])
    return answers
  }

  const float8 = withFloat8(typical.lexical.text)
  if (float8) {
    await measureVariant("A: same SQL, float8 constants", async (c) => (await pool.query<{ id: string }>(withFloat8(c.lexical.text)!, c.lexical.params as unknown[])).rows, {
      all: false
    })
  }
  if (!prototypeParams(typical)) {
    lines.push("Lore's statement no longer has a shape the prototypes can take parameters from; prototypes skipped.")
    return lines.join("\n")
  }
  const building = performance.now()
  for (const statement of BUILD_POSTINGS) await pool.query(statement)
  const buildSeconds = (performance.now() - building) / 1000
  const size = await pool.query<{ postings: string; heap: string; index: string }>(
    `SELECT count(*)::text AS postings, pg_size_pretty(pg_relation_size('bench_postings')) AS heap,
       pg_size_pretty(pg_relation_size('bench_postings_idx')) AS index FROM bench_postings`
  )
  const postings = await measureVariant("P: postings table, index-only BM25", async (c) => (await pool.query<{ id: string }>(POSTINGS_SQL, prototypeParams(c)!)).rows, {
    all: true
  })
  await measureVariant("M: P + MaxScore (exact, falls back to P)", async (c) => (await pool.query<{ id: string }>(MAXSCORE_SQL, prototypeParams(c)!)).rows, {
    all: true,
    baseline: postings
  })
  const explainM = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${MAXSCORE_SQL}`, prototypeParams(typical)!)
  const mTime = explainM.rows.map((r: Record<string, string>) => r["QUERY PLAN"]).find((line: string) => line.startsWith("Execution Time"))

  lines.push(
    `Alternatives on the same database, same questions and access parameters (sequential, capped at ${options.maxSeconds} s each):`,
    "",
    table(["variant", "p50 ms", "p95 ms", "n", "top-10 = Lore's", "top-10 = P's"], rows),
    "",
    `postings: ${size.rows[0]!.postings} rows (${size.rows[0]!.heap} heap + ${size.rows[0]!.index} index), built from the chunks in ${buildSeconds.toFixed(0)} s;`,
    `M on the median question: ${mTime ?? "?"}. The prototypes live in bench_postings in the throwaway database only.`
  )
  return lines.join("\n")
}
