import { type Command, InvalidArgumentError } from "commander"
import { resolve } from "node:path"
import { type CommandModule, handler } from "../command"
import type { Runtime } from "../context"
import { usageError } from "../errors"

export interface ServeOptions {
  readonly host?: string
  readonly port?: number
  readonly dataDir?: string
}

/** The same settings `npm start` reads (packages/server/src/Config.ts), flags first. */
export const serverSettings = (options: ServeOptions, env: NodeJS.ProcessEnv) => {
  const port = options.port ?? (env.LORE_PORT ? Number(env.LORE_PORT) : 8787)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`invalid port '${env.LORE_PORT}' in LORE_PORT`)
  const databaseUrl = env.DATABASE_URL || env.LORE_DATABASE_URL || undefined
  const maxUploadBytes = env.LORE_MAX_UPLOAD_BYTES ? Number(env.LORE_MAX_UPLOAD_BYTES) : undefined
  const maxJsonBytes = env.LORE_MAX_JSON_BYTES ? Number(env.LORE_MAX_JSON_BYTES) : undefined
  return {
    host: options.host ?? env.LORE_HOST ?? "127.0.0.1",
    port,
    dataDir: resolve(options.dataDir ?? env.LORE_DATA_DIR ?? "./.lore"),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(env.LORE_BOOTSTRAP_TOKEN ? { bootstrapToken: env.LORE_BOOTSTRAP_TOKEN } : {}),
    ...(env.LORE_ADMIN_EMAIL ? { adminEmail: env.LORE_ADMIN_EMAIL } : {}),
    ...(maxUploadBytes !== undefined ? { maxUploadBytes } : {}),
    ...(maxJsonBytes !== undefined ? { maxJsonBytes } : {}),
    logLevel: env.LORE_LOG_LEVEL ?? "info",
    announce: true
  }
}

const untilSignal = () =>
  new Promise<NodeJS.Signals>((done) => {
    process.once("SIGINT", () => done("SIGINT"))
    process.once("SIGTERM", () => done("SIGTERM"))
  })

/**
 * Runs the Lore server in this process until SIGINT/SIGTERM, then stops it gracefully (in-flight requests
 * finish, the database closes). The server is loaded only here, so other commands never load it.
 */
export const serve = async (runtime: Runtime, options: ServeOptions) => {
  const settings = serverSettings(options, runtime.env)
  const json = runtime.output === "json"
  // The server logs JSON lines through console.log; with --json stdout carries only the ready line.
  if (json) console.log = (...args: unknown[]) => console.error(...args)
  const { startServer } = await import("@lore/server")
  const server = await startServer(settings)
  if (json) {
    // One line, so a parent process reading line by line gets the address as soon as it is ready.
    process.stdout.write(JSON.stringify({ url: server.url, dataDir: settings.dataDir, database: settings.databaseUrl ? "postgresql" : "embedded" }) + "\n")
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

const parsePort = (value: string) => {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError("a port number from 0 to 65535")
  return port
}

export const serveCommand: CommandModule = {
  register: (program: Command) => {
    program
      .command("serve")
      .description("run the Lore server in this process (same as 'npm start'); settings from LORE_* and DATABASE_URL")
      .option("--host <host>", "interface to listen on (LORE_HOST, default 127.0.0.1)")
      .option("--port <port>", "port to listen on (LORE_PORT, default 8787; 0 picks a free one)", parsePort)
      .option("--data-dir <dir>", "embedded database and files (LORE_DATA_DIR, default ./.lore)")
      .action(handler((runtime, command) => serve(runtime, command.opts<ServeOptions>())))
  }
}
