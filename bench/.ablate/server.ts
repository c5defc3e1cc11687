import { HttpMiddleware, HttpServer } from "@effect/platform"
import { Context, Effect, Exit, Layer, Logger, LogLevel, Option, Redacted, Scope } from "effect"
import { appLayer } from "../../packages/server/src/App"
import { Settings } from "../../packages/server/src/Config"
import { serverUrl } from "../../packages/server/src/http/Http"
import { serveAsChild } from "../lib/child"

const [variant, dataDir, token, databaseUrl] = process.argv.slice(2) as [string, string, string, string | undefined]
const settings = Layer.succeed(Settings, Settings.make({
  dataDir, port: 0, logLevel: "warning", announce: false,
  databaseUrl: databaseUrl ? Option.some(Redacted.make(databaseUrl)) : Option.none(),
  bootstrapToken: Option.some(Redacted.make(token))
}))
let layer: Layer.Layer<any, any, never> = appLayer(settings)
const v = new Set(variant.split("+"))
if (v.has("nohttpspan")) layer = HttpMiddleware.withTracerDisabledWhen(layer, () => true)
if (v.has("notrace")) layer = Layer.provide(layer, Layer.setTracerEnabled(false))
if (v.has("nolog")) layer = Layer.provide(layer, Logger.minimumLogLevel(LogLevel.None))

await serveAsChild(async () => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const url = Effect.runSync(Effect.provide(serverUrl, Context.pick(HttpServer.HttpServer)(context as any)))
  return { url, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
})
