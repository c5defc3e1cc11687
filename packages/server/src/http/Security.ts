import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Schema } from "effect"
import { CurrentUser } from "../identity/CurrentUser"
import { SESSION_COOKIE } from "../identity/Authenticator"
import { Forbidden, Unauthorized } from "./Problem"

/**
 * Authentication and authorization for every endpoint that needs a caller: a bearer personal access
 * token, or the session cookie (state-changing cookie requests also need the CSRF header); then, when
 * the endpoint is annotated with a RequiredPermission, the caller must hold it (access/Permissions.ts).
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Schema.Union(Unauthorized, Forbidden),
  provides: CurrentUser,
  security: {
    bearer: HttpApiSecurity.bearer,
    session: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE })
  }
}) {}

