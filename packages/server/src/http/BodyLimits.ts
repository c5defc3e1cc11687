import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeFileSystem, NodeHttpServerRequest, NodePath } from "@effect/platform-node"
import { Cause, Effect, Layer, Option } from "effect"
import { refuseDeniedKeys } from "./DeniedKeys"

/** After the last byte of a multipart body, parsing must end this soon, or the body was not closed properly. */
const PARSE_GRACE_MS = 2_000

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

const isMultipart = (request: HttpServerRequest.HttpServerRequest) => (request.headers["content-type"] ?? "").toLowerCase().startsWith("multipart/")
const hasBoundary = (request: HttpServerRequest.HttpServerRequest) => /;\s*boundary=("?)[^";]+\1/i.test(request.headers["content-type"] ?? "")

/** Where the parse writes uploaded files (stateless services, built once). */
const fileSystem = Effect.runSync(Effect.scoped(Layer.build(Layer.merge(NodeFileSystem.layer, NodePath.layer))))

/** 400 with no body: the problem layer answers MALFORMED_BODY. The connection closes: its unread bytes are garbage. */
const malformed = HttpServerResponse.empty({ status: 400, headers: { connection: "close" } })

/**
 * Resolves when the client stops sending before the body's end, or when a body that did end is still
 * not parsed after a grace period (a multipart body without its closing boundary). Both are the
 * caller's fault, answered promptly instead of holding the request open forever.
 */
const stalled = (request: HttpServerRequest.HttpServerRequest, bodyStallMs: number) =>
  Effect.async<void>((resume) => {
    const message = NodeHttpServerRequest.toIncomingMessage(request)
    let grace: NodeJS.Timeout | undefined
    const stop = () => {
      clearTimeout(grace)
      message.off("end", afterEnd)
      message.off("timeout", onTimeout)
      message.setTimeout(0)
    }
    const answer = () => {
      stop()
      resume(Effect.void)
    }
    const afterEnd = () => {
      // Node destroys an idle socket whose request is complete unless the server answers; only the grace applies now.
      message.setTimeout(0)
      grace = setTimeout(answer, PARSE_GRACE_MS)
    }
    // A 'timeout' listener on the request keeps Node from destroying the socket, so the answer can be sent.
    const onTimeout = () => {
      if (!message.complete) answer()
    }
    message.setTimeout(bodyStallMs, onTimeout)
    if (message.complete) afterEnd()
    else message.once("end", afterEnd)
    return Effect.sync(stop)
  })

/**
 * Reads a multipart body before the endpoint does (the platform caches the parse, so the endpoint gets the
 * same result), bounded: no boundary, a body cut short, a stalled client or an unclosed body is a 400, a
 * body over the limit a 413, never a 500 or a hang.
 */
const guardMultipart = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>, request: HttpServerRequest.HttpServerRequest, bodyStallMs: number) => {
  if (!isMultipart(request) || request.method === "GET" || request.method === "HEAD") return app
  if (!hasBoundary(request)) return Effect.succeed(malformed)
  // Upload routes run uninterruptibly; each side must still stop when the other wins.
  return Effect.raceFirst(
    Effect.interruptible(Effect.either(Effect.provide(request.multipart, fileSystem))),
    Effect.as(Effect.interruptible(stalled(request, bodyStallMs)), undefined)
  ).pipe(
    Effect.flatMap((parsed) => {
      if (parsed === undefined) return Effect.succeed(malformed)
      if (parsed._tag === "Left") return Effect.succeed(isBodyTooLarge(parsed.left) ? tooLarge : malformed)
      return app
    })
  )
}

/** How long a refused body is read and discarded before the 413 goes out regardless. */
const DISCARD_MS = 5_000

/** 413 with no body (the problem layer writes it). The connection closes once it is sent: the rest of the body is discarded. */
const tooLarge = HttpServerResponse.empty({ status: 413, headers: { connection: "close" } })

/**
 * The platform's body reader destroys the request when the body passes the limit; before the whole body
 * has arrived (a chunked body, a fast server), that destroys the socket and the 413 is never sent. This
 * request's `destroy` instead stops keeping the body and discards the rest as it arrives (what Node does
 * with an unread body), so the answer goes out and the connection closes after it.
 */
const discardInsteadOfDestroy = (request: HttpServerRequest.HttpServerRequest) => {
  const message = NodeHttpServerRequest.toIncomingMessage(request)
  const destroy = message.destroy.bind(message)
  message.destroy = (error?: Error) => {
    if (message.complete || error !== undefined) return destroy(error)
    message.removeAllListeners("data")
    message.resume()
    return message
  }
}

/**
 * Reads and discards what remains of a refused body before the answer goes out, for at most `maxMs`: a client
 * still sending when the connection closes gets a reset instead of the 413 (seen with uploads of a few times
 * the limit). A client that keeps sending past the bound gets the answer and the close anyway.
 */
const discardRest = (request: HttpServerRequest.HttpServerRequest, maxMs: number) =>
  Effect.async<void>((resume) => {
    const message = NodeHttpServerRequest.toIncomingMessage(request)
    if (message.complete || message.destroyed) return resume(Effect.void)
    const ignore = () => {}
    const done = () => {
      clearTimeout(timer)
      message.off("end", done)
      message.off("close", done)
      resume(Effect.void)
    }
    const timer = setTimeout(done, maxMs)
    message.unpipe()
    message.removeAllListeners("data")
    message.on("data", ignore)
    message.once("end", done)
    message.once("close", done)
    message.resume()
    return Effect.sync(() => {
      clearTimeout(timer)
      message.off("end", done)
      message.off("close", done)
    })
  })

/** Whether the request announces a body; one that does not cannot exceed a limit or be malformed. */
const hasBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined

/** `bodyStallMs`: how long a request body may stop arriving before the request is answered 400 and closed. */
export const bodyLimits = (bodyStallMs: number) => HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    // Most requests (every GET) have no body: they skip the guards altogether.
    !hasBody(request) ? app : Effect.suspend(() => {
      discardInsteadOfDestroy(request)
      return guardMultipart(refuseDeniedKeys(app, request), request, bodyStallMs).pipe(
        Effect.catchAllCause((cause) =>
          // The platform reads bodies with orDie, so the error arrives as a defect.
          Option.exists(Cause.failureOption(cause as Cause.Cause<unknown>), isBodyTooLarge) || Option.exists(Cause.dieOption(cause), isBodyTooLarge)
            ? Effect.succeed(tooLarge)
            : Effect.failCause(cause)
        ),
        Effect.tap((response) => response.status === 413 ? discardRest(request, Math.min(bodyStallMs, DISCARD_MS)) : Effect.void)
      )
    })
  )
)
