import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * Lore's errors. Handlers and services fail with these; the problem layer (ProblemJson.ts) turns every
 * non-2xx response, from these or from any other layer, into one RFC 9457 application/problem+json body.
 * `code` is stable UPPER_SNAKE; `detail` is for a person.
 */
export const FieldError = Schema.Struct({
  path: Schema.String,
  message: Schema.String
})

const fields = {
  code: Schema.String,
  detail: Schema.String,
  errors: Schema.optional(Schema.Array(FieldError))
}

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", fields, HttpApiSchema.annotations({ status: 400 })) {}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", fields, HttpApiSchema.annotations({ status: 401 })) {}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields, HttpApiSchema.annotations({ status: 403 })) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", fields, HttpApiSchema.annotations({ status: 404 })) {}
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", fields, HttpApiSchema.annotations({ status: 409 })) {}
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", fields, HttpApiSchema.annotations({ status: 413 })) {}
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", fields, HttpApiSchema.annotations({ status: 415 })) {}
export class Unprocessable extends Schema.TaggedError<Unprocessable>()("Unprocessable", fields, HttpApiSchema.annotations({ status: 422 })) {}
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", fields, HttpApiSchema.annotations({ status: 429 })) {}
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", fields, HttpApiSchema.annotations({ status: 503 })) {}
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", fields, HttpApiSchema.annotations({ status: 500 })) {}

/** The wire shape of every error body, as documented in the OpenAPI document. */
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

/** Default codes for statuses whose producer gave none (router, platform, defects). */
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

export const problemType = (code: string) => `https://lore.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`

export const notFound = (what: string, code = "NOT_FOUND") => new NotFound({ code, detail: `${what} was not found` })
