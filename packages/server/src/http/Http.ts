import { type HttpApi, HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
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
      HttpApiBuilder.serve(problemJson({ routes, maxJsonBytes: settings.maxJsonBytes, maxUploadBytes: settings.maxUploadBytes })).pipe(
        Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
        Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/api/openapi.json" })),
        Layer.provideMerge(NodeHttpServer.layer(() => createServer({ maxHeaderSize: MAX_HEADER_BYTES }), { port: settings.port, host: settings.host })),
        Layer.provide(Layer.provide(handlers, bodyLimits(settings.bodyStallMs))),
        // No span per request: nothing exports traces, and the platform's span parses the URL, redacts and copies
        // every request and response header into attributes (issue 33 point 16; docs/benchmarks.md "me").
        HttpMiddleware.withTracerDisabledWhen(() => true)
      )
    )
  )

export const serverUrl = Effect.map(HttpServer.HttpServer, (server) =>
  server.address._tag === "TcpAddress"
    ? `http://${server.address.hostname.includes(":") ? `[${server.address.hostname}]` : server.address.hostname}:${server.address.port}`
    : `unix:${server.address.path}`
)
