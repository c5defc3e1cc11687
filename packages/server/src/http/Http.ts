import { HttpApi, HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Scope } from "effect"
import { createServer } from "node:http"
import { Settings } from "../Config"
import { EndpointAccessTable } from "../domain/Security"
import { endpointAccessTable } from "./Access"
import { LoreApi } from "./Api"
import { bodyLimits } from "./BodyLimits"
import { problemJson } from "./ProblemJson"
import { routeTable } from "./RouteTable"

const routes = routeTable(LoreApi)

/** What every endpoint requires of its caller, for the authorization middleware. */
export const EndpointAccessLive = Layer.succeed(EndpointAccessTable, endpointAccessTable(LoreApi))

/**
 * Request line and headers together. Node's 16 KiB default would refuse a search question near its
 * 10,000-character limit once percent-encoded (up to 9 bytes a character for non-Latin text) with a bare 431.
 */
const MAX_HEADER_BYTES = 128 * 1024

/**
 * The HTTP server over the API's handlers (assembled by the app from each area's Http.ts). Its socket
 * opens only once the API (and so the database and migrations below it) is ready: requests that arrived
 * during migration would otherwise hang.
 */
export const serveApi = <E, R>(handlers: Layer.Layer<HttpApi.Api, E, R>) =>
  Layer.unwrapEffect(
    Effect.map(Settings, (settings) =>
      inServingContext(
        HttpApiBuilder.serve(problemJson({ routes, maxJsonBytes: settings.maxJsonBytes, maxUploadBytes: settings.maxUploadBytes })).pipe(
          Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
          Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/api/openapi.json" })),
          Layer.provideMerge(NodeHttpServer.layer(() => createServer({ maxHeaderSize: MAX_HEADER_BYTES }), { port: settings.port, host: settings.host })),
          // No span per request: nothing exports traces, and the platform's span parses the URL, redacts and copies
          // every request and response header into attributes (issue 33 point 16; docs/benchmarks.md "me").
          HttpMiddleware.withTracerDisabledWhen(() => true)
        )
      ).pipe(Layer.provide(Layer.provide(handlers, bodyLimits(settings.bodyStallMs))))
    )
  )

/**
 * Builds the server in a context holding only the API, not every service of the app beside it. Every request
 * runs in the server's context first, and the platform copies it (the request, the route) and compares it
 * whole (Effect.scoped replaces its Scope; a context of equal size is compared entry by entry) several times a
 * request: with the app's ~90 services that was a tenth of GET /api/me's CPU (issue 33 point 16). The handlers
 * lose nothing: each group runs in the context it was built in, and the API's middleware in the API's.
 */
const inServingContext = <A, E>(server: Layer.Layer<A, E, HttpApi.Api>) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const api = yield* HttpApi.Api
      // The app's memo map: the router the groups filled is the one the server serves.
      const memoMap = yield* Layer.CurrentMemoMap
      // mapInputContext replaces the context; Effect.provide would merge the app's into it again.
      return yield* Layer.buildWithMemoMap(server, memoMap, scope).pipe(
        Effect.mapInputContext((_: Context.Context<never>) => Context.make(Scope.Scope, scope).pipe(Context.add(HttpApi.Api, api)))
      )
    })
  )

export const serverUrl = Effect.map(HttpServer.HttpServer, (server) =>
  server.address._tag === "TcpAddress"
    ? `http://${server.address.hostname.includes(":") ? `[${server.address.hostname}]` : server.address.hostname}:${server.address.port}`
    : `unix:${server.address.path}`
)
