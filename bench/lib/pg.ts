/** PostgreSQL helpers the benchmarks share: a short-lived client, and a throwaway database per run. */
import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import pg from "pg"

export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test"

/** One client on `url` for `use`, closed afterwards. */
export const withPgClient = async <A>(url: string, use: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

export interface ThrowawayDatabase {
  readonly name: string
  /** The database's own URL (the admin URL with its name). */
  readonly url: string
  readonly drop: () => Promise<void>
}

/**
 * Creates `lore_bench_<prefix>_<pid>_<random>` through the admin URL (DATABASE_URL, else the local default);
 * rejects when PostgreSQL cannot be reached, which each bench reports in its own words.
 */
export const createThrowawayDatabase = async (prefix: string, adminUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL): Promise<ThrowawayDatabase> => {
  const name = `lore_bench_${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`
  await withPgClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`))
  const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString()
  return { name, url, drop: () => withPgClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined) }
}

/**
 * CPU time (user + system, microseconds) every process named `postgres` on this machine has used so far, from
 * /proc (Linux; 10 ms ticks, so compare over many requests). Undefined where /proc cannot be read.
 */
export const postgresCpuMicros = (): number | undefined => {
  try {
    let ticks = 0
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue
      let stat: string
      try {
        stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      } catch {
        continue // the process ended while we looked
      }
      const close = stat.lastIndexOf(")")
      if (stat.slice(stat.indexOf("(") + 1, close) !== "postgres") continue
      const fields = stat.slice(close + 2).split(" ")
      // utime, stime, and the ended children's cutime, cstime (fields 14-17 of stat): a backend that ends (a pool
      // connection closed, a parallel worker) moves its time into the postmaster's, so the sum never goes back.
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
    }
    return (ticks * 1e6) / 100
  } catch {
    return undefined
  }
}
