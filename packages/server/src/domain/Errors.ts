import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * Lore's errors. Every failure a caller can act on is its own class, made by `ProblemError`, which fixes
 * its tag, HTTP status and stable UPPER_SNAKE code. Its encoded form is the RFC 9457 problem+json body
 * (less the request id, which the problem layer adds): the OpenAPI document lists, per operation and
 * status, exactly these classes, so clients narrow on `code` at compile time.
 */
export const FieldError = Schema.Struct({
  path: Schema.String,
  message: Schema.String,
  code: Schema.optional(Schema.String).annotations({ description: "The rule's stable code, where each broken rule has its own (skill packages)" })
}).annotations({ identifier: "FieldError" })
export type FieldError = typeof FieldError.Type

export const titles: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout"
}

export const problemType = (code: string) => `https://lore.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`

/** What one error class stands for, as docs/errors.md and the OpenAPI document describe it. */
export interface ProblemSpec {
  readonly tag: string
  readonly status: number
  readonly code: string
  readonly description: string
}

/** Every error class made by the factory, by tag (the OpenAPI transform and docs/errors.md read it). */
export const problemRegistry = new Map<string, ProblemSpec>()

/**
 * The factory: `class SpaceNotFound extends ProblemError<SpaceNotFound>()("SpaceNotFound", { status: 404,
 * code: "KNOWLEDGE_SPACE_NOT_FOUND", description: "..." }) {}`; construct with `new SpaceNotFound({ detail })`.
 */
export const ProblemError = <Self>() =>
  <const Tag extends string, const Code extends string, const Status extends number>(
    tag: Tag,
    spec: { readonly status: Status; readonly code: Code; readonly description: string }
  ) => {
    if (problemRegistry.has(tag)) throw new Error(`Two error classes are tagged ${tag}`)
    problemRegistry.set(tag, { tag, ...spec })
    const title = titles[spec.status] ?? "Error"
    return Schema.TaggedError<Self>()(
      tag,
      {
        type: Schema.Literal(problemType(spec.code)).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => problemType(spec.code))),
        title: Schema.String.pipe(Schema.propertySignature, Schema.withConstructorDefault(() => title)),
        status: Schema.Literal(spec.status).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => spec.status)),
        code: Schema.Literal(spec.code).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => spec.code)),
        detail: Schema.String,
        errors: Schema.optional(Schema.Array(FieldError))
      },
      HttpApiSchema.annotations({ status: spec.status, description: spec.description })
    )
  }

// The errors the HTTP layer itself produces, and the ones every area shares.

export class ValidationFailed extends ProblemError<ValidationFailed>()("ValidationFailed", {
  status: 400,
  code: "VALIDATION_FAILED",
  description: "A parameter or body field is missing or invalid; errors[] names each field and the rule it broke"
}) {}

export class MalformedBody extends ProblemError<MalformedBody>()("MalformedBody", {
  status: 400,
  code: "MALFORMED_BODY",
  description: "The body could not be read as its declared content type (not JSON, a broken multipart body)"
}) {}

export class InvalidCursor extends ProblemError<InvalidCursor>()("InvalidCursor", {
  status: 400,
  code: "INVALID_CURSOR",
  description: "The cursor was not issued by this list; start again without one"
}) {}

export class Unauthenticated extends ProblemError<Unauthenticated>()("Unauthenticated", {
  status: 401,
  code: "UNAUTHENTICATED",
  description: "No credential was sent: send Authorization: Bearer <token> or sign in for a session cookie"
}) {}

export class MalformedAuthorization extends ProblemError<MalformedAuthorization>()("MalformedAuthorization", {
  status: 401,
  code: "MALFORMED_AUTHORIZATION",
  description: "The Authorization header is not of the form Bearer <token>"
}) {}

export class InvalidToken extends ProblemError<InvalidToken>()("InvalidToken", {
  status: 401,
  code: "INVALID_TOKEN",
  description: "The access token is unknown, expired or revoked"
}) {}

export class SessionExpired extends ProblemError<SessionExpired>()("SessionExpired", {
  status: 401,
  code: "SESSION_EXPIRED",
  description: "The session cookie is unknown, expired or signed out"
}) {}

export class UserDeactivated extends ProblemError<UserDeactivated>()("UserDeactivated", {
  status: 401,
  code: "USER_DEACTIVATED",
  description: "The credential belongs to a deactivated user"
}) {}

export class CsrfTokenInvalid extends ProblemError<CsrfTokenInvalid>()("CsrfTokenInvalid", {
  status: 403,
  code: "CSRF_TOKEN_INVALID",
  description: "A cookie-authenticated request that changes state lacks the X-CSRF-Token header of its session"
}) {}

export class PermissionDenied extends ProblemError<PermissionDenied>()("PermissionDenied", {
  status: 403,
  code: "PERMISSION_DENIED",
  description: "The caller lacks the permission the endpoint declares (x-lore-permission)"
}) {}

export class UserNotFound extends ProblemError<UserNotFound>()("UserNotFound", {
  status: 404,
  code: "USER_NOT_FOUND",
  description: "No user with this id in the caller's organization"
}) {}

export class DepartmentNotFound extends ProblemError<DepartmentNotFound>()("DepartmentNotFound", {
  status: 404,
  code: "DEPARTMENT_NOT_FOUND",
  description: "No department with this id in the caller's organization"
}) {}

export class RouteNotFound extends ProblemError<RouteNotFound>()("RouteNotFound", {
  status: 404,
  code: "ROUTE_NOT_FOUND",
  description: "No endpoint at this path"
}) {}

export class MethodNotAllowed extends ProblemError<MethodNotAllowed>()("MethodNotAllowed", {
  status: 405,
  code: "METHOD_NOT_ALLOWED",
  description: "The path exists but not with this method; the Allow header lists the methods it takes"
}) {}

export class PayloadTooLarge extends ProblemError<PayloadTooLarge>()("PayloadTooLarge", {
  status: 413,
  code: "PAYLOAD_TOO_LARGE",
  description: "The request body is larger than this server accepts (LORE_MAX_JSON_BYTES, LORE_MAX_UPLOAD_BYTES)"
}) {}

export class InternalError extends ProblemError<InternalError>()("InternalError", {
  status: 500,
  code: "INTERNAL_ERROR",
  description: "An unexpected error; it is logged with the request id, which the caller should quote"
}) {}

export class ServiceUnavailable extends ProblemError<ServiceUnavailable>()("ServiceUnavailable", {
  status: 503,
  code: "SERVICE_UNAVAILABLE",
  description: "The server is starting or shutting down; retry shortly"
}) {}

/** The authentication middleware's failures. */
export const AuthenticationFailure = Schema.Union(Unauthenticated, MalformedAuthorization, InvalidToken, SessionExpired, UserDeactivated, CsrfTokenInvalid)
export type AuthenticationFailure = typeof AuthenticationFailure.Type

/** The wire shape every error body shares (the base of each class's documented schema). */
export const Problem = Schema.Struct({
  type: Schema.String,
  title: Schema.String,
  status: Schema.Int,
  detail: Schema.String,
  code: Schema.String,
  requestId: Schema.String,
  errors: Schema.optional(Schema.Array(FieldError))
}).annotations({ identifier: "Problem", description: "RFC 9457 problem details with Lore's stable error code" })
export type Problem = typeof Problem.Type

/** Codes for statuses whose producer is not a Lore error class (router, platform, defects). */
export const defaultCodes: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE",
  429: "RATE_LIMITED",
  500: "INTERNAL_ERROR",
  503: "SERVICE_UNAVAILABLE"
}
