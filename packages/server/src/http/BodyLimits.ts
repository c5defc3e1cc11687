import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option } from "effect"

/**
 * The platform reports a body over the size limit as a read error (400) or a multipart error; Lore
 * answers 413 (the problem layer writes the body).
 */
const isBodyTooLarge = (error: unknown): boolean => {
  const e = error as { _tag?: string; reason?: string; cause?: unknown }
  if (e?._tag === "MultipartError") {
    // The node platform wraps the multipart parser's own limit (ReachedLimit) as an InternalError.
    const inner = e.cause as { _tag?: string } | undefined
    return e.reason === "FileTooLarge" || e.reason === "BodyTooLarge" || e.reason === "FieldTooLarge" ||
      (e.reason === "InternalError" && inner?._tag === "ReachedLimit")
  }
  return e?._tag === "RequestError" && e.cause instanceof Error && e.cause.message === "maxBytes exceeded"
}

export const BodyLimitsLive = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(app, (cause) =>
    // The platform reads bodies with orDie, so the error arrives as a defect.
    Option.exists(Cause.failureOption(cause as Cause.Cause<unknown>), isBodyTooLarge) || Option.exists(Cause.dieOption(cause), isBodyTooLarge)
      ? Effect.succeed(HttpServerResponse.empty({ status: 413 }))
      : Effect.failCause(cause)
  )
)
