import { SqlClient } from "@effect/sql"
import { HttpServer } from "@effect/platform"
import { Context, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { type EmbeddingEndpointOptions, EmbeddingSettings } from "../../src/ai/EmbeddingSettings"
import { appLayer } from "../../src/App"
import { type LoreSettings, Settings } from "../../src/Config"
import { serverUrl } from "../../src/http/Http"
import { createTestDatabase } from "../jobs/support"
import { newBootstrapToken } from "../support/server"

/**
 * The whole Lore server in this process (the same layers as startServer), on the test's own database
 * (PGlite, or PostgreSQL when DATABASE_URL is set), with one extra: `sql` runs a query on the server's
 * own connection pool, so a test that talks HTTP can still check what only the database shows (a purge
 * that removed rows, how many chunk rows a source has). On PGlite the pool is the server's one connection,
 * so the queries simply queue with the server's.
 */
export interface InspectableServer {
  readonly url: string
  readonly adminToken: string
  readonly kind: "embedded" | "postgresql"
  readonly sql: <A>(query: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) => Promise<A>
  /** Runs an effect with the server's own services (a repository called directly, beside HTTP). */
  readonly run: <A>(effect: Effect.Effect<A, unknown, any>) => Promise<A>
  readonly dispose: () => Promise<void>
}

export const startInspectableServer = async (
  options: { readonly embedding?: EmbeddingEndpointOptions; readonly settings?: Partial<LoreSettings> } = {}
): Promise<InspectableServer> => {
  const database = await createTestDatabase()
  const adminToken = newBootstrapToken()
  const settings: LoreSettings = {
    ...database.settings,
    port: 0,
    bootstrapToken: Option.some(Redacted.make(adminToken)),
    logLevel: process.env.LORE_TEST_LOGS ? "debug" : "warning",
    ...options.settings
  }
  const scope = Effect.runSync(Scope.make())
  try {
    const context = await Effect.runPromise(
      Layer.buildWithScope(appLayer(Layer.merge(Layer.succeed(Settings, settings), EmbeddingSettings.layer(options.embedding))), scope)
    )
    const url = Effect.runSync(Effect.provide(serverUrl, Context.pick(HttpServer.HttpServer)(context)))
    const client = Context.get(context, SqlClient.SqlClient)
    return {
      url,
      adminToken,
      kind: database.kind,
      sql: (query) => Effect.runPromise(query(client)),
      run: (effect) => Effect.runPromise(Effect.provide(effect, context) as Effect.Effect<any, unknown, never>),
      dispose: async () => {
        await Effect.runPromise(Scope.close(scope, Exit.void))
        await database.dispose()
      }
    }
  } catch (error) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await database.dispose()
    throw error
  }
}

/**
 * BM25 statistics and postings must describe exactly the searchable chunks: per-term document frequencies and
 * chunk count and token total in each partition (space, classification), postings per term, after any
 * sequence of ingestions, version switches and deletions.
 */
export const indexStatistics = (server: InspectableServer) =>
  server.sql((sql) =>
    Effect.gen(function* () {
      const actualTerms = yield* sql<{ term: string; df: number }>`
        SELECT c.knowledge_space_id || '/' || c.classification_rank || '/' || v.lexeme AS term, count(*)::int AS df
        FROM chunks c CROSS JOIN LATERAL unnest(c.search_vector) AS v
        WHERE c.searchable GROUP BY 1`
      const storedTerms = yield* sql<{ term: string; df: number }>`
        SELECT knowledge_space_id || '/' || classification_rank || '/' || term AS term, document_frequency::int AS df
        FROM search_terms WHERE document_frequency <> 0`
      const actualLexemes = yield* sql<{ term: string; df: number }>`
        SELECT v.lexeme AS term, count(*)::int AS df FROM chunks c CROSS JOIN LATERAL unnest(c.search_vector) AS v
        WHERE c.searchable GROUP BY v.lexeme`
      const actualPartitions = yield* sql<{ term: string; df: number }>`
        SELECT knowledge_space_id || '/' || classification_rank AS term, count(*)::int AS df FROM chunks WHERE searchable GROUP BY 1`
      const storedPartitions = yield* sql<{ term: string; df: number }>`
        SELECT knowledge_space_id || '/' || classification_rank AS term, chunk_count::int AS df FROM search_corpus WHERE chunk_count <> 0`
      // The postings (the BM25 inverted index) hold one row per lexeme of each searchable chunk.
      const postingTerms = yield* sql<{ term: string; df: number }>`
        SELECT p.term, count(*)::int AS df FROM search_postings p JOIN chunks c ON c.id = p.chunk_id AND c.searchable GROUP BY p.term`
      const [strayPostings] = yield* sql<{ count: number }>`
        SELECT count(*)::int AS count FROM search_postings p JOIN chunks c ON c.id = p.chunk_id WHERE NOT c.searchable`
      const [actualCorpus] = yield* sql<{ chunks: number; tokens: number }>`
        SELECT count(*)::int AS chunks, coalesce(sum(token_count), 0)::int AS tokens FROM chunks WHERE searchable`
      const [storedCorpus] = yield* sql<{ chunks: number; tokens: number }>`
        SELECT coalesce(sum(chunk_count), 0)::int AS chunks, coalesce(sum(token_total), 0)::int AS tokens FROM search_corpus`
      const sorted = (rows: ReadonlyArray<{ term: string; df: number }>) =>
        Object.fromEntries([...rows].sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0)).map((r) => [r.term, r.df]))
      return {
        actual: { terms: sorted(actualTerms), postings: sorted(actualLexemes), strayPostings: 0, corpus: actualCorpus!, partitions: sorted(actualPartitions) },
        stored: { terms: sorted(storedTerms), postings: sorted(postingTerms), strayPostings: strayPostings!.count, corpus: storedCorpus!, partitions: sorted(storedPartitions) }
      }
    })
  )
