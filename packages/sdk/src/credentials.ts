import type { CookieJar } from "./cookies"
import { LoreApiError } from "./errors"
import type { FetchLike } from "./retry"

export type AuthMode = "token" | "cookie"

export interface CredentialOptions {
  readonly baseUrl: string
  readonly auth: AuthMode
  /** Sent as `Authorization: Bearer <token>` in token mode. */
  readonly token?: string | undefined
  /** Only where the runtime keeps no cookies itself (Node); browsers use `credentials: "include"`. */
  readonly jar?: CookieJar | undefined
}

interface Csrf {
  readonly headerName: string
  readonly token: string
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])

/** Requests whose body is a one-shot stream (uploads): never copied, so never held in memory whole. */
export const streamedBodies = new WeakSet<Request>()

const isCsrfRejection = async (response: Response) => {
  if (response.status !== 403) return false
  const body: unknown = await response.clone().json().catch(() => undefined)
  return typeof body === "object" && body !== null && (body as { code?: unknown }).code === "CSRF_TOKEN_INVALID"
}

/**
 * Adds the caller's credentials to every request. Token mode: a bearer header, nothing else (bearer
 * requests need no CSRF token). Cookie mode: the session cookie (from the jar in Node), and on
 * state-changing requests the session's CSRF token, fetched once from GET /api/session/csrf and
 * fetched again after signing in or out (the token is bound to the session) or when the server
 * rejects it once.
 */
export const withCredentials = (fetch: FetchLike, options: CredentialOptions): FetchLike => {
  const { auth, token, jar } = options
  const sessionUrl = `${options.baseUrl}/api/session`
  let csrf: Promise<Csrf> | undefined

  const send = async (request: Request, extra: Record<string, string> = {}): Promise<Response> => {
    const headers = new Headers(request.headers)
    if (auth === "token" && token && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`)
    const cookie = jar?.header()
    if (cookie) headers.set("cookie", cookie)
    for (const [name, value] of Object.entries(extra)) headers.set(name, value)
    const response = await fetch(new Request(request, { headers }))
    jar?.store(response)
    return response
  }

  const fetchCsrf = (template: Request): Promise<Csrf> => {
    const request = new Request(`${sessionUrl}/csrf`, { headers: template.headers, credentials: template.credentials, signal: template.signal })
    request.headers.delete("content-type")
    request.headers.delete("x-request-id")
    return send(request).then(async (response) => {
      if (!response.ok) throw await LoreApiError.fromResponse(response)
      const body = (await response.json()) as { headerName: string; token: string }
      return { headerName: body.headerName, token: body.token }
    })
  }
  const currentCsrf = (template: Request) => {
    // Shared by concurrent requests; forgotten on failure so the next request asks again.
    csrf ??= fetchCsrf(template).catch((error) => {
      csrf = undefined
      throw error
    })
    return csrf
  }

  return async (request) => {
    if (auth !== "cookie" || safeMethods.has(request.method.toUpperCase())) return send(request)
    // The body can be sent once: keep a copy for the CSRF retry, except of a streamed upload, which a
    // copy would hold in memory whole (the token was fetched just before, so a rejection is unlikely).
    const spare = streamedBodies.has(request) ? undefined : request.clone()
    const first = await currentCsrf(request)
    let response = await send(request, { [first.headerName]: first.token })
    if (spare && (await isCsrfRejection(response))) {
      csrf = undefined
      const fresh = await currentCsrf(spare)
      await response.body?.cancel().catch(() => undefined)
      response = await send(spare, { [fresh.headerName]: fresh.token })
    }
    // Signing in or out changes the session, and with it the CSRF token.
    if (response.ok && new URL(request.url).pathname === new URL(sessionUrl).pathname) csrf = undefined
    return response
  }
}
