import { startServer, type RunningServer, type StartOptions } from "@lore/server"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { TEMPLATE_TOKEN } from "./globalSetup"

/** A fresh bootstrap token per server, so tests know the admin's credential without reading files. */
export const newBootstrapToken = () => `lore_pat_test${Math.random().toString(36).slice(2)}${"x".repeat(24)}`

export interface TestServer extends RunningServer {
  readonly adminToken: string
  readonly dataDir: string
  readonly databaseUrl: string | undefined
  /** Stops and starts again on the same data dir / database (restart tests). */
  readonly restart: () => Promise<TestServer>
  /** Stops and deletes the data dir and the database. */
  readonly dispose: () => Promise<void>
}

const adminUrl = () => process.env.DATABASE_URL

/** Tests chat and upload more often than a person; files that test the limits set their own. */
const TEST_RATE_LIMITS = { chat: { perMinute: 6000, burst: 500 }, fileUpload: { perMinute: 6000, burst: 500 } }

/**
 * A Lore server in this process on a random port: embedded PGlite in a temporary data dir, or, when
 * DATABASE_URL is set, a database of its own on that PostgreSQL server, dropped afterwards.
 */
export const startTestServer = async (options: Partial<StartOptions> = {}): Promise<TestServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), "lore-test-"))
  const databaseUrl = adminUrl() ? await createDatabase(adminUrl()!) : undefined
  // Embedded: start from a copy of the run's template database (globalSetup.ts) unless a token is chosen.
  const template = !databaseUrl && !options.bootstrapToken ? process.env.LORE_TEST_TEMPLATE_DIR : undefined
  if (template) cpSync(template, dataDir, { recursive: true })
  const adminToken = options.bootstrapToken ?? (template ? TEMPLATE_TOKEN : newBootstrapToken())
  const boot = async (): Promise<TestServer> => {
    const server = await startServer({ port: 0, rateLimits: TEST_RATE_LIMITS, ...options, dataDir, databaseUrl, bootstrapToken: adminToken })
    const self: TestServer = {
      ...server,
      adminToken,
      dataDir,
      databaseUrl,
      restart: async () => {
        await server.stop()
        return boot()
      },
      dispose: async () => {
        await server.stop()
        rmSync(dataDir, { recursive: true, force: true })
        if (databaseUrl) await dropDatabase(adminUrl()!, databaseUrl)
      }
    }
    return self
  }
  return boot()
}

const createDatabase = async (url: string) => {
  const name = `lore_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  const target = new URL(url)
  target.pathname = `/${name}`
  return target.toString()
}

const dropDatabase = async (url: string, databaseUrl: string) => {
  const name = new URL(databaseUrl).pathname.slice(1)
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  } finally {
    await client.end()
  }
}
