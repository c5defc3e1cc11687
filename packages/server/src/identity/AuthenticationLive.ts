import { HttpApi, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Context, Effect, type Exit, Layer } from "effect"
import { holds, type Permission, RequiredPermission } from "../access/Permissions"
import { LoreApi } from "../http/Api"
import { Forbidden, type Unauthorized } from "../http/Problem"
import { Authentication } from "../http/Security"
import { Authenticator } from "./Authenticator"
import type { Principal } from "./CurrentUser"

/** "METHOD path-pattern" -> the permission its endpoint declares. */
export const permissionTable = (): ReadonlyMap<string, Permission> => {
  const table = new Map<string, Permission>()
  HttpApi.reflect(LoreApi, {
    onGroup() {},
    onEndpoint({ endpoint, mergedAnnotations }) {
      const permission = Context.getOption(mergedAnnotations, RequiredPermission)
      if (permission._tag === "Some") table.set(`${endpoint.method} ${endpoint.path}`, permission.value)
    }
  })
  return table
}

/**
 * The one place where callers are identified and endpoint permissions enforced. Administration
 * endpoints without a declared permission are refused, so a forgotten annotation fails closed.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const authenticator = yield* Authenticator
    const table = permissionTable()

    const authorize = (caller: Principal) =>
      Effect.flatMap(HttpRouter.RouteContext, ({ route }) => {
        const key = `${route.method} ${route.path}`
        const permission = table.get(key)
        if (permission === undefined) {
          return String(route.path).startsWith("/api/admin")
            ? Effect.fail(new Forbidden({ code: "PERMISSION_UNDECLARED", detail: "This endpoint declares no permission and is refused" }))
            : Effect.succeed(caller)
        }
        return holds(caller, permission)
          ? Effect.succeed(caller)
          : Effect.fail(new Forbidden({ code: "PERMISSION_DENIED", detail: `This requires the ${permission} permission` }))
      })

    // The platform tries the `session` scheme when `bearer` fails. Both look at the whole request, so the
    // verdict is kept per request and the second scheme reuses it instead of querying again.
    const verdicts = new WeakMap<object, Exit.Exit<Principal, Unauthorized | Forbidden>>()
    const authenticate = () =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const known = verdicts.get(request)
        if (known) return known
        return authenticator.authenticate(request).pipe(
          Effect.flatMap(authorize),
          Effect.exit,
          Effect.tap((exit) => verdicts.set(request, exit)),
          Effect.flatten
        )
      })
    return Authentication.of({ bearer: authenticate, session: authenticate })
  })
)
