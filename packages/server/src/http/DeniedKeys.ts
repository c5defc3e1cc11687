import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { quoteInput } from "../domain/Echo"
import { findDeniedKey } from "../domain/SafeKeys"

/**
 * JSON bodies on /api with a `__proto__`, `constructor` or `prototype` key at any depth (or as a segment of a
 * dotted key) are refused with 400 VALIDATION_FAILED before any handler or library sees them, and so are
 * bodies nested deeper than 64 levels (docs/security.md). The body's text is the platform's, cached on the
 * request, so the handler reads the same body without a second read of the socket.
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

/** Deeper than this (arrays and objects) is refused: schema filters walk values recursively. */
const MAX_DEPTH = 64

/** Whether a JSON text nests deeper than `max`, by one pass over its characters (strings skipped). */
const nestsDeeperThan = (text: string, max: number) => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/**
 * Only a body whose text holds one of the denied words (or a \u escape, which could spell one) is parsed and
 * walked: on 1.27 MB of small keys the walk took 57-276 ms, the word search under 1 ms and the depth pass
 * 18-37 ms (a loaded 2-core machine).
 */
const mayHoldDeniedKey = /__proto__|constructor|prototype|\\u/

export const refuseDeniedKeys = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  request: HttpServerRequest.HttpServerRequest
) => {
  if (!isApi(request.url) || !isJson(request) || request.method === "GET" || request.method === "HEAD") return app
  return Effect.flatMap(Effect.either(request.text), (read) => {
    // An unreadable body is the handler's to refuse (MALFORMED_BODY, or 413 over the limit): the failure is cached.
    if (read._tag === "Left") return app
    const text = read.right
    if (nestsDeeperThan(text, MAX_DEPTH)) return Effect.succeed(refused("(too deep)"))
    if (!mayHoldDeniedKey.test(text)) return app
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return app
    }
    const denied = findDeniedKey(value, MAX_DEPTH)
    return denied === null ? app : Effect.succeed(refused(denied))
  })
}
