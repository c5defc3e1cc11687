import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { type Cause, Effect, Layer } from "effect"
import { type AuthenticationFailure, PermissionDenied } from "../domain/Errors"
import { holds } from "../domain/Permissions"
import { CurrentUser } from "../domain/Principal"
import { Authentication, Authorization, EndpointAccessTable } from "../domain/Security"
import { Authenticator } from "./Authenticator"

/** The one place where callers are identified. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const authenticator = yield* Authenticator
    // The platform tries the `session` scheme when `bearer` fails. Both look at the whole request, so a
    // failure is kept per request and the second scheme reuses it instead of querying again.
    const failures = new WeakMap<object, Cause.Cause<AuthenticationFailure>>()
    const authenticate = () =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const failed = failures.get(request)
        if (failed) return Effect.failCause(failed)
        return Effect.tapErrorCause(authenticator.authenticate(request), (cause) => Effect.sync(() => failures.set(request, cause)))
      })
    return Authentication.of({ bearer: authenticate, session: authenticate })
  })
)

/**
 * The one place where endpoint permissions are enforced: the caller (provided by Authentication, which
 * runs first) must hold the permission their endpoint declares. An endpoint that reached this middleware
 * without a declared permission is refused, so a mistake fails closed.
 */
export const AuthorizationLive = Layer.effect(
  Authorization,
  Effect.gen(function* () {
    const table = yield* EndpointAccessTable
    return Effect.gen(function* () {
      const { route } = yield* HttpRouter.RouteContext
      // Typed as optional because middleware may not require services; Authentication always ran first.
      const caller = yield* Effect.serviceOption(CurrentUser)
      const access = table.get(`${route.method} ${route.path}`)
      if (access?.kind !== "permission" || caller._tag === "None") {
        return yield* new PermissionDenied({ detail: "This endpoint declares no permission and is refused" })
      }
      if (!holds(caller.value, access.permission)) {
        return yield* new PermissionDenied({ detail: `This requires the ${access.permission} permission` })
      }
    })
  })
)
