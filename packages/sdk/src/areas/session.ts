import type { LoreFetchClient } from "../fetchClient"
import { unwrap, unwrapEmpty } from "../response"
import type { CsrfToken, Session } from "../generated/openapi"

/** Cookie sessions (browsers, or `auth: "cookie"` in Node, where the client keeps the cookie). */
export class SessionArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** The current session; `{ authenticated: false }` rather than an error when there is none. */
  get(): Promise<Session> {
    return unwrap(this.client.GET("/api/session"))
  }

  /** Exchanges a personal access token for a session cookie. */
  signIn(token: string): Promise<Session> {
    return unwrap(this.client.POST("/api/session", { body: { token } }))
  }

  signOut(): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/session"))
  }

  /** The CSRF token of the current session; cookie mode fetches and sends it by itself. */
  csrf(): Promise<CsrfToken> {
    return unwrap(this.client.GET("/api/session/csrf"))
  }
}
