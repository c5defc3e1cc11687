/** Child side of bench/hostile.ts: a Lore server from source on embedded PGlite, default parse settings. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startServer } from "../../packages/server/src/index"
import { serveAsChild } from "./child"

const [token] = process.argv.slice(2)
const dataDir = mkdtempSync(join(tmpdir(), "lore-bench-hostile-"))
await serveAsChild(async () => {
  const server = await startServer({ dataDir, port: 0, bootstrapToken: token!, logLevel: "error" })
  return {
    url: server.url,
    stop: async () => {
      await server.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
})
