import { PGlite } from "@electric-sql/pglite"
import { vector } from "@electric-sql/pglite-pgvector"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { SqlClient, SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Option, Redacted, Schema, String as Str } from "effect"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import pg from "pg"
import { DEFAULT_DATABASE_POOL_SIZE, Settings } from "../Config"
import { row } from "./Rows"
import { DatabaseNotifications } from "./Notifications"

/** What kind of database this process runs on; reported by /api/health. */
export interface DatabaseInfo {
  readonly kind: "postgresql" | "embedded"
  /** Whether the pgvector extension is installed (HNSW index) or vectors fall back to real[]. */
  readonly vector: boolean
  readonly serverVersion: string
}
export class Database extends Context.Tag("lore/Database")<Database, DatabaseInfo>() {}

/**
 * A name transform remembered per name: @effect/sql renames every column of every row it reads, and a search's
 * ~900 rows made that thousands of string conversions (and their garbage) a request. Names come from Lore's own
 * statements, so the set is small; the cap only guards against a statement that builds names from data.
 */
const rememberedPerName = (transform: (name: string) => string) => {
  const known = new Map<string, string>()
  return (name: string) => {
    let renamed = known.get(name)
    if (renamed === undefined) {
      if (known.size >= 10_000) known.clear()
      renamed = transform(name)
      known.set(name, renamed)
    }
    return renamed
  }
}

const names = {
  transformResultNames: rememberedPerName(Str.snakeToCamel),
  transformQueryNames: rememberedPerName(Str.camelToSnake)
}

/**
 * PGlite in the data dir, served to the ordinary pg driver over a unix socket. The pool is ONE
 * connection on both sides: PGlite runs one query at a time and a larger pool loses writes.
 * The socket lives in a short temporary directory because unix socket paths must stay under 108 bytes.
 */
const embedded = (dataDir: string) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const dir = resolve(dataDir, "pgdata")
      mkdirSync(dir, { recursive: true })
      const db = yield* Effect.acquireRelease(
        Effect.promise(() => PGlite.create({ dataDir: dir, extensions: { vector } })),
        (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
      )
      yield* Effect.promise(() => db.exec("CREATE EXTENSION IF NOT EXISTS vector"))
      const socketDir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "lore-"))),
        (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
      )
      const server = new PGLiteSocketServer({ db, path: join(socketDir, ".s.PGSQL.5432"), maxConnections: 1 })
      yield* Effect.acquireRelease(Effect.promise(() => server.start()), () =>
        Effect.promise(() => server.stop()).pipe(Effect.ignore)
      )
      // The pool is Lore's own (not PgClient.layer's) so that notifications can be heard on its connection.
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const pool = new pg.Pool({
            host: socketDir,
            port: 5432,
            database: "postgres",
            user: "postgres",
            max: 1,
            min: 1,
            idleTimeoutMillis: 0,
            application_name: "lore"
          })
          pool.on("error", () => undefined)
          return pool
        }),
        (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(Duration.seconds(1)))
      )
      return Layer.merge(
        PgClient.layerFromPool({ acquire: Effect.succeed(pool), ...names }),
        DatabaseNotifications.onPoolConnections(pool)
      )
    })
  )

/**
 * Lore's statements are short and many: PostgreSQL's JIT compiles a statement whose estimate passes
 * jit_above_cost, and at 100k chunks it spent 66 ms compiling a search statement that ran in 15 ms (docs/decisions.md,
 * "Search as steady ingestion leaves it"). Sent as the connection's startup options, after any the URL gives.
 */
const SESSION_OPTIONS = "-c jit=off"

/** The URL with SESSION_OPTIONS added to its `options` parameter; a string that is not a URL is left as given. */
const withSessionOptions = (connectionString: string) => {
  try {
    const url = new URL(connectionString)
    url.searchParams.set("options", [url.searchParams.get("options"), SESSION_OPTIONS].filter(Boolean).join(" "))
    return url.toString()
  } catch {
    return connectionString
  }
}

/** PostgreSQL with a pool of `poolSize` connections (LORE_DATABASE_POOL_SIZE), and one more that listens. */
const postgres = (url: Redacted.Redacted, poolSize: number) =>
  Layer.provideMerge(
    DatabaseNotifications.dedicatedConnection,
    PgClient.layer({ url: Redacted.make(withSessionOptions(Redacted.value(url))), maxConnections: poolSize, idleTimeout: Duration.seconds(30), ...names })
  )

const ServerVersion = Schema.Struct({ serverVersion: Schema.String })

const detect = (kind: DatabaseInfo["kind"]) =>
  Layer.effect(
    Database,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // pgvector is optional on PostgreSQL (Debian bookworm does not package it); PGlite always has it.
      const vectorReady = yield* sql`CREATE EXTENSION IF NOT EXISTS vector`.pipe(
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
      const version = yield* row("db.serverVersion", ServerVersion, () => sql`SHOW server_version`)()
      return { kind, vector: vectorReady, serverVersion: version?.serverVersion ?? "unknown" }
    })
  )

/** SqlClient, PgClient, Database and DatabaseNotifications, on PostgreSQL when a URL is configured, else embedded PGlite. */
export const SqlLive = Layer.unwrapEffect(
  Effect.map(Settings, (settings) => {
    const kind = Option.isSome(settings.databaseUrl) ? "postgresql" : "embedded"
    const client = Option.match(settings.databaseUrl, {
      onSome: (url) => postgres(url, settings.databasePoolSize ?? DEFAULT_DATABASE_POOL_SIZE),
      onNone: () => embedded(settings.dataDir)
    })
    return Layer.provideMerge(detect(kind), client)
  })
)

/**
 * Runs `effect` in one transaction. A failure of the database itself (SqlError) is a defect here, as in
 * the repositories; the caller's own typed failures roll the transaction back and pass through.
 */
export const transactional = (sql: SqlClient.SqlClient) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R> =>
    sql.withTransaction(effect).pipe(
      Effect.catchIf((error): error is SqlError.SqlError => error instanceof SqlError.SqlError, (error) => Effect.die(error))
    ) as Effect.Effect<A, Exclude<E, SqlError.SqlError>, R>
