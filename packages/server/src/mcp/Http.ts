import { HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { isInitializeRequest, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js"
import { Effect, FiberRef, Option, Stream } from "effect"
import { problemType, titles } from "../domain/Errors"
import { CurrentRequestId } from "../domain/RequestId"
import { Authenticator } from "../identity/Authenticator"
import { acceptableId, capErrorMessages, MCP_MAX_BATCH, MCP_MAX_BODY_BYTES, MCP_MAX_DEPTH, MCP_MAX_ID_CHARS, nestedDeeperThan } from "./Limits"
import { authInfoOf } from "./Server"
import { makeSessions } from "./Sessions"

export const MCP_PATH = "/mcp"
const SESSION_HEADER = "mcp-session-id"

/** A refusal before MCP starts (authentication, method), as problem+json; 401 names the Bearer scheme. */
const problem = (status: number, code: string, detail: string, requestId: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(
    { type: problemType(code), title: titles[status] ?? "Error", status, detail, code, ...(requestId ? { requestId } : {}) },
    { status, contentType: "application/problem+json", headers }
  )

/** A JSON-RPC error without a request id, as the SDK's transport answers what it cannot take. */
const rpcError = (status: number, code: number, message: string) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", error: { code, message }, id: null }, { status })

/** A message over MCP_MAX_BODY_BYTES: refused unread, the connection closed (its rest is not read). */
const tooLarge = () =>
  HttpServerResponse.unsafeJson(
    { jsonrpc: "2.0", error: { code: -32600, message: `Invalid Request: a message is at most ${MCP_MAX_BODY_BYTES / 1024} KiB` }, id: null },
    { status: 413, headers: { connection: "close" } }
  )

const isInitialize = (body: unknown) => (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body))

/**
 * The Model Context Protocol at /mcp: Streamable HTTP on the SDK's web-standard transport (Request in, Response
 * out), mounted beside the HttpApi by App.ts through http/RawRoutes.ts. Every request is authenticated by the
 * API's Authenticator (Bearer token, or session cookie with the CSRF header on POST and DELETE): a revoked token
 * or a deactivated user stops at the next request, whatever session it names.
 *
 * - POST initialize opens a session (Mcp-Session-Id, bound to the user); later POSTs name it, GET opens its
 *   stream of notifications (prompts/list_changed), DELETE ends it. Answers to POSTs are plain JSON.
 * - A POST that names no session and is not initialize is answered statelessly (a server and transport for that
 *   request alone): enough for a one-off tools/call from a script.
 * - An unknown session, or one of another user, is 404: the client initializes again.
 */
export const makeMcpApp = Effect.gen(function* () {
  const authenticator = yield* Authenticator
  const sessions = yield* makeSessions
  const factory = sessions.factory

  const respond = (response: Response, onEnd?: () => void) => {
    const contentType = response.headers.get("content-type") ?? undefined
    const headers: Record<string, string> = { "cache-control": "no-store" }
    for (const name of [SESSION_HEADER, "allow"]) {
      const value = response.headers.get(name)
      if (value) headers[name] = value
    }
    if (!response.body) return Effect.succeed(HttpServerResponse.empty({ status: response.status, headers }))
    // A JSON answer is complete when the transport hands it over: sent with its length, not as a stream. Its
    // error messages pass the echo guard (Limits.ts) on the way out.
    if (contentType?.startsWith("application/json")) {
      return Effect.map(Effect.promise(() => response.text()), (text) => {
        let answer = text
        try {
          answer = JSON.stringify(capErrorMessages(JSON.parse(text)))
        } catch {
          // Not JSON after all: sent as it came.
        }
        return HttpServerResponse.text(answer, { status: response.status, headers, contentType })
      })
    }
    const body = Stream.fromReadableStream({ evaluate: () => response.body!, onError: (error) => error }).pipe(
      Stream.ensuring(Effect.sync(() => onEnd?.()))
    )
    return Effect.succeed(HttpServerResponse.stream(body, { status: response.status, headers, ...(contentType ? { contentType } : {}) }))
  }

  const serve = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = yield* FiberRef.get(CurrentRequestId)
    const authenticated = yield* Effect.either(authenticator.authenticate(request))
    if (authenticated._tag === "Left") {
      const failure = authenticated.left
      return problem(failure.status, failure.code, failure.detail, requestId, failure.status === 401 ? { "www-authenticate": failure.code === "UNAUTHENTICATED" ? `Bearer realm="lore"` : `Bearer realm="lore", error="invalid_token"` } : {})
    }
    const caller = authenticated.right
    if (!["POST", "GET", "DELETE"].includes(request.method)) {
      return problem(405, "METHOD_NOT_ALLOWED", "MCP takes POST (messages), GET (a session's notification stream) and DELETE (ending a session)", requestId, { allow: "POST, GET, DELETE" })
    }
    // The SDK's transport would quote an unknown version back; this answer names only the supported ones.
    const version = request.headers["mcp-protocol-version"]
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return rpcError(400, -32000, `Bad Request: unsupported MCP-Protocol-Version (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`)
    }
    let body: unknown
    if (request.method === "POST") {
      if (Number(request.headers["content-length"] ?? "0") > MCP_MAX_BODY_BYTES) return tooLarge()
      const text = yield* Effect.either(request.text.pipe(HttpIncomingMessage.withMaxBodySize(Option.some(MCP_MAX_BODY_BYTES))))
      if (text._tag === "Left") {
        const tooMuch = text.left.cause instanceof Error && text.left.cause.message === "maxBytes exceeded"
        return tooMuch ? tooLarge() : rpcError(400, -32700, "Parse error: the body could not be read")
      }
      try {
        body = JSON.parse(text.right)
      } catch {
        return rpcError(400, -32700, "Parse error: Invalid JSON")
      }
      if (Array.isArray(body) && (body.length === 0 || body.length > MCP_MAX_BATCH)) {
        return rpcError(400, -32600, `Invalid Request: a batch holds 1 to ${MCP_MAX_BATCH} messages`)
      }
      if (nestedDeeperThan(body, MCP_MAX_DEPTH)) return rpcError(400, -32600, `Invalid Request: nested deeper than ${MCP_MAX_DEPTH} levels`)
      // An answer repeats its request's id: a long one would be an echo.
      if ((Array.isArray(body) ? body : [body]).some((message) => !acceptableId((message as { id?: unknown } | null)?.id))) {
        return rpcError(400, -32600, `Invalid Request: an id is a number or a string of at most ${MCP_MAX_ID_CHARS} characters`)
      }
    }
    const url = new URL(request.url, `http://${request.headers.host ?? "localhost"}`)
    const headers = new Headers()
    for (const [key, value] of Object.entries(request.headers)) headers.set(key, value)
    const web = new Request(url, { method: request.method, headers })
    const runtime = yield* Effect.runtime<never>()
    const options = { authInfo: authInfoOf({ caller, runtime }), ...(body === undefined ? {} : { parsedBody: body }) }
    const sessionId = request.headers[SESSION_HEADER]

    if (sessionId !== undefined) {
      const session = sessions.find(sessionId, caller)
      if (!session) return rpcError(404, -32001, "Session not found: initialize a new one")
      if (request.method === "GET") {
        session.streams += 1
        const response = yield* Effect.promise(() => session.transport.handleRequest(web, options))
        if (!response.body) session.streams -= 1
        return yield* respond(response, () => (session.streams -= 1))
      }
      return yield* respond(yield* Effect.promise(() => session.transport.handleRequest(web, options)))
    }
    if (request.method === "POST" && isInitialize(body)) {
      const { server, transport } = sessions.open(caller)
      yield* Effect.promise(() => server.connect(transport))
      return yield* respond(yield* Effect.promise(() => transport.handleRequest(web, options)))
    }
    if (request.method !== "POST") return rpcError(400, -32000, `Bad Request: ${request.method} needs an ${SESSION_HEADER} header`)
    const server = factory.make()
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    yield* Effect.promise(() => server.connect(transport))
    const response = yield* Effect.promise(() => transport.handleRequest(web, options)).pipe(Effect.ensuring(Effect.promise(() => server.close())))
    return yield* respond(response)
  })

  return serve.pipe(
    Effect.catchAllDefect((defect) =>
      Effect.flatMap(FiberRef.get(CurrentRequestId), (requestId) =>
        Effect.as(Effect.logError("MCP request failed", defect), problem(500, "INTERNAL_ERROR", "An unexpected error occurred; quote the x-request-id header when reporting it", requestId))))
  )
})
