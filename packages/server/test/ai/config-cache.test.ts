import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { ConfigProvider, type Context, Effect, Either, Exit, Layer, Option, Redacted, Scope, Tracer } from "effect"
import { AiConfigCache, type SharedAiConfig, withAiConfig } from "../../src/ai/ConfigCache"
import { EmbeddingSettings } from "../../src/ai/EmbeddingSettings"
import { Models } from "../../src/ai/Models"
import { appLayer } from "../../src/App"
import { type LoreSettings, Settings } from "../../src/Config"
import { type Principal, systemActor } from "../../src/domain/Principal"
import { serverUrl } from "../../src/http/Http"
import { chat, textOf } from "../assistant/support"
import { createTestDatabase, type TestDatabase } from "../jobs/support"
import { client, type Client, ingested } from "../knowledge/support"
import { type FakeChat, startFakeChat } from "../support/chatProviders"
import { newBootstrapToken } from "../support/server"

/**
 * The AI configuration cache: routes, gateways and assistant models are read once per process and kept
 * until an administrator (or anyone, through any server or plain SQL) changes them, when the database's
 * announcement on `lore_ai_config` drops them. Runs on PGlite, and on PostgreSQL when DATABASE_URL is set.
 */

const SECRET = "sk-config-cache-0123456789abcdef"
const POOL_SIZE = 3

type Services = AiConfigCache | Models | SqlClient.SqlClient | PgClient.PgClient
let database: TestDatabase
let scope: Scope.CloseableScope
let context: Context.Context<Services>
let provider: FakeChat
let admin: Client
let actor: Principal
const run = <A, E>(effect: Effect.Effect<A, E, Services>) => Effect.runPromise(Effect.provide(effect, context))
const counts = () => run(Effect.map(AiConfigCache, (cache) => cache.counts()))

beforeAll(async () => {
  // Each model answers in its own words, so a reply shows which route served it.
  provider = await startFakeChat({ apiKey: SECRET, gapMs: 5, text: (body) => [`Answered by ${body.model}: flights need approval [`, "1]."] })
  database = await createTestDatabase()
  const token = newBootstrapToken()
  const settings: LoreSettings = { ...database.settings, port: 0, bootstrapToken: Option.some(Redacted.make(token)), databasePoolSize: POOL_SIZE }
  scope = Effect.runSync(Scope.make())
  context = await Effect.runPromise(Layer.buildWithScope(appLayer(Layer.merge(Layer.succeed(Settings, settings), EmbeddingSettings.layer(undefined))), scope)) as any
  const url = Effect.runSync(Effect.provide(serverUrl, context as unknown as Context.Context<HttpServer.HttpServer>))
  admin = client(url, token)
  const [organization] = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string }>`SELECT id FROM organizations LIMIT 1`))
  actor = systemActor(organization!.id, "config cache test")
  const space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "travel", name: "Travel" })).body.id
  expect((await admin.call("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
  await ingested(admin, { spaceId: space, name: "travel.md", title: "Travel policy", bytes: "# Travel policy\n\nFlights need a manager's approval before booking.\n", type: "text/markdown", classification: "INTERNAL" })
}, 120_000)
afterAll(async () => {
  if (scope) await Effect.runPromise(Scope.close(scope, Exit.void))
  await database?.dispose()
  await provider?.close()
})

const createGateway = async (key: string) => {
  const gateway = await admin.call("POST", "/api/admin/ai/gateways", { gatewayKey: key, displayName: key, preset: "OPENAI_COMPATIBLE", baseUrl: `${provider.url}/v1`, requestTimeoutSeconds: 10 })
  expect(gateway.status, JSON.stringify(gateway.body)).toBe(201)
  expect((await admin.call("PUT", `/api/admin/ai/gateways/${gateway.body.id}/credential`, { apiKey: SECRET })).status).toBe(204)
  return gateway.body.id as string
}

const routeChat = async (gatewayProfileId: string, modelId: string) => {
  const current = (await admin.call("GET", "/api/admin/ai/routes")).body.find((route: any) => route.workload === "ASSISTANT_CHAT")
  const set = await admin.call("PUT", "/api/admin/ai/routes/ASSISTANT_CHAT", { gatewayProfileId, modelId, version: current.version })
  expect(set.status, JSON.stringify(set.body)).toBe(200)
}

const ask = async () => {
  const reply = await chat(admin, { message: "Do flights need approval?" })
  expect(reply.status).toBe(200)
  return textOf(reply.chunks)
}

describe("routes, gateways and models cached per process", { timeout: 120_000 }, () => {
  it("an administrator's route change reaches the next chat without a restart; between changes no chat reads the configuration", async () => {
    const gateway = await createGateway("cached-a")
    await routeChat(gateway, "model-a")
    expect(await ask()).toContain("Answered by model-a")

    // Warm: the chats that follow resolve keyword planning's and the chat model's routes from memory.
    const warm = await counts()
    for (let i = 0; i < 3; i++) expect(await ask()).toContain("Answered by model-a")
    const after = await counts()
    expect(after.loads).toBe(warm.loads)
    expect(after.hits - warm.hits).toBeGreaterThanOrEqual(6)

    await routeChat(gateway, "model-b")
    expect(await ask()).toContain("Answered by model-b")
    // The change dropped the organization's entry: read once again, then served from memory.
    const changed = await counts()
    expect(changed.loads).toBeGreaterThan(after.loads)
    expect(await ask()).toContain("Answered by model-b")
    expect((await counts()).loads).toBe(changed.loads)
  })

  it("counts the statements: a model call resolves its route, gateway and key with none once cached", async () => {
    /** The SQL statements `effect` runs (each is an `sql.execute` span of @effect/sql). */
    const statements = <A, E>(effect: Effect.Effect<A, E, Services>) =>
      run(Effect.gen(function* () {
        let count = 0
        const base = yield* Effect.tracer
        const counting = Tracer.make({
          span: (name, ...rest) => {
            if (name === "sql.execute") count++
            return base.span(name, ...rest)
          },
          context: base.context
        })
        yield* Effect.withTracer(effect, counting)
        return count
      }))
    const resolveBoth = Effect.flatMap(Models, (models) =>
      Effect.all([models.resolve(actor, "KEYWORD_PLANNING"), models.resolve(actor, "ASSISTANT_CHAT")]))
    await statements(resolveBoth)
    const warm = await statements(resolveBoth)
    await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE ai_routes SET version = version WHERE workload = 'ASSISTANT_CHAT'`))
    const cold = await statements(resolveBoth)
    console.info(`statements to resolve keyword planning's and the chat model's routes: ${cold} after a change, ${warm} cached`)
    expect(cold).toBeGreaterThanOrEqual(3)
    expect(warm).toBe(0)
  })

  it("hears a change committed outside this server's services (another server, an operator's SQL)", async () => {
    const model = () => run(Effect.map(Effect.flatMap(Models, (models) => models.resolve(actor, "ASSISTANT_CHAT")), (resolved) => resolved.provider.modelId))
    expect(await model()).toBe("model-b")
    const loads = (await counts()).loads
    expect(await model()).toBe("model-b")
    expect((await counts()).loads).toBe(loads)
    // Through a connection of its own: no application code runs, only the table's trigger announces it.
    await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE ai_routes SET model_id = 'model-c' WHERE workload = 'ASSISTANT_CHAT'`))
    expect(await model()).toBe("model-c")
    expect((await counts()).loads).toBe(loads + 1)

  })

  it("reads the database, not the cache, inside a transaction that changed the configuration", async () => {
    const seen = await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(Effect.gen(function* () {
        yield* sql`UPDATE ai_routes SET model_id = 'model-in-transaction' WHERE workload = 'ASSISTANT_CHAT'`
        const inside = yield* Effect.flatMap(Models, (models) => models.resolve(actor, "ASSISTANT_CHAT"))
        yield* sql`UPDATE ai_routes SET model_id = 'model-c' WHERE workload = 'ASSISTANT_CHAT'`
        return inside
      }))))
    expect(seen.provider.modelId).toBe("model-in-transaction")
    const model = await run(Effect.flatMap(Models, (models) => models.resolve(actor, "ASSISTANT_CHAT")))
    expect(model.provider.modelId).toBe("model-c")

    // A disabled gateway is seen at once too: LOCAL answers and says why.
    const gateways = (await admin.call("GET", "/api/admin/ai/gateways")).body
    const cached = gateways.find((gateway: any) => gateway.gatewayKey === "cached-a")
    expect((await admin.call("PUT", `/api/admin/ai/gateways/${cached.id}`, { enabled: false, version: cached.version })).status).toBe(200)
    const fallen = await run(Effect.flatMap(Models, (models) => models.resolve(actor, "ASSISTANT_CHAT")))
    expect(fallen.provider).toMatchObject({ gatewayKey: "local", fallbackReason: expect.stringContaining("cached-a is disabled") })
  })

  it("one chat reads one configuration: reads sharing it keep the first, while a change reaches every read outside", async () => {
    // Last: it leaves ASSISTANT_CHAT routed to model-s2.
    const gateway = await createGateway("shared-a")
    await routeChat(gateway, "model-s1")
    const chatRoute = Effect.flatMap(AiConfigCache, (cache) =>
      Effect.map(cache.snapshot(actor.organizationId), (snapshot) => snapshot.routes.find((route) => route.workload === "ASSISTANT_CHAT")?.modelId))
    const shared: SharedAiConfig = new Map()
    expect(await run(withAiConfig(shared)(chatRoute))).toBe("model-s1")
    await routeChat(gateway, "model-s2")
    expect(await run(chatRoute)).toBe("model-s2")
    expect(await run(withAiConfig(shared)(chatRoute))).toBe("model-s1")
    expect(await run(withAiConfig(new Map())(chatRoute))).toBe("model-s2")
  })
})

describe("LORE_DATABASE_POOL_SIZE", () => {
  const load = (env: Record<string, string>) =>
    Effect.runPromise(Effect.either(Settings.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))))

  it("defaults to 10, takes 1 to 1000, and names the variable when it is wrong", async () => {
    expect(Either.getOrThrow(await load({})).databasePoolSize).toBe(10)
    expect(Either.getOrThrow(await load({ LORE_DATABASE_POOL_SIZE: "40" })).databasePoolSize).toBe(40)
    for (const wrong of ["0", "1001", "ten", "-3"]) {
      const failed = await load({ LORE_DATABASE_POOL_SIZE: wrong })
      expect(Either.isLeft(failed), wrong).toBe(true)
      expect(String(Either.getLeft(failed).pipe(Option.getOrThrow))).toContain("LORE_DATABASE_POOL_SIZE")
    }
  })

  it("sizes the PostgreSQL pool (embedded PGlite keeps its one connection), and every connection runs without JIT", async () => {
    // More statements at once than connections: each backend that answers is one of the pool's.
    const rows = (await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.all(Array.from({ length: POOL_SIZE + 2 }, () => sql<{ jit: string; pid: number }>`SELECT current_setting('jit') AS jit, pg_backend_pid() AS pid FROM pg_sleep(0.05)`), { concurrency: "unbounded" })))).flat()
    expect(new Set(rows.map((row) => row.pid)).size).toBe(database.kind === "postgresql" ? POOL_SIZE : 1)
    // JIT compiled search statements for longer than they ran (docs/decisions.md); PGlite has none to turn off.
    if (database.kind === "postgresql") expect(rows.map((row) => row.jit)).toEqual(rows.map(() => "off"))
  })
})
