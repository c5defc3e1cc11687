/**
 * Child-process entry for bench/me.ts: serves GET /api/me with Lore or with the bare server.
 *
 *   lore <dataDir> <token> [databaseUrl]     Lore via startServer (embedded PGlite when no URL)
 *   bare <dataDir> <token> [databaseUrl]     node:http + pg (embedded: its own PGlite on <dataDir>/pgdata)
 *
 * BENCH_LORE_DIST=1 runs Lore as built (packages/server/dist, `npm run build` first; another folder of packages/server
 * by its name, such as a copy of an earlier build) instead of from its source through tsx: a CPU profile then names functions by the bundle's lines, which its source map leads back to the source.
 */
type ServerModule = typeof import("../../packages/server/src/index")
const { startServer }: ServerModule = process.env.BENCH_LORE_DIST
  ? await import(new URL(`../../packages/server/${process.env.BENCH_LORE_DIST === "1" ? "dist" : process.env.BENCH_LORE_DIST}/index.js`, import.meta.url).href)
  : await import("../../packages/server/src/index")
import { bareEmbedded, barePostgres } from "./bare-me"
import { serveAsChild } from "./child"

const [mode, dataDir, token, databaseUrl] = process.argv.slice(2) as [string, string, string, string | undefined]

await serveAsChild(async () => {
  if (mode === "lore") {
    // One bench user sends what many users would: the per-user chat and upload limits would only measure themselves.
    const unlimited = { perMinute: 1_000_000, burst: 100_000 }
    // LORE_SEARCH_* as `npm start` reads them, so a bench can compare search settings.
    const search = {
      ...(process.env.LORE_SEARCH_EXHAUSTIVE_MAX_POSTINGS ? { exhaustiveMaxPostings: Number(process.env.LORE_SEARCH_EXHAUSTIVE_MAX_POSTINGS) } : {}),
      ...(process.env.LORE_SEARCH_PRUNED_DEPTH ? { prunedDepth: Number(process.env.LORE_SEARCH_PRUNED_DEPTH) } : {}),
      ...(process.env.LORE_SEARCH_PRUNED_CANDIDATES ? { prunedCandidates: Number(process.env.LORE_SEARCH_PRUNED_CANDIDATES) } : {})
    }
    // LORE_ASSISTANT_MAX_STEPS too, so the assistant bench can compare one-shot retrieval with the tool loop.
    const assistantLoop = process.env.LORE_ASSISTANT_MAX_STEPS ? { maxSteps: Number(process.env.LORE_ASSISTANT_MAX_STEPS) } : {}
    // And LORE_DATABASE_POOL_SIZE, to compare pool sizes.
    const pool = process.env.LORE_DATABASE_POOL_SIZE ? { databasePoolSize: Number(process.env.LORE_DATABASE_POOL_SIZE) } : {}
    return startServer({ dataDir, port: 0, bootstrapToken: token, logLevel: "warning", rateLimits: { chat: unlimited, fileUpload: unlimited }, search, assistantLoop, ...pool, ...(databaseUrl ? { databaseUrl } : {}) })
  }
  if (mode === "bare") return databaseUrl ? barePostgres(databaseUrl) : bareEmbedded(dataDir)
  throw new Error(`unknown mode ${mode}`)
})
