/**
 * Child-process entry for bench/me.ts: serves GET /api/me with Lore or with the bare server.
 *
 *   lore <dataDir> <token> [databaseUrl]     Lore via startServer (embedded PGlite when no URL)
 *   bare <dataDir> <token> [databaseUrl]     node:http + pg (embedded: its own PGlite on <dataDir>/pgdata)
 */
import { startServer } from "../../packages/server/src/index"
import { bareEmbedded, barePostgres } from "./bare-me"
import { serveAsChild } from "./child"

const [mode, dataDir, token, databaseUrl] = process.argv.slice(2) as [string, string, string, string | undefined]

await serveAsChild(async () => {
  if (mode === "lore") {
    return startServer({ dataDir, port: 0, bootstrapToken: token, logLevel: "warning", ...(databaseUrl ? { databaseUrl } : {}) })
  }
  if (mode === "bare") return databaseUrl ? barePostgres(databaseUrl) : bareEmbedded(dataDir)
  throw new Error(`unknown mode ${mode}`)
})
