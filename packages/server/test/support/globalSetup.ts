import { startServer } from "@lore/server"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The bootstrap token of the template database every embedded test server starts from. */
export const TEMPLATE_TOKEN = "lore_pat_testtemplate0000000000000000000000"

/**
 * Creating an embedded database (initdb, migrations, bootstrap) costs seconds; copying a finished one
 * costs a fraction. So the run makes one template data dir and each test file starts from a copy
 * (test/support/server.ts). On PostgreSQL every file still gets a fresh database of its own.
 */
export default async function setup() {
  if (process.env.DATABASE_URL) return
  const dir = mkdtempSync(join(tmpdir(), "lore-template-"))
  const server = await startServer({ dataDir: dir, port: 0, bootstrapToken: TEMPLATE_TOKEN, logLevel: "warning" })
  await server.stop()
  process.env.LORE_TEST_TEMPLATE_DIR = dir
  return () => rmSync(dir, { recursive: true, force: true })
}
