import {
  HttpApp,
  HttpIncomingMessage,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  Multipart
} from "@effect/platform"
import { Cause, Effect, FiberRef, HashMap, LogLevel, Option } from "effect"
import {
  defaultCodes, type FieldError, InternalError, MalformedBody, MethodNotAllowed, PayloadTooLarge, type Problem, problemRegistry,
  problemType, RouteNotFound, ServiceUnavailable, titles, Unauthenticated, ValidationFailed
} from "../domain/Errors"
import { CurrentRequestId, requestIdFrom } from "../domain/RequestId"
import { RequestCatchUp } from "../db/Notifications"
import { checksOwnInput, isRawRoute } from "./RawRoutes"
import type { RouteTable } from "./RouteTable"
import { describeIssues, summarize } from "../domain/ValidationMessages"
import { quoteInput } from "../domain/Echo"

export interface ProblemOptions {
  readonly routes: RouteTable
  readonly maxJsonBytes: number
  readonly maxUploadBytes: number
}

type Described = Omit<Problem, "type" | "title" | "requestId"> & { readonly allow?: string }

const readJson = (response: HttpServerResponse.HttpServerResponse): Record<string, any> | undefined => {
  if (response.body._tag !== "Uint8Array") return undefined
  try {
    const value = JSON.parse(new TextDecoder().decode(response.body.body))
    return value !== null && typeof value === "object" ? value : undefined
  } catch {
    return undefined
  }
}

const of = (error: { readonly status: number; readonly code: string; readonly detail: string; readonly errors?: ReadonlyArray<FieldError> | undefined }): Described => ({
  status: error.status,
  code: error.code,
  detail: error.detail,
  ...(error.errors && error.errors.length > 0 ? { errors: error.errors } : {})
})

const bytes = (n: number) =>
  n >= 1024 * 1024 && n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB (${n} bytes)`
    : n >= 1024 && n % 1024 === 0 ? `${n / 1024} KiB (${n} bytes)`
    : `${n} bytes`

/** What an error response said, in Lore's terms; the platform's own bodies are translated. */
const describe = (
  response: HttpServerResponse.HttpServerResponse,
  request: HttpServerRequest.HttpServerRequest,
  options: ProblemOptions
): Described => {
  const status = response.status
  const body = readJson(response)
  // An error class of Lore's: its encoded form is already the problem body.
  if (body && problemRegistry.has(body._tag)) return of(body as any)
  if (body?._tag === "HttpApiDecodeError") {
    const fields = describeIssues(Array.isArray(body.issues) ? body.issues : [])
    return of(new ValidationFailed({ detail: summarize(fields), errors: fields }))
  }
  if (status === 400 && response.body._tag === "Empty") {
    return of(new MalformedBody({ detail: "The request body could not be read as the declared content type (is it valid JSON?)" }))
  }
  if (status === 404) {
    const url = new URL(request.url, "http://lore")
    const allowed = options.routes.methodsFor(url.pathname)
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return { ...of(new MethodNotAllowed({ detail: `${request.method} is not allowed on ${quoteInput(url.pathname, 120)}; use ${allowed.join(", ")}` })), allow: allowed.join(", ") }
    }
    if (allowed.length === 0) return of(new RouteNotFound({ detail: `No endpoint at ${quoteInput(request.method, 20)} ${quoteInput(url.pathname, 120)}` }))
  }
  switch (status) {
    case 401:
      return of(new Unauthenticated({ detail: "Authentication is required: send Authorization: Bearer <token> or sign in for a session cookie" }))
    case 413:
      return of(new PayloadTooLarge({
        detail: isMultipart(request)
          ? `The upload is larger than this server accepts: at most ${bytes(options.maxUploadBytes)} (LORE_MAX_UPLOAD_BYTES)`
          : `The request body is larger than this server accepts: at most ${bytes(options.maxJsonBytes)} of JSON (LORE_MAX_JSON_BYTES)`
      }))
    case 500:
      return of(new InternalError({ detail: "An unexpected error occurred; quote the request id when reporting it" }))
    case 503:
      return of(new ServiceUnavailable({ detail: "The service is shutting down or not ready; retry shortly" }))
  }
  return {
    status,
    code: defaultCodes[status] ?? `HTTP_${status}`,
    detail: typeof body?.message === "string" && status < 500 ? quoteInput(body.message) : titles[status] ?? "Error"
  }
}

export const toProblemResponse = (
  response: HttpServerResponse.HttpServerResponse,
  request: HttpServerRequest.HttpServerRequest,
  options: ProblemOptions,
  requestId: string
): HttpServerResponse.HttpServerResponse => {
  const { allow, ...problem } = describe(response, request, options)
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

/** A Lore error as a response the problem layer then writes out (for answers given before the API runs). */
const problemResponse = (error: { readonly _tag: string; readonly status: number; readonly code: string; readonly detail: string }) =>
  HttpServerResponse.unsafeJson({ _tag: error._tag, status: error.status, code: error.code, detail: error.detail }, { status: error.status })

const hasBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined

const isMultipart = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").toLowerCase().startsWith("multipart/")

/** Logs a failure that becomes a 5xx, with its cause (the response only says "quote the request id"). */
const logServerError = <E>(cause: Cause.Cause<E>) =>
  Effect.flatMap(HttpServerError.causeResponse(cause), ([response]) =>
    response.status >= 500 && !Cause.isInterruptedOnly(cause) ? Effect.logError("request failed", cause) : Effect.void
  )

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
      const started = Date.now()

      // The access log is debug-level; skip building it on the hot path when nobody reads it.
      const accessLog = LogLevel.lessThanEqual(yield* FiberRef.get(FiberRef.currentMinimumLogLevel), LogLevel.Debug)
      // Raw routes (SCIM, MCP) answer errors in their own protocol's format.
      const raw = isRawRoute(request.url)
      const finish = (response: HttpServerResponse.HttpServerResponse) => {
        const answered = response.status >= 400 && !raw ? toProblemResponse(response, request, options, requestId) : response
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

      const body = hasBody(request)
      const limit = body && isMultipart(request) ? options.maxUploadBytes + 1024 * 1024 : options.maxJsonBytes
      const ownChecks = raw && checksOwnInput(request.url)
      if (!ownChecks && body && Number(request.headers["content-length"] ?? "0") > limit) {
        return yield* finish(HttpServerResponse.empty({ status: 413 }))
      }
      // PostgreSQL cannot store NUL in text: refuse it in any path or query parameter before it reaches SQL.
      if (!ownChecks && request.url.includes("%00")) {
        return yield* finish(problemResponse(new ValidationFailed({ detail: "The request is invalid: parameters must not contain the NUL character (%00)" })))
      }
      yield* HttpApp.appendPreResponseHandler((_request, response) => finish(response))
      // Set, not `Effect.locally`: this runs at the root of the request's own fiber, which ends with the
      // request, so there is nothing to restore (and locally's acquire/release showed in the profile).
      yield* FiberRef.set(CurrentRequestId, requestId)
      yield* FiberRef.set(RequestCatchUp, { trip: undefined })
      yield* FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set<string, unknown>("requestId", requestId))
      const bounded = body
        ? app.pipe(
          HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
          // The parser counts a part's headers against its size; the exact byte limit is checked by the upload itself.
          Multipart.withLimits({ maxFileSize: Option.some(options.maxUploadBytes + 64 * 1024) })
        )
        : app
      return yield* Effect.tapErrorCause(bounded, logServerError)
    })

export const currentRequestId = FiberRef.get(CurrentRequestId)
