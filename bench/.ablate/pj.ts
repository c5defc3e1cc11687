import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApp, HttpIncomingMessage, HttpServer, HttpServerRequest, HttpServerResponse, Multipart } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Cause, Context, Effect, Exit, FiberRef, Layer, Option, Schema, Scope } from "effect"
import { randomUUID } from "node:crypto"
import http, { createServer } from "node:http"

const Ping = Schema.Struct({ ok: Schema.Boolean, id: Schema.UUID, name: Schema.String })
class G extends HttpApiGroup.make("g").add(HttpApiEndpoint.get("ping", "/ping").addSuccess(Ping)).prefix("/api") {}
class A extends HttpApi.make("a").add(G) {}
const GLive = HttpApiBuilder.group(A, "g", (h) => h.handle("ping", () => Effect.succeed({ ok: true, id: "8f0d8a52-4c1e-4b55-9d3c-6d1f3a1b2c3d", name: "x" })))
const ApiLive = HttpApiBuilder.api(A).pipe(Layer.provide(GLive))
const Rid = FiberRef.unsafeMake("")

const mw = (flags: Set<string>) => <E, R>(app: HttpApp.Default<E, R>) => Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const requestId = randomUUID()
  const started = Date.now()
  const finish = (response: HttpServerResponse.HttpServerResponse) => {
    const r = flags.has("hdr") ? HttpServerResponse.setHeader(response, "x-request-id", requestId) : response
    return flags.has("log")
      ? Effect.as(Effect.logDebug("request").pipe(Effect.annotateLogs({ requestId, method: request.method, url: request.url, status: r.status, durationMs: Date.now() - started })), r)
      : Effect.succeed(r)
  }
  if (flags.has("pre")) yield* HttpApp.appendPreResponseHandler((_q, response) => finish(response))
  let eff: Effect.Effect<any, any, any> = app
  if (flags.has("max")) eff = HttpIncomingMessage.withMaxBodySize(eff, Option.some(1e6))
  if (flags.has("multi")) eff = Multipart.withLimits(eff, { maxFileSize: Option.some(1e7) })
  if (flags.has("tap")) eff = Effect.tapErrorCause(eff, (c) => Cause.isInterruptedOnly(c) ? Effect.void : Effect.logError("x", c))
  if (flags.has("locally")) eff = Effect.locally(eff, Rid, requestId)
  if (flags.has("annot")) eff = Effect.annotateLogs(eff, "requestId", requestId)
  return yield* eff
})

const start = async (variant: string) => {
  const flags = new Set(variant.split("+"))
  const layer = (HttpApiBuilder.serve(variant === "none" ? undefined : (mw(flags) as any)) as Layer.Layer<any, any, any>).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })), Layer.provide(ApiLive)) as Layer.Layer<any, any, never>
  const scope = Effect.runSync(Scope.make())
  const context = (await Effect.runPromise(Layer.buildWithScope(layer, scope))) as Context.Context<any>
  return `http://127.0.0.1:${(Context.get(context, HttpServer.HttpServer).address as any).port}`
}
const variants = process.argv[2]!.split(",")
const servers: Record<string, string> = {}
for (const v of variants) servers[v] = await start(v)
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const get = (url: string) => new Promise<void>((ok, fail) => { const r = http.get(url, { agent }, (res) => { res.resume(); res.on("end", ok) }); r.on("error", fail) })
const times: Record<string, number[]> = {}
for (const k in servers) for (let i = 0; i < 500; i++) await get(servers[k] + "/api/ping")
for (let r = 0; r < 15; r++) for (const k in servers) {
  const t0 = process.hrtime.bigint(); for (let i = 0; i < 200; i++) await get(servers[k] + "/api/ping")
  ;(times[k] ??= []).push(Number(process.hrtime.bigint() - t0) / 1000 / 200)
}
for (const k in servers) { const s = times[k]!.sort((a, b) => a - b); console.log(`${k.padEnd(40)} min ${s[0]!.toFixed(0).padStart(5)} µs  median ${s[7]!.toFixed(0).padStart(5)} µs`) }
process.exit(0)
