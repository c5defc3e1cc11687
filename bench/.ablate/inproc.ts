import { HttpMiddleware, HttpServer } from "@effect/platform"
import { Context, Effect, Exit, Layer, Logger, LogLevel, Option, Redacted, Scope } from "effect"
import { randomBytes, createHash } from "node:crypto"
import http from "node:http"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { appLayer } from "../../packages/server/src/App"
import { Settings } from "../../packages/server/src/Config"
import { serverUrl } from "../../packages/server/src/http/Http"
import { IdentityRepo } from "../../packages/server/src/identity/Repo"
import { Authenticator } from "../../packages/server/src/identity/Authenticator"
import { barePostgres, PRINCIPAL_SQL, DEPARTMENT_SQL } from "../lib/bare-me"

const token = `lore_pat_bench${randomBytes(24).toString("base64url")}`
const name = `lore_inproc_${process.pid}`
const admin = "postgres://postgres@127.0.0.1:5432/test"
{ const c = new pg.Client(admin); await c.connect(); await c.query(`CREATE DATABASE ${name}`); await c.end() }
const dbUrl = `postgres://postgres@127.0.0.1:5432/${name}`

const start = async (variant: string) => {
  const settings = Layer.succeed(Settings, Settings.make({
    dataDir: mkdtempSync(join(tmpdir(), "lore-inproc-")), port: 0, logLevel: "warning", announce: false,
    databaseUrl: Option.some(Redacted.make(dbUrl)), bootstrapToken: Option.some(Redacted.make(token))
  }))
  let layer: Layer.Layer<any, any, never> = appLayer(settings)
  const v = new Set(variant.split("+"))
  if (v.has("nohttpspan")) layer = HttpMiddleware.withTracerDisabledWhen(layer, () => true)
  if (v.has("notrace")) layer = Layer.provide(layer, Layer.setTracerEnabled(false))
  const scope = Effect.runSync(Scope.make())
  const context = (await Effect.runPromise(Layer.buildWithScope(layer, scope))) as Context.Context<any>
  const url = Effect.runSync(Effect.provide(serverUrl, Context.pick(HttpServer.HttpServer)(context)))
  return { url, context, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const lore = await start("lore")
const loreNoTrace = await start("notrace")
const bare = await barePostgres(dbUrl)
const pool = new pg.Pool({ connectionString: dbUrl, max: 1 })
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const get = (url: string, auth: boolean) => new Promise<void>((ok, fail) => {
  const req = http.get(url, { agent, headers: auth ? { authorization: `Bearer ${token}` } : {} }, (res) => { res.resume(); res.on("end", ok) })
  req.on("error", fail)
})
const hash = createHash("sha256").update(token).digest("hex")
const repo = Context.get(lore.context, IdentityRepo)
const authn = Context.get(lore.context, Authenticator)
const row = await Effect.runPromise(repo.principalByTokenHash(hash))
const run = <A, E>(e: Effect.Effect<A, E, any>) => Effect.runPromise(Effect.provide(e, lore.context) as Effect.Effect<A, E, never>)

const repoNT = Context.get(loreNoTrace.context, IdentityRepo)
const runNT = <A, E>(e: Effect.Effect<A, E, any>) => Effect.runPromise(Effect.provide(e, loreNoTrace.context) as Effect.Effect<A, E, never>)
const only = (process.env.ONLY ?? "").split(",").filter(Boolean)
const allOps: Record<string, () => Promise<unknown>> = {
  "effect-notrace principalByTokenHash": () => runNT(repoNT.principalByTokenHash(hash)),
  "effect-notrace departmentName": () => runNT(repoNT.departmentName(row!.departmentId)),
  "pg pool.connect+query+release dept": async () => { const c = await pool.connect(); try { await c.query(DEPARTMENT_SQL, [row!.departmentId]) } finally { c.release() } },
  "http lore /api/me": () => get(lore.url + "/api/me", true),
  "http lore-notrace /api/me": () => get(loreNoTrace.url + "/api/me", true),
  "http bare /api/me": () => get(bare.url + "/api/me", true),
  "http lore /api/me 401 (no db)": () => get(lore.url + "/api/me", false),
  "http lore /api/session/csrf (no db)": () => get(lore.url + "/api/session/csrf", false),
  "http bare 404 (no db)": () => get(bare.url + "/nothing", false),
  "effect principalByTokenHash": () => run(repo.principalByTokenHash(hash)),
  "pg principal query": () => pool.query(PRINCIPAL_SQL, [hash]),
  "effect departmentName": () => run(repo.departmentName(row!.departmentId)),
  "pg department query": () => pool.query(DEPARTMENT_SQL, [row!.departmentId]),
  "effect fromToken (hash+query)": () => run(authn.fromToken(token)),
  "effect Effect.void via runPromise": () => run(Effect.void)
}
const ops = Object.fromEntries(Object.entries(allOps).filter(([k]) => only.length === 0 || only.some((o) => k.includes(o))))
const batch = Number(process.env.BATCH ?? 200), rounds = Number(process.env.ROUNDS ?? 15)
const times: Record<string, number[]> = {}
for (const k in ops) { for (let i = 0; i < 300; i++) await ops[k]!() }
for (let r = 0; r < rounds; r++) {
  for (const k in ops) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < batch; i++) await ops[k]!()
    ;(times[k] ??= []).push(Number(process.hrtime.bigint() - t0) / 1000 / batch)
  }
}
for (const k in ops) {
  const s = times[k]!.sort((a, b) => a - b)
  console.log(`${k.padEnd(40)} min ${s[0]!.toFixed(0).padStart(5)} µs   median ${s[s.length >> 1]!.toFixed(0).padStart(5)} µs`)
}
agent.destroy(); await pool.end(); await bare.stop(); await lore.stop(); await loreNoTrace.stop()
{ const c = new pg.Client(admin); await c.connect(); await c.query(`DROP DATABASE ${name} WITH (FORCE)`); await c.end() }
