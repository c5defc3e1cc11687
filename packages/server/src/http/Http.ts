import { HttpApiBuilder, HttpApiScalar, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { AccessAdminHttp } from "../access/AdminHttp"
import { KnowledgeSpacesHttp } from "../access/Http"
import { InvitationsHttp, UsersAdminHttp } from "../identity/AdminHttp"
import { AuditHttp } from "../platform/AuditHttp"
import { KnowledgeHttp, SourcesHttp } from "../knowledge/Http"
import { Settings } from "../Config"
import { AuthenticationLive } from "../identity/AuthenticationLive"
import { MeHttp, SessionHttp } from "../identity/Http"
import { PlatformHttp } from "../platform/Http"
import { LoreApi } from "./Api"
import { BodyLimitsLive } from "./BodyLimits"
import { problemJson } from "./ProblemJson"
import { routeTable } from "./RouteTable"

/** Every group's handlers, and the middleware they declare. */
export const ApiLive = HttpApiBuilder.api(LoreApi).pipe(
  Layer.provide([PlatformHttp, SessionHttp, MeHttp, KnowledgeSpacesHttp, InvitationsHttp, UsersAdminHttp, AccessAdminHttp, AuditHttp, SourcesHttp, KnowledgeHttp]),
  Layer.provide(AuthenticationLive),
  Layer.provide(BodyLimitsLive)
)

const routes = routeTable(LoreApi)

/**
 * The HTTP server. Its socket opens only once the API (and so the database and migrations below it)
 * is ready: requests that arrived during migration would otherwise hang.
 */
export const HttpLive = Layer.unwrapEffect(
  Effect.map(Settings, (settings) =>
    HttpApiBuilder.serve(problemJson({ routes, maxJsonBytes: settings.maxJsonBytes, maxUploadBytes: settings.maxUploadBytes })).pipe(
      Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
      Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/api/openapi.json" })),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: settings.port, host: settings.host })),
      Layer.provide(ApiLive)
    )
  )
)

export const serverUrl = Effect.map(HttpServer.HttpServer, (server) =>
  server.address._tag === "TcpAddress"
    ? `http://${server.address.hostname.includes(":") ? `[${server.address.hostname}]` : server.address.hostname}:${server.address.port}`
    : `unix:${server.address.path}`
)
