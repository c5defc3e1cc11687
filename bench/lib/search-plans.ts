import type pg from "pg"
import type { CapturedSearch } from "./lore-sql"

export const investigate = async (pool: pg.Pool, captured: ReadonlyArray<CapturedSearch>, _options: { rounds: number; maxSeconds: number }) => {
  const c = captured[0]!
  const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${c.lexical.text}`, c.lexical.params as unknown[])
  return plan.rows.map((r) => r["QUERY PLAN"]).join("\n")
}
