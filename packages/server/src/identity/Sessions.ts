import { Effect } from "effect"
import { hashSecret, randomSecret } from "../platform/SecretBox"
import { Authenticator } from "./Authenticator"
import type { Principal } from "../domain/Principal"
import { IdentityRepo } from "./Repo"

export const SESSION_HOURS = 12

/** Browser sessions: a personal access token is exchanged once for an HttpOnly cookie. */
export class Sessions extends Effect.Service<Sessions>()("lore/Sessions", {
  effect: Effect.gen(function* () {
    const repo = yield* IdentityRepo
    const authenticator = yield* Authenticator
    return {
      signIn: (token: string) =>
        Effect.gen(function* () {
          const principal = yield* authenticator.fromToken(token)
          const secret = randomSecret(32)
          const expiresAt = new Date(Date.now() + SESSION_HOURS * 3600_000)
          const sessionId = yield* repo.insertSession(principal.userId, hashSecret(secret), expiresAt)
          const session: Principal = { ...principal, credential: { kind: "session", id: sessionId } }
          return { principal: session, secret, expiresAt }
        }),
      signOut: (principal: Principal) =>
        principal.credential.kind === "session" ? Effect.asVoid(repo.revokeSession(principal.credential.id)) : Effect.void
    }
  }),
  dependencies: [IdentityRepo.Default, Authenticator.Default]
}) {}
