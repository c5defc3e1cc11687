import {
  HttpApp,
  HttpIncomingMessage,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  Multipart
} from "@effect/platform"
import { Cause, Effect, FiberRef, LogLevel, Option } from "effect"
import { defaultCodes, type Problem, problemType, titles } from "./Problem"
import { CurrentRequestId, requestIdFrom } from "./RequestId"
import type { RouteTable } from "./RouteTable"

export interface ProblemOptions {
  readonly routes: RouteTable
  readonly maxJsonBytes: number
  readonly maxUploadBytes: number
}

const problemTags = new Set([
  "BadRequest", "Unauthorized", "Forbidden", "NotFound", "Conflict", "PayloadTooLarge",
  "UnsupportedMediaType", "Unprocessable", "TooManyRequests", "ServiceUnavailable", "InternalError"
])

type Issue = { readonly path?: ReadonlyArray<PropertyKey>; readonly message?: string }

const readJson = (response: HttpServerResponse.HttpServerResponse): Record<string, any> | undefined => {
  if (response.body._tag !== "Uint8Array") return undefined
  try {
    const value = JSON.parse(new TextDecoder().decode(response.body.body))
    return value !== null && typeof value === "object" ? value : undefined
  } catch {
    return undefined
  }
}

/** What an error response said, in Lore's terms; the platform's own bodies are translated. */
const describe = (
  response: HttpServerResponse.HttpServerResponse,
  request: HttpServerRequest.HttpServerRequest,
  routes: RouteTable
): Omit<Problem, "type" | "title" | "requestId"> & { readonly allow?: string } => {
  const status = response.status
  const body = readJson(response)
  if (body && problemTags.has(body._tag) && typeof body.code === "string") {
    return { status, code: body.code, detail: String(body.detail ?? ""), ...(body.errors ? { errors: body.errors } : {}) }
  }
  if (body?._tag === "HttpApiDecodeError") {
    const issues: ReadonlyArray<Issue> = Array.isArray(body.issues) ? body.issues : []
    return {
      status: 400,
      code: "VALIDATION_FAILED",
      detail: "The request does not match the expected shape: " + String(body.message ?? "").split("\n")[0],
      errors: issues.map((issue) => ({
        path: (issue.path ?? []).map(String).join("."),
        message: issue.message ?? "is invalid"
      }))
    }
  }
  if (status === 400 && response.body._tag === "Empty") {
    return { status, code: "MALFORMED_BODY", detail: "The request body could not be read as the declared content type (is it valid JSON?)" }
  }
  if (status === 404) {
    const url = new URL(request.url, "http://lore")
    const allowed = routes.methodsFor(url.pathname)
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return {
        status: 405,
        code: "METHOD_NOT_ALLOWED",
        detail: `${request.method} is not allowed on ${url.pathname}; use ${allowed.join(", ")}`,
        allow: allowed.join(", ")
      }
    }
    if (allowed.length === 0) {
      return { status, code: "ROUTE_NOT_FOUND", detail: `No endpoint at ${request.method} ${url.pathname}` }
    }
  }
  const detail: Record<number, string> = {
    401: "Authentication is required: send Authorization: Bearer <token> or sign in for a session cookie",
    413: "The request body is larger than this server accepts",
    500: "An unexpected error occurred; quote the request id when reporting it",
    503: "The service is shutting down or not ready; retry shortly"
  }
  return {
    status,
    code: defaultCodes[status] ?? `HTTP_${status}`,
    detail: typeof body?.message === "string" && status < 500 ? body.message : detail[status] ?? titles[status] ?? "Error"
  }
}

export const toProblemResponse = (
  response: HttpServerResponse.HttpServerResponse,
  request: HttpServerRequest.HttpServerRequest,
  routes: RouteTable,
  requestId: string
): HttpServerResponse.HttpServerResponse => {
  const { allow, ...problem } = describe(response, request, routes)
  const body: Problem = {
    type: problemType(problem.code),
    title: titles[problem.status] ?? "Error",
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    requestId,
    ...(problem.errors && problem.errors.length > 0 ? { errors: problem.errors } : {})
  }
  const headers = { ...response.headers, ...(allow ? { allow } : {}) }
  delete (headers as Record<string, string>)["content-type"]
  delete (headers as Record<string, string>)["content-length"]
  return HttpServerResponse.unsafeJson(body, {
    status: problem.status,
    headers,
    cookies: response.cookies,
    contentType: "application/problem+json"
  })
}

const hasBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined

const isMultipart = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").toLowerCase().startsWith("multipart/")

/**
 * The outermost layer: gives every request its id, bounds body sizes, logs defects with their cause,
 * and makes every non-2xx answer one problem+json body, whatever layer produced it. The rewrite is a
 * pre-response handler because the platform sends the response before outer middleware sees it.
 */
export const problemJson = (options: ProblemOptions) =>
  <E, R>(app: HttpApp.Default<E, R>) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = requestIdFrom(request.headers["x-request-id"])
      const limit = isMultipart(request) ? options.maxUploadBytes + 1024 * 1024 : options.maxJsonBytes
      const started = Date.now()

      // The access log is debug-level; skip building it on the hot path when nobody reads it.
      const accessLog = LogLevel.lessThanEqual(yield* FiberRef.get(FiberRef.currentMinimumLogLevel), LogLevel.Debug)
      const finish = (response: HttpServerResponse.HttpServerResponse) => {
        const answered = response.status >= 400 ? toProblemResponse(response, request, options.routes, requestId) : response
        const stamped = HttpServerResponse.setHeader(answered, "x-request-id", requestId)
        return accessLog
          ? Effect.as(
            Effect.logDebug("request").pipe(
              Effect.annotateLogs({ requestId, method: request.method, url: request.url, status: answered.status, durationMs: Date.now() - started })
            ),
            stamped
          )
          : Effect.succeed(stamped)
      }

      if (Number(request.headers["content-length"] ?? "0") > limit) {
        return yield* finish(HttpServerResponse.empty({ status: 413 }))
      }
      yield* HttpApp.appendPreResponseHandler((_request, response) => finish(response))
      const bounded = hasBody(request)
        ? app.pipe(
          HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
          // The parser counts a part's headers against its size; the exact byte limit is checked by the upload itself.
          Multipart.withLimits({ maxFileSize: Option.some(options.maxUploadBytes + 64 * 1024) })
        )
        : app
      return yield* bounded.pipe(
        Effect.tapErrorCause((cause) =>
          Effect.flatMap(HttpServerError.causeResponse(cause), ([response]) =>
            response.status >= 500 && !Cause.isInterruptedOnly(cause) ? Effect.logError("request failed", cause) : Effect.void
          )
        ),
        Effect.locally(CurrentRequestId, requestId),
        Effect.annotateLogs("requestId", requestId)
      )
    })

export const currentRequestId = FiberRef.get(CurrentRequestId)
