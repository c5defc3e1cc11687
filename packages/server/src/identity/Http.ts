import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Settings } from "../Config"
import { LoreApi } from "../http/Api"
import { Authenticator, CSRF_HEADER, CSRF_PARAMETER, SESSION_COOKIE } from "./Authenticator"
import { CurrentUser, type Principal } from "./CurrentUser"
import { IdentityRepo } from "./Repo"
import { Sessions, SESSION_HOURS } from "./Sessions"
import { Tokens } from "./Tokens"

const canManageMembers = (principal: Principal) =>
  principal.role === "ADMIN" || principal.platformRoles.includes("ORG_ADMIN")

const sessionOf = (principal: Principal) => ({
  authenticated: true,
  name: principal.name,
  email: principal.email,
  userId: principal.userId,
  organizationId: principal.organizationId,
  departmentId: principal.departmentId,
  role: principal.role,
  clearance: principal.clearance,
  platformRoles: principal.platformRoles,
  canManageMembers: canManageMembers(principal)
})

const setCookie = (value: string, maxAgeSeconds: number) =>
  Effect.flatMap(Settings, (settings) =>
    HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.orDie(
        HttpServerResponse.setCookie(response, SESSION_COOKIE, value, {
          httpOnly: true,
          secure: settings.secureCookies,
          sameSite: "lax",
          path: "/",
          maxAge: `${maxAgeSeconds} seconds`
        })
      )
    )
  )

export const SessionHttp = HttpApiBuilder.group(LoreApi, "session", (handlers) =>
  Effect.gen(function* () {
    const authenticator = yield* Authenticator
    const sessions = yield* Sessions
    return handlers
      .handle("getSession", () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const caller = yield* Effect.option(authenticator.authenticate(request))
          return Option.match(caller, { onNone: () => ({ authenticated: false }), onSome: sessionOf })
        })
      )
      .handle("signIn", ({ payload }) =>
        Effect.gen(function* () {
          const { principal, secret } = yield* sessions.signIn(payload.token)
          yield* setCookie(secret, SESSION_HOURS * 3600)
          return sessionOf(principal)
        })
      )
      .handle("signOut", () =>
        Effect.gen(function* () {
          yield* sessions.signOut(yield* CurrentUser)
          yield* setCookie("", 0)
        })
      )
      .handle("getCsrfToken", () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const caller = yield* Effect.option(authenticator.authenticate(request))
          // The token is bound to the session; without one there is nothing to protect yet.
          const binding = Option.match(caller, { onNone: () => "anonymous", onSome: (p) => p.credential.id })
          return { headerName: CSRF_HEADER, parameterName: CSRF_PARAMETER, token: authenticator.csrfTokenFor(binding) }
        })
      )
  })
)

export const MeHttp = HttpApiBuilder.group(LoreApi, "me", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* IdentityRepo
    const tokens = yield* Tokens
    return handlers
      .handle("getMe", () =>
        Effect.gen(function* () {
          const me = yield* CurrentUser
          return {
            authenticated: true,
            subject: `user:${me.userId}`,
            authorizationProvider: me.credential.kind === "token" ? "lore-access-token" : "lore-session",
            userId: me.userId,
            organizationId: me.organizationId,
            departmentId: me.departmentId,
            departmentName: me.departmentName,
            name: me.name,
            email: me.email,
            role: me.role,
            clearance: me.clearance,
            platformRoles: me.platformRoles
          }
        })
      )
      .handle("listTokens", () => Effect.flatMap(CurrentUser, (me) => tokens.list(me.userId)))
      .handle("createToken", ({ payload }) =>
        Effect.flatMap(CurrentUser, (me) => tokens.issue(me.userId, payload.name, payload.expiresInDays))
      )
      .handle("revokeToken", ({ path }) => Effect.flatMap(CurrentUser, (me) => tokens.revoke(me.userId, path.tokenId)))
      .handle("getOrganizationContext", () =>
        Effect.gen(function* () {
          const me = yield* CurrentUser
          const [departments, users] = yield* Effect.all([repo.departments(me.organizationId), repo.activeUsers(me.organizationId)])
          return { organizationId: me.organizationId, departments, users }
        })
      )
  })
)
