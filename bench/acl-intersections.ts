/**
 * What the ACL intersection (acl_all, issue 30 point 3) costs a search: the access predicate over a chunks-like
 * table of 100,000 rows on PostgreSQL (DATABASE_URL), any-of alone against any-of AND every key set, with a
 * quarter of the rows carrying one or two key sets (restricted pages), and what resolving the caller's satisfied
 * sets costs per request (source_acl_set_members, 20,000 sets). Prints medians; asserts nothing.
 */
import pg from "pg"

export const description = "ACL intersections: the access predicate with and without acl_all, and the per-request set lookup"

const ROWS = 100_000
const SETS = 20_000
const RUNS = 15

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export default async () => {
  const url = process.env.DATABASE_URL
  if (!url) {
    console.log("DATABASE_URL is not set: skipped")
    return
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const schema = `bench_acl_${process.pid}`
  try {
    await client.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`)
    await client.query(`CREATE TABLE chunks (id int PRIMARY KEY, space int, acl_keys text[], acl_all text[])`)
    // 200 users and 50 groups; each row allows 3 groups; a quarter also require one or two sets.
    await client.query(`INSERT INTO chunks
      SELECT i, i % 4,
        ARRAY['G:' || (i % 50), 'G:' || ((i * 7) % 50), 'U:' || (i % 200)],
        CASE WHEN i % 4 = 0 THEN ARRAY['S:' || (i % ${SETS})] || CASE WHEN i % 8 = 0 THEN ARRAY['S:' || ((i * 3) % ${SETS})] ELSE '{}' END END
      FROM generate_series(1, ${ROWS}) i`)
    await client.query(`CREATE INDEX ON chunks USING gin (acl_keys)`)
    await client.query(`CREATE TABLE set_members (set_key text, member_key text, PRIMARY KEY (set_key, member_key))`)
    await client.query(`INSERT INTO set_members SELECT 'S:' || s, 'G:' || ((s + m) % 50) FROM generate_series(0, ${SETS - 1}) s, generate_series(0, 2) m ON CONFLICT DO NOTHING`)
    await client.query(`CREATE INDEX ON set_members (member_key)`)
    await client.query(`VACUUM ANALYZE chunks`)
    await client.query(`VACUUM ANALYZE set_members`)

    const keys = ["U:7", "G:3", "G:11", "G:19", "G:27"]
    const timed = async (sql: string, params: Array<unknown>) => {
      const times: Array<number> = []
      let rows = 0
      for (let i = 0; i < RUNS; i++) {
        const start = performance.now()
        const result = await client.query(sql, params)
        times.push(performance.now() - start)
        rows = Number(result.rows[0]?.count ?? result.rowCount)
      }
      return { ms: median(times), rows }
    }
    const sets = await timed(`SELECT set_key FROM set_members WHERE member_key = ANY($1::text[])`, [keys])
    const satisfied = (await client.query(`SELECT DISTINCT set_key FROM set_members WHERE member_key = ANY($1::text[])`, [keys])).rows.map((r) => r.set_key as string)
    // As Lore runs it: the any-of overlap against the caller's few principal keys, acl_all against the sets they satisfy.
    const anyOf = await timed(`SELECT count(*) FROM chunks WHERE (acl_keys IS NULL OR acl_keys && $1::text[])`, [keys])
    const both = await timed(`SELECT count(*) FROM chunks WHERE (acl_keys IS NULL OR acl_keys && $1::text[]) AND (acl_all IS NULL OR acl_all <@ $2::text[])`, [keys, satisfied])
    // Search checks the predicate on its candidates (hundreds), not the whole table: 500 ids by primary key.
    const ids = Array.from({ length: 500 }, (_, i) => 1 + i * 199)
    const candidatesAnyOf = await timed(`SELECT count(*) FROM chunks WHERE id = ANY($2::int[]) AND (acl_keys IS NULL OR acl_keys && $1::text[])`, [keys, ids])
    const candidatesBoth = await timed(`SELECT count(*) FROM chunks WHERE id = ANY($3::int[]) AND (acl_keys IS NULL OR acl_keys && $1::text[]) AND (acl_all IS NULL OR acl_all <@ $2::text[])`, [keys, satisfied, ids])
    // The mistake avoided: satisfied sets in the same list as the principal keys (overlap compares every pair).
    const merged = await timed(`SELECT count(*) FROM chunks WHERE id = ANY($2::int[]) AND (acl_keys IS NULL OR acl_keys && $1::text[]) AND (acl_all IS NULL OR acl_all <@ $1::text[])`, [[...keys, ...satisfied], ids])
    console.log(`caller's satisfied sets (${satisfied.length} of ${SETS}): ${sets.ms.toFixed(2)} ms per request`)
    console.log(`whole table (${ROWS} rows): any-of ${anyOf.ms.toFixed(2)} ms (${anyOf.rows} visible), with acl_all ${both.ms.toFixed(2)} ms (${both.rows} visible)`)
    console.log(`500 search candidates: any-of ${candidatesAnyOf.ms.toFixed(3)} ms, with acl_all ${candidatesBoth.ms.toFixed(3)} ms; one merged key list ${merged.ms.toFixed(3)} ms`)
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await client.end()
  }
}
