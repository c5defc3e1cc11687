/**
 * The bare counterpart of Lore's GET /api/me: node:http + pg doing what Lore's authentication and getMe
 * handler do for a token they have not seen (one lookup query), on every request, and nothing else.
 */
import { PGlite } from "@electric-sql/pglite"
import { vector } from "@electric-sql/pglite-pgvector"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { createHash } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import pg from "pg"

/** The SQL Lore's IdentityRepo sends for principalByTokenHash (when its principal cache misses), verbatim. */
export const PRINCIPAL_SQL = `
        SELECT t.id AS credential_id, t.expires_at AS credential_expires_at, t.last_used_at, 
      u.id AS user_id, u.organization_id, u.department_id, d.name AS department_name, u.email, u.name, u.role,
      u.clearance, u.active,
      coalesce((SELECT array_agg(m.role ORDER BY m.role) FROM platform_role_members m WHERE m.user_id = u.id), '{}') AS platform_roles
        FROM access_tokens t JOIN users u ON u.id = t.user_id JOIN departments d ON d.id = u.department_id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`
const TOUCH_SQL = `UPDATE access_tokens SET last_used_at = now() WHERE id = $1`
/** As Lore's Authenticator: last_used_at is written at most this often per token. */
const TOUCH_INTERVAL_MS = 60_000

interface PrincipalRow {
  credential_id: string
  last_used_at: Date | null
  user_id: string
  organization_id: string
  department_id: string
  department_name: string
  email: string
  name: string
  role: string
  clearance: string
  active: boolean
  platform_roles: string[]
}

export interface BareServer {
  readonly url: string
  readonly stop: () => Promise<void>
}

/** Parse the bearer token, sha256 it, look it up, maybe touch it, read the department name, answer JSON. */
const meHandler = (pool: pg.Pool) => {
  const lastTouched = new Map<string, number>()
  const send = (res: ServerResponse, status: number, body: unknown, type = "application/json") => {
    const text = JSON.stringify(body)
    res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(text) })
    res.end(text)
  }
  const problem = (res: ServerResponse, status: number, code: string) => send(res, status, { status, code }, "application/problem+json")

  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      if (req.method !== "GET" || req.url !== "/api/me") return problem(res, 404, "ROUTE_NOT_FOUND")
      const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")
      if (!match) return problem(res, 401, "UNAUTHENTICATED")
      const hash = createHash("sha256").update(match[1]!).digest("hex")
      const { rows } = await pool.query<PrincipalRow>(PRINCIPAL_SQL, [hash])
      const row = rows[0]
      if (!row) return problem(res, 401, "INVALID_TOKEN")
      if (!row.active) return problem(res, 401, "USER_DEACTIVATED")
      const now = Date.now()
      const touched = lastTouched.get(row.credential_id) ?? row.last_used_at?.getTime() ?? 0
      if (now - touched > TOUCH_INTERVAL_MS) {
        lastTouched.set(row.credential_id, now)
        await pool.query(TOUCH_SQL, [row.credential_id])
      }
      send(res, 200, {
        authenticated: true,
        subject: `user:${row.user_id}`,
        authorizationProvider: "lore-access-token",
        userId: row.user_id,
        organizationId: row.organization_id,
        departmentId: row.department_id,
        departmentName: row.department_name,
        name: row.name,
        email: row.email,
        role: row.role,
        clearance: row.clearance,
        platformRoles: row.platform_roles
      })
    } catch (error) {
      console.error(error)
      if (!res.headersSent) problem(res, 500, "INTERNAL_ERROR")
    }
  }
}

const listen = async (pool: pg.Pool, closeDatabase: () => Promise<void>): Promise<BareServer> => {
  const handle = meHandler(pool)
  // Requests still running when the load stops must finish before the pool closes.
  const inFlight = new Set<Promise<void>>()
  const server = createServer((req, res) => {
    const running = handle(req, res)
    inFlight.add(running)
    void running.finally(() => inFlight.delete(running))
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      const closed = new Promise<void>((done) => server.close(() => done()))
      server.closeIdleConnections()
      await Promise.all(inFlight)
      server.closeAllConnections()
      await closed
      await pool.end()
      await closeDatabase()
    }
  }
}

/** On PostgreSQL: a pg pool of 10, as Lore's PgClient has. */
export const barePostgres = (url: string) =>
  listen(new pg.Pool({ connectionString: url, max: 10, idleTimeoutMillis: 30_000 }), async () => {})

/**
 * On embedded PGlite, wired exactly as Lore's db/Sql.ts wires it: PGlite (with pgvector) on
 * <dataDir>/pgdata, PGLiteSocketServer on a unix socket taking one connection, a pg pool of one.
 */
export const bareEmbedded = async (dataDir: string) => {
  const db = await PGlite.create({ dataDir: resolve(dataDir, "pgdata"), extensions: { vector } })
  const socketDir = mkdtempSync(join(tmpdir(), "lore-bench-"))
  const socket = new PGLiteSocketServer({ db, path: join(socketDir, ".s.PGSQL.5432"), maxConnections: 1 })
  await socket.start()
  const pool = new pg.Pool({ host: socketDir, port: 5432, database: "postgres", user: "postgres", max: 1, min: 1, idleTimeoutMillis: 0 })
  return listen(pool, async () => {
    await socket.stop()
    await db.close()
    rmSync(socketDir, { recursive: true, force: true })
  })
}
