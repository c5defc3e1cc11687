/**
 * Grows a PostgreSQL search corpus past what ingestion can load in a bench run (1M chunks would take about an
 * hour through Lore's ingestion at ~200 pages/s) by SQL alone: each new chunk joins the first half of one
 * existing chunk to the second half of another (so it is new text with the corpus's own word statistics,
 * not a duplicate), keeps the first one's source, space, title and heading weights, and is indexed the way
 * SearchIndexWriter indexes (tsvector 'english', postings with title x2 and heading x1.5, impacts by the
 * generated column); BM25 statistics are then recounted from the postings. Secondary indexes are dropped
 * during the load and rebuilt from their own definitions, as a bulk load would.
 */
import pg from "pg"

export interface Synthesized {
  readonly chunks: number
  readonly seconds: number
}

/** Ordinals of synthesized chunks start here, past any real document's. */
const ORDINAL_BASE = 1_000_000

export const synthesizeChunks = async (url: string, wanted: number, log: (message: string) => void): Promise<Synthesized> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const started = performance.now()
  try {
    await client.query("SET session_replication_role = replica") // no FK triggers: the rows are consistent by construction
    await client.query("SET maintenance_work_mem = '1GB'")
    await client.query("SET work_mem = '256MB'")
    await client.query(`
      CREATE TEMP TABLE base AS
      SELECT row_number() OVER (ORDER BY id) AS rn, c.* FROM chunks c WHERE c.searchable AND c.ordinal < ${ORDINAL_BASE}`)
    const base = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM base")).rows[0]!.n)
    const indexes = (await client.query<{ name: string; definition: string }>(`
      SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
      WHERE i.tablename IN ('chunks', 'search_postings')
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`)).rows
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`)
    let made = 0
    for (let round = 1; made < wanted; round++) {
      const count = Math.min(base, wanted - made)
      log(`synthesizing chunks ${made + 1}-${made + count} of ${wanted} ...`)
      await client.query(`
        INSERT INTO chunks (id, source_id, organization_id, knowledge_space_id, knowledge_asset_id, classification_rank, acl_keys,
          ordinal, heading, heading_path, start_page, end_page, content, search_vector, token_count, searchable)
        SELECT gen_random_uuid(), m.source_id, m.organization_id, m.knowledge_space_id, m.knowledge_asset_id, m.classification_rank, m.acl_keys,
          m.ordinal, m.heading, m.heading_path, m.start_page, m.end_page, m.content, m.vector,
          (SELECT coalesce(sum(array_length(p.positions, 1)), 0) FROM unnest(m.vector) AS p)::int, true
        FROM (
          SELECT a.source_id, a.organization_id, a.knowledge_space_id, a.knowledge_asset_id, a.classification_rank, a.acl_keys,
            ${ORDINAL_BASE * round} + a.ordinal AS ordinal, a.heading, a.heading_path, a.start_page, a.end_page, mixed.content,
            ts_filter(a.search_vector, '{a,b}') || to_tsvector('english', mixed.content) AS vector
          FROM base a
          JOIN base b ON b.rn = ((a.rn * 7 + ${round} * 7919) % ${base}) + 1
          CROSS JOIN LATERAL (SELECT left(a.content, length(a.content) / 2) || ' ' || right(b.content, length(b.content) - length(b.content) / 2) AS content) mixed
          WHERE a.rn <= ${count}
        ) m`)
      await client.query(`
        INSERT INTO search_postings (term, chunk_id, organization_id, knowledge_space_id, classification_rank, frequency, token_count)
        SELECT v.lexeme, c.id, c.organization_id, c.knowledge_space_id, c.classification_rank,
          (SELECT sum(CASE w WHEN 'A' THEN 2.0 WHEN 'B' THEN 1.5 ELSE 1.0 END) FROM unnest(v.weights) AS w), c.token_count
        FROM chunks c CROSS JOIN LATERAL unnest(c.search_vector) AS v
        WHERE c.ordinal >= ${ORDINAL_BASE * round} AND c.ordinal < ${ORDINAL_BASE * (round + 1)}`)
      made += count
    }
    log("recounting BM25 statistics and rebuilding indexes ...")
    await client.query("DELETE FROM search_terms")
    await client.query(`
      INSERT INTO search_terms (organization_id, term, knowledge_space_id, classification_rank, document_frequency)
      SELECT organization_id, term, knowledge_space_id, classification_rank, count(*) FROM search_postings GROUP BY 1, 2, 3, 4`)
    await client.query("DELETE FROM search_corpus")
    await client.query(`
      INSERT INTO search_corpus (organization_id, knowledge_space_id, classification_rank, chunk_count, token_total)
      SELECT organization_id, knowledge_space_id, classification_rank, count(*), sum(token_count) FROM chunks WHERE searchable GROUP BY 1, 2, 3`)
    for (const index of indexes) await client.query(index.definition)
    return { chunks: made, seconds: (performance.now() - started) / 1000 }
  } finally {
    await client.end()
  }
}
