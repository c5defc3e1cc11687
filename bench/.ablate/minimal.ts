import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApiScalar, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Exit, Layer, Logger, Schema, Scope } from "effect"
import http, { createServer } from "node:http"
import { problemJson } from "../../packages/server/src/http/ProblemJson"
import { routeTable } from "../../packages/server/src/http/RouteTable"

const Ping = Schema.Struct({ ok: Schema.Boolean, id: Schema.UUID, name: Schema.String })
class G extends HttpApiGroup.make("g").add(HttpApiEndpoint.get("ping", "/ping").addSuccess(Ping)).prefix("/api") {}
class A extends HttpApi.make("a").add(G) {}
const GLive = HttpApiBuilder.group(A, "g", (h) => h.handle("ping", () => Effect.succeed({ ok: true, id: "8f0d8a52-4c1e-4b55-9d3c-6d1f3a1b2c3d", name: "x" })))
const ApiLive = HttpApiBuilder.api(A).pipe(Layer.provide(GLive))

const start = async (variant: string) => {
  const v = new Set(variant.split("+"))
  const mw = v.has("problem") ? problemJson({ routes: routeTable(A as any), maxJsonBytes: 1e6, maxUploadBytes: 1e7 }) : undefined
  let serve: Layer.Layer<any, any, any> = HttpApiBuilder.serve(mw as any)
  if (v.has("docs")) serve = serve.pipe(Layer.provide(HttpApiScalar.layer({ path: "/docs" })), Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/api/openapi.json" })))
  let layer: Layer.Layer<any, any, never> = serve.pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })), Layer.provide(ApiLive)) as any
  if (v.has("notrace")) layer = Layer.provide(layer, Layer.setTracerEnabled(false))
  if (v.has("json")) layer = Layer.provide(layer, Logger.json)
  const scope = Effect.runSync(Scope.make())
  const context = (await Effect.runPromise(Layer.buildWithScope(layer, scope))) as Context.Context<any>
  const server = Context.get(context, HttpServer.HttpServer)
  const addr = server.address as any
  return { url: `http://127.0.0.1:${addr.port}`, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
const bareServer = createServer((req, res) => { const t = JSON.stringify({ ok: true, id: "8f0d8a52-4c1e-4b55-9d3c-6d1f3a1b2c3d", name: "x" }); res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(t) }); res.end(t) })
await new Promise<void>((ok) => bareServer.listen(0, "127.0.0.1", ok))
const variants = (process.argv[2] ?? "plain,notrace,problem,docs,problem+docs").split(",")
const servers: Record<string, string> = { bare: `http://127.0.0.1:${(bareServer.address() as any).port}` }
for (const v of variants) servers[v] = (await start(v)).url
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const get = (url: string) => new Promise<void>((ok, fail) => { const r = http.get(url, { agent }, (res) => { res.resume(); res.on("end", ok) }); r.on("error", fail) })
const times: Record<string, number[]> = {}
for (const k in servers) for (let i = 0; i < 500; i++) await get(servers[k] + "/api/ping")
for (let r = 0; r < 15; r++) for (const k in servers) {
  const t0 = process.hrtime.bigint(); for (let i = 0; i < 200; i++) await get(servers[k] + "/api/ping")
  ;(times[k] ??= []).push(Number(process.hrtime.bigint() - t0) / 1000 / 200)
}
for (const k in servers) { const s = times[k]!.sort((a, b) => a - b); console.log(`${k.padEnd(24)} min ${s[0]!.toFixed(0).padStart(5)} µs  median ${s[7]!.toFixed(0).padStart(5)} µs`) }
process.exit(0)
