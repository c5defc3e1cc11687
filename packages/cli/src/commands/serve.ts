import { resolve } from "node:path"
import { parseCount } from "../arguments"
import { defineCommand } from "../command"
import type { Runtime } from "../context"
import { CliError, ExitCode } from "../errors"

export interface ServeOptions {
  readonly host?: string
  readonly port?: number
  readonly dataDir?: string
}

/** Command-line overrides of the settings `npm start` reads from the environment. */
export const serverOverrides = (options: ServeOptions) => ({
  ...(options.host !== undefined ? { host: options.host } : {}),
  ...(options.port !== undefined ? { port: options.port } : {}),
  ...(options.dataDir !== undefined ? { dataDir: resolve(options.dataDir) } : {})
})

const untilSignal = () =>
  new Promise<NodeJS.Signals>((done) => {
    process.once("SIGINT", () => done("SIGINT"))
    process.once("SIGTERM", () => done("SIGTERM"))
  })

const SERVER_PACKAGE = "@lore/server"

/**
 * The server is an optional peer of the CLI: an installed `@lore/cli` brings neither the server nor its
 * database and parsers, so `lore serve` loads it here, and says how to get it when it is not there.
 */
const loadServer = async (): Promise<typeof import("@lore/server")> => {
  try {
    return await import("@lore/server")
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" ? String((error as Error).message) : ""
    // Node names the package when it is absent, and the file when the package is there but unbuilt.
    if (missing.includes(`'${SERVER_PACKAGE}'`)) {
      throw new CliError(
        ExitCode.unexpected,
        "SERVER_NOT_INSTALLED",
        `lore serve needs the Lore server (${SERVER_PACKAGE}), which is not installed beside this CLI: ` +
          "run the server from a clone of the Lore repository (npm ci && npm start), " +
          `or install ${SERVER_PACKAGE} next to @lore/cli`
      )
    }
    if (missing.includes("/server/dist/")) {
      throw new CliError(
        ExitCode.unexpected,
        "SERVER_NOT_BUILT",
        `lore serve found the Lore server (${SERVER_PACKAGE}) but not its build: run npm run build (or npm start) at the repository root`
      )
    }
    throw error
  }
}

/**
 * Runs the Lore server in this process until SIGINT/SIGTERM, then stops it gracefully (in-flight requests
 * finish, the database closes). The server is loaded only here, so other commands never load it.
 */
export const serve = async (runtime: Runtime, options: ServeOptions) => {
  const json = runtime.output === "json"
  // The server logs JSON lines through console.log; with --json stdout carries only the ready line.
  if (json) console.log = (...args: unknown[]) => console.error(...args)
  const { startServerFromEnv } = await loadServer()
  const overrides = serverOverrides(options)
  const server = await startServerFromEnv(overrides)
  if (json) {
    // One line, so a parent process reading line by line gets the address as soon as it is ready.
    const dataDir = overrides.dataDir ?? resolve(runtime.env.LORE_DATA_DIR ?? "./.lore")
    const database = runtime.env.DATABASE_URL || runtime.env.LORE_DATABASE_URL ? "postgresql" : "embedded"
    process.stdout.write(JSON.stringify({ url: server.url, dataDir, database }) + "\n")
  }
  process.stderr.write(`Serving ${server.url}; press Ctrl+C to stop.\n`)
  const signal = await untilSignal()
  process.stderr.write(`${signal}: stopping…\n`)
  // A second signal while stopping means "now".
  const force = () => process.exit(1)
  process.once("SIGINT", force)
  process.once("SIGTERM", force)
  await server.stop()
  process.stderr.write("Stopped.\n")
}

export default defineCommand({
  description: "run the Lore server in this process (same as 'npm start'); settings from LORE_* and DATABASE_URL",
  helpGroup: "Getting started",
  examples: [
    "lore serve                                  # http://127.0.0.1:8787, embedded database in ./.lore",
    "lore serve --port 9000 --data-dir /var/lib/lore",
    "DATABASE_URL=postgres://lore@db/lore lore serve --host 0.0.0.0",
    "lore --json serve --port 0                  # one ready line {url,dataDir,database} on stdout"
  ],
  configure: (command) =>
    command
      .option("--host <host>", "interface to listen on (LORE_HOST, default 127.0.0.1)")
      .option("--port <port>", "port to listen on (LORE_PORT, default 8787; 0 picks a free one)", parseCount(0, 65535))
      .option("--data-dir <dir>", "embedded database and files (LORE_DATA_DIR, default ./.lore)"),
  run: (runtime, command) => serve(runtime, command.opts<ServeOptions>())
})
