import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { type AuthenticationFailure, CsrfTokenInvalid, InvalidToken, MalformedAuthorization, SessionExpired, Unauthenticated, UserDeactivated } from "../domain/Errors"
import { CSRF_HEADER, SESSION_COOKIE } from "../domain/Security"
import { hashSecret, SecretBox } from "../platform/SecretBox"
import type { Principal } from "../domain/Principal"
import { PrincipalCache } from "./PrincipalCache"
import { IdentityRepo, type PrincipalRow } from "./Repo"


const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])
/** last_used_at is written at most this often per token, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000

/** The caller as the rest of Lore sees them, from the credential lookup's row. */
export const toPrincipal = (row: PrincipalRow, kind: "token" | "session"): Principal => ({
  userId: row.userId,
  organizationId: row.organizationId,
  departmentId: row.departmentId,
  departmentName: row.departmentName,
  email: row.email,
  name: row.name,
  role: row.role,
  clearance: row.clearance,
  platformRoles: row.platformRoles,
  credential: { kind, id: row.credentialId }
})

/**
 * Who is calling: a bearer personal access token, else the session cookie. A cookie-authenticated
 * request that changes state must also carry the CSRF token of its session.
 */
export class Authenticator extends Effect.Service<Authenticator>()("lore/Authenticator", {
  effect: Effect.gen(function* () {
    const repo = yield* IdentityRepo
    const box = yield* SecretBox
    const cache = yield* PrincipalCache
    const lastTouched = new Map<string, number>()

    const csrfTokenFor = (sessionId: string) => box.sign("csrf", sessionId)

    /** The credential's principal: from the cache when it is there, else from the database (and then cached). */
    const principalOf = (key: string, load: Effect.Effect<PrincipalRow | undefined>) =>
      Effect.flatMap(cache.lookup(key), (cached) => {
        if (cached !== undefined) return Effect.succeed(cached)
        const since = cache.stamp()
        return Effect.tap(load, (row) => {
          if (row !== undefined) cache.remember(key, row, since)
        })
      })

    /** Whether last_used_at is due a write; remembered per process, so a cached principal's stale value is harmless. */
    const touchDue = (row: PrincipalRow) => {
      const now = Date.now()
      const touched = lastTouched.get(row.credentialId) ?? row.lastUsedAt?.getTime() ?? 0
      if (now - touched <= TOUCH_INTERVAL_MS) return false
      // Forgetting costs one extra write per credential; keeping every credential ever seen would not be bounded.
      if (lastTouched.size >= 10_000) lastTouched.clear()
      lastTouched.set(row.credentialId, now)
      return true
    }

    const fromToken = (token: string): Effect.Effect<Principal, InvalidToken | UserDeactivated> => {
      const hash = hashSecret(token)
      return Effect.flatMap(principalOf(`token:${hash}`, repo.principalByTokenHash(hash)), (row): Effect.Effect<Principal, InvalidToken | UserDeactivated> => {
        if (!row) return Effect.fail(new InvalidToken({ detail: "The access token is unknown, expired or revoked" }))
        if (!row.active) return Effect.fail(new UserDeactivated({ detail: "This user has been deactivated" }))
        const principal = toPrincipal(row, "token")
        return touchDue(row) ? Effect.as(repo.touchToken(row.credentialId), principal) : Effect.succeed(principal)
      })
    }

    const fromSession = (secret: string, request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const hash = hashSecret(secret)
        const row = yield* principalOf(`session:${hash}`, repo.principalBySessionHash(hash))
        if (!row) return yield* new SessionExpired({ detail: "The session is unknown, expired or signed out" })
        if (!row.active) return yield* new UserDeactivated({ detail: "This user has been deactivated" })
        if (!safeMethods.has(request.method)) {
          const given = request.headers[CSRF_HEADER.toLowerCase()] ?? ""
          if (!box.verify("csrf", row.credentialId, given)) {
            return yield* new CsrfTokenInvalid({
              detail: `Cookie-authenticated ${request.method} requests need the ${CSRF_HEADER} header from GET /api/session/csrf`
            })
          }
        }
        return toPrincipal(row, "session")
      })

    /** The caller, or an authentication failure. */
    const authenticate = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Principal, AuthenticationFailure> => {
      const authorization = request.headers.authorization
      if (authorization !== undefined) {
        const match = /^Bearer\s+(\S+)$/i.exec(authorization)
        if (!match) return Effect.fail(new MalformedAuthorization({ detail: "Use Authorization: Bearer <token>" }))
        return fromToken(match[1]!)
      }
      const cookie = request.cookies[SESSION_COOKIE]
      if (cookie) return fromSession(cookie, request)
      return Effect.fail(new Unauthenticated({ detail: "Authentication is required: send Authorization: Bearer <token> or sign in for a session cookie" }))
    }

    return { authenticate, csrfTokenFor, fromToken }
  }),
  dependencies: [IdentityRepo.Default, SecretBox.Default, PrincipalCache.Live]
}) {}
