import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { quoteInput } from "../domain/Echo"
import { findDeniedKey } from "../domain/SafeKeys"

/**
 * JSON bodies on /api with a `__proto__`, `constructor` or `prototype` key at any depth (or as a segment of a
 * dotted key) are refused with 400 VALIDATION_FAILED before any handler or library sees them
 * (docs/security.md, "Prototype pollution"). The parse is the platform's own, cached on the request, so the
 * handler reads the same body without a second read of the socket.
 */

const isJson = (request: HttpServerRequest.HttpServerRequest) => {
  const type = (request.headers["content-type"] ?? "").toLowerCase().split(";")[0]!.trim()
  return type === "application/json" || type.endsWith("+json")
}

const isApi = (url: string) => url.startsWith("/api/") || url === "/api"

/** A problem the problem layer writes out (it recognises the tag and keeps `errors`). */
const refused = (key: string) => {
  const deep = key === "(too deep)"
  const message = deep ? "is nested too deeply (at most 64 levels)" : `holds the key ${quoteInput(key, 40)}, which is not accepted anywhere in a body`
  return HttpServerResponse.unsafeJson({
    _tag: "ValidationFailed",
    status: 400,
    code: "VALIDATION_FAILED",
    detail: `The request is invalid: the body ${message}`,
    errors: [{ path: "", message: `the body ${message}` }]
  }, { status: 400 })
}

export const refuseDeniedKeys = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  request: HttpServerRequest.HttpServerRequest
) => {
  if (!isApi(request.url) || !isJson(request) || request.method === "GET" || request.method === "HEAD") return app
  return Effect.flatMap(Effect.either(request.json), (parsed) => {
    // An unreadable body is the handler's to refuse (MALFORMED_BODY, or 413 over the limit): the failure is cached.
    if (parsed._tag === "Left") return app
    const denied = findDeniedKey(parsed.right)
    return denied === null ? app : Effect.succeed(refused(denied))
  })
}
