import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Settings } from "../Config"
import { LoreApi } from "../http/Api"
import { CSRF_HEADER, CSRF_PARAMETER, SESSION_COOKIE } from "../domain/Security"
import { Authenticator } from "./Authenticator"
import { asCaller, CurrentUser, type Principal } from "../domain/Principal"
import { Directory } from "./Directory"
import { SESSION_HOURS, Sessions } from "./Sessions"
import { Tokens } from "./Tokens"
import { Departments } from "./Departments"
import { Invitations } from "./Invitations"
import { Roles } from "./Roles"
import { Users } from "./Users"

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
    const directory = yield* Directory
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
          return yield* directory.organizationContext(me)
        })
      )
  })
)

export const UsersAdminHttp = HttpApiBuilder.group(LoreApi, "adminUsers", (handlers) =>
  Effect.gen(function* () {
    const users = yield* Users
    const roles = yield* Roles
    const departments = yield* Departments
    const invitations = yield* Invitations
    return handlers
      .handle("listUsers", () => asCaller(users.list))
      .handle("updateUser", ({ path, payload }) => asCaller((me) => users.update(me, path.userId, payload)))
      .handle("getUserPermissions", ({ path }) => asCaller((me) => users.permissions(me, path.userId)))
      .handle("listRoles", () => asCaller(roles.list))
      .handle("addRoleMember", ({ path, payload }) => asCaller((me) => roles.addMember(me, path.role, payload.userId)))
      .handle("removeRoleMember", ({ path }) => asCaller((me) => roles.removeMember(me, path.role, path.userId)))
      .handle("listDepartments", () => asCaller(departments.list))
      .handle("createDepartment", ({ payload }) => asCaller((me) => departments.create(me, payload.name)))
      .handle("renameDepartment", ({ path, payload }) => asCaller((me) => departments.rename(me, path.departmentId, payload.name)))
      .handle("addDepartmentManager", ({ path, payload }) => asCaller((me) => departments.addManager(me, path.departmentId, payload.userId)))
      .handle("removeDepartmentManager", ({ path }) => asCaller((me) => departments.removeManager(me, path.departmentId, path.userId)))
      .handle("listInvitations", () => asCaller(invitations.list))
      .handle("createInvitation", ({ payload }) => asCaller((me) => invitations.invite(me, payload)))
      .handle("deleteInvitation", ({ path }) => asCaller((me) => invitations.revoke(me, path.invitationId)))
  })
)

export const InvitationsHttp = HttpApiBuilder.group(LoreApi, "invitations", (handlers) =>
  Effect.map(Invitations, (invitations) =>
    handlers.handle("acceptInvitation", ({ payload }) => invitations.accept(payload.code, payload.name))
  )
)
