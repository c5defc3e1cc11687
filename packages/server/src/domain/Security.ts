import { HttpApiEndpoint, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context } from "effect"
import { AuthenticationFailure, PermissionDenied } from "./Errors"
import type { Permission } from "./Permissions"
import { CurrentUser } from "./Principal"

export const SESSION_COOKIE = "lore_session"
export const CSRF_HEADER = "X-CSRF-Token"
export const CSRF_PARAMETER = "_csrf"
export const TOKEN_PREFIX = "lore_pat_"
export const REQUEST_ID_HEADER = "x-request-id"

/**
 * Who the caller is: a bearer personal access token, or the session cookie (state-changing cookie
 * requests also need the CSRF header). Fails with 401 (or 403 for a missing CSRF token).
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: AuthenticationFailure,
  provides: CurrentUser,
  security: {
    bearer: HttpApiSecurity.bearer,
    session: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE })
  }
}) {}

/** Whether the authenticated caller holds the permission their endpoint declares (RequiredPermission). */
export class Authorization extends HttpApiMiddleware.Tag<Authorization>()("Authorization", {
  failure: PermissionDenied
}) {}

/** What an endpoint requires of its caller. Every endpoint declares exactly one (a test walks the API). */
export type EndpointAccess =
  | { readonly kind: "permission"; readonly permission: Permission }
  | { readonly kind: "authenticated" }
  | { readonly kind: "optionalAuthenticated" }
  | { readonly kind: "public" }

export class AccessRequirement extends Context.Tag("lore/AccessRequirement")<AccessRequirement, EndpointAccess>() {}

const declare = (access: EndpointAccess) => ({
  "x-lore-access": access.kind,
  ...(access.kind === "permission" ? { "x-lore-permission": access.permission } : {})
})

/**
 * The four declarations. Each annotates the endpoint (for the walk test and `x-lore-*` in the OpenAPI
 * document) and adds the middleware that enforces it, so the two cannot disagree. Middleware added last
 * runs first: Authentication provides the caller that Authorization checks.
 */
export const requires = (permission: Permission) =>
  <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E) => {
    const access: EndpointAccess = { kind: "permission", permission }
    return (endpoint as any as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps)
      .annotate(AccessRequirement, access)
      .annotate(OpenApi.Override, declare(access))
      .middleware(Authorization)
      .middleware(Authentication) as any as WithMiddleware<WithMiddleware<E, Authorization>, Authentication>
  }

export const authenticated = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E) => {
  const access: EndpointAccess = { kind: "authenticated" }
  return (endpoint as any as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps)
    .annotate(AccessRequirement, access)
    .annotate(OpenApi.Override, declare(access))
    .middleware(Authentication) as any as WithMiddleware<E, Authentication>
}

/** The handler reads the caller itself and answers anonymous callers too (session and CSRF reads). */
export const optionallyAuthenticated = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E): E => {
  const access: EndpointAccess = { kind: "optionalAuthenticated" }
  return (endpoint as any).annotate(AccessRequirement, access).annotate(OpenApi.Override, declare(access))
}

export const isPublic = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E): E => {
  const access: EndpointAccess = { kind: "public" }
  return (endpoint as any).annotate(AccessRequirement, access).annotate(OpenApi.Override, declare(access))
}

/** The endpoint type after `.middleware(M)`: its errors gain M's failure, its requirements M. */
type WithMiddleware<E, M extends HttpApiMiddleware.HttpApiMiddleware.AnyId> = E extends HttpApiEndpoint.HttpApiEndpoint<
  infer Name,
  infer Method,
  infer Path,
  infer UrlParams,
  infer Payload,
  infer Headers,
  infer Success,
  infer Error,
  infer R,
  infer RE
> ? HttpApiEndpoint.HttpApiEndpoint<
    Name,
    Method,
    Path,
    UrlParams,
    Payload,
    Headers,
    Success,
    Error | HttpApiMiddleware.HttpApiMiddleware.Error<M>,
    R | M,
    RE | HttpApiMiddleware.HttpApiMiddleware.ErrorContext<M>
  >
  : never

/** "METHOD /path/:pattern" -> what its endpoint requires; built from the assembled API at start. */
export class EndpointAccessTable extends Context.Tag("lore/EndpointAccessTable")<EndpointAccessTable, ReadonlyMap<string, EndpointAccess>>() {}
