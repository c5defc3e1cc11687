import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { Effect, FiberRef } from "effect"
import { problemType, titles } from "../domain/Errors"
import { CurrentRequestId } from "../domain/RequestId"
import { Authenticator } from "../identity/Authenticator"
import { makeMcpServerFactory } from "./Server"

export const MCP_PATH = "/mcp"

/** A refusal before MCP starts (authentication, method, body), as problem+json; 401 names the Bearer scheme. */
const problem = (status: number, code: string, detail: string, requestId: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(
    { type: problemType(code), title: titles[status] ?? "Error", status, detail, code, ...(requestId ? { requestId } : {}) },
    { status, contentType: "application/problem+json", headers }
  )

/** A JSON-RPC error with no request id, as the transport answers a body it cannot read. */
const rpcError = (status: number, code: number, message: string) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", error: { code, message }, id: null }, { status })

/**
 * The Model Context Protocol at /mcp: Streamable HTTP, stateless (every POST carries its own credentials and
 * gets a fresh server and transport, answered as JSON), on the SDK's web-standard transport. The caller is
 * authenticated on every request by the API's Authenticator (Bearer token or session cookie with CSRF on
 * POST), so a revoked token or a deactivated user stops at the next request. App.ts mounts it beside the
 * HttpApi with http/RawRoutes.ts. GET (a server-initiated stream) and DELETE (ending a session) have nothing
 * to serve without sessions: 405.
 */
export const makeMcpApp = Effect.gen(function* () {
  const authenticator = yield* Authenticator
  const serverFor = yield* makeMcpServerFactory

  const serve = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = yield* FiberRef.get(CurrentRequestId)
    const authenticated = yield* Effect.either(authenticator.authenticate(request))
    if (authenticated._tag === "Left") {
      const failure = authenticated.left
      return problem(failure.status, failure.code, failure.detail, requestId, failure.status === 401 ? { "www-authenticate": `Bearer realm="lore", error="invalid_token"` } : {})
    }
    const caller = authenticated.right
    if (request.method !== "POST") {
      return problem(405, "METHOD_NOT_ALLOWED", "This MCP endpoint is stateless: send JSON-RPC messages with POST (there is no session stream to GET or DELETE)", requestId, { allow: "POST" })
    }
    const text = yield* Effect.either(request.text)
    if (text._tag === "Left") return rpcError(400, -32700, "Parse error: the body could not be read")
    let body: unknown
    try {
      body = JSON.parse(text.right)
    } catch {
      return rpcError(400, -32700, "Parse error: Invalid JSON")
    }
    const url = new URL(request.url, `http://${request.headers.host ?? "localhost"}`)
    const headers = new Headers()
    for (const [key, value] of Object.entries(request.headers)) headers.set(key, value)
    const runtime = yield* Effect.runtime<never>()
    const server = serverFor(caller, runtime)
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    yield* Effect.promise(() => server.connect(transport))
    const response = yield* Effect.promise(() => transport.handleRequest(new Request(url, { method: "POST", headers }), { parsedBody: body })).pipe(
      Effect.ensuring(Effect.promise(() => server.close()))
    )
    const answer = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
    const contentType = response.headers.get("content-type")
    return HttpServerResponse.uint8Array(answer, {
      status: response.status,
      ...(contentType ? { contentType } : {}),
      headers: { "cache-control": "no-store" }
    })
  })

  return serve.pipe(
    Effect.catchAllDefect((defect) =>
      Effect.flatMap(FiberRef.get(CurrentRequestId), (requestId) =>
        Effect.as(Effect.logError("MCP request failed", defect), problem(500, "INTERNAL_ERROR", "An unexpected error occurred; quote the x-request-id header when reporting it", requestId))))
  )
})
