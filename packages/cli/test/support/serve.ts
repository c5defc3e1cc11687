import { execFileSync, spawn } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { binary, cliDir, ensureBuilt } from "./cli"

const serverDir = join(cliDir, "..", "server")

export interface ServedLore {
  readonly url: string
  /** The bootstrap admin's token (admin@lore.local). */
  readonly adminToken: string
  readonly dataDir: string
  /** The database of this server on PostgreSQL (DATABASE_URL set), else undefined (embedded). */
  readonly databaseUrl: string | undefined
  /** SIGTERM, wait for a clean exit, remove the data dir and drop the database. */
  readonly stop: () => Promise<void>
}

/** `lore serve` loads the built server; `npm test` builds it first, a lone vitest run builds it here. */
const ensureServerBuilt = () => {
  if (!existsSync(join(serverDir, "dist", "index.js"))) {
    execFileSync("npx", ["tsup"], { cwd: serverDir, stdio: "ignore", timeout: 180_000 })
  }
}

/** A database of its own on the PostgreSQL server of DATABASE_URL, so test files run in parallel. */
const createDatabase = async (adminUrl: string) => {
  const name = `lore_cli_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  const target = new URL(adminUrl)
  target.pathname = `/${name}`
  return target.toString()
}

const dropDatabase = async (adminUrl: string, databaseUrl: string) => {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`)
  } finally {
    await client.end()
  }
}

/**
 * Starts a Lore server the way a user does, `lore serve` from this repository's built CLI, as a child
 * process on a free port, and resolves once it prints its ready line. The database is embedded in a fresh
 * data dir (a copy of the run's template when the test run made one: it is the same finished database,
 * seconds faster), or, when DATABASE_URL is set, a new database on that PostgreSQL server. `env` adds
 * server settings (LORE_MAX_UPLOAD_BYTES, ...). CLI tests use this, never the server's test files.
 */
export const serveLore = async (env: Record<string, string> = {}): Promise<ServedLore> => {
  ensureBuilt()
  ensureServerBuilt()
  const dataDir = mkdtempSync(join(tmpdir(), "lore-cli-served-"))
  const adminUrl = process.env.DATABASE_URL
  const databaseUrl = adminUrl ? await createDatabase(adminUrl) : undefined
  const template = databaseUrl ? undefined : process.env.LORE_TEST_TEMPLATE_DIR
  let adminToken = `lore_pat_served${Math.random().toString(36).slice(2)}${"x".repeat(24)}`
  if (template) {
    cpSync(template, dataDir, { recursive: true })
    adminToken = readFileSync(join(dataDir, "bootstrap-token"), "utf8").trim()
  }
  const removeAll = async () => {
    rmSync(dataDir, { recursive: true, force: true })
    if (adminUrl && databaseUrl) await dropDatabase(adminUrl, databaseUrl)
  }
  try {
    const served = await spawnServe(dataDir, databaseUrl, adminToken, env)
    return { ...served, stop: async () => { await served.stop(); await removeAll() } }
  } catch (error) {
    await removeAll()
    throw error
  }
}

/**
 * One more Lore process on the database and data dir (its secret key) of `first`, as a second machine of a
 * deployment would run (PostgreSQL only: an embedded database belongs to one process). Its `stop` ends only
 * this process; `first.stop` removes what they share.
 */
export const serveBeside = (first: ServedLore, env: Record<string, string> = {}): Promise<ServedLore> =>
  spawnServe(first.dataDir, first.databaseUrl, first.adminToken, env)

/** `lore serve --json` as a child process; resolves with its URL once it prints its ready line. */
const spawnServe = async (dataDir: string, databaseUrl: string | undefined, adminToken: string, env: Record<string, string>): Promise<ServedLore> => {
  const child = spawn(process.execPath, [binary, "serve", "--json", "--port", "0", "--data-dir", dataDir], {
    // Only what the server needs: no LORE_* or DATABASE_URL from the developer's shell.
    env: {
      PATH: process.env.PATH ?? "",
      HOME: tmpdir(),
      LORE_BOOTSTRAP_TOKEN: adminToken,
      LORE_LOG_LEVEL: "warning",
      // Tests chat more often than a person; the limit itself is tested on the server's side.
      LORE_RATE_LIMIT_CHAT_PER_MINUTE: "6000",
      LORE_RATE_LIMIT_CHAT_BURST: "500",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    await exited
  }
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = ""
      const timer = setTimeout(() => reject(new Error(`lore serve printed no ready line in 90 s\nstderr: ${stderr}`)), 90_000)
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk
        const newline = stdout.indexOf("\n")
        if (newline < 0) return
        clearTimeout(timer)
        resolve((JSON.parse(stdout.slice(0, newline)) as { url: string }).url)
      })
      child.once("close", (code) => {
        clearTimeout(timer)
        reject(new Error(`lore serve exited ${code} before it was ready\nstderr: ${stderr}`))
      })
    })
    return { url, adminToken, dataDir, databaseUrl, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** A JSON request to the served Lore as its admin, for the setup the CLI under test does not cover. */
export const adminApi = (server: ServedLore) => (method: string, route: string, body?: unknown) =>
  fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
