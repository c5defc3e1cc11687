import { Effect } from "effect"
import { TokenNotFound } from "./Errors"
import { hashSecret, randomSecret } from "../platform/SecretBox"
import { TOKEN_PREFIX } from "../domain/Security"
import { IdentityRepo, type TokenRow } from "./Repo"

export const DEFAULT_TOKEN_DAYS = 90
const DAY_MS = 24 * 60 * 60 * 1000

export const newTokenSecret = () => TOKEN_PREFIX + randomSecret(32)
export const isTokenShaped = (value: string) => /^lore_pat_[A-Za-z0-9_-]{20,}$/.test(value)

const status = (row: TokenRow) =>
  row.revokedAt ? "REVOKED" as const : row.expiresAt && row.expiresAt.getTime() <= Date.now() ? "EXPIRED" as const : "ACTIVE" as const

export const describeToken = (row: TokenRow) => ({ ...row, status: status(row) })

/** Personal access tokens: stored as hashes, shown once, expiring, revocable. */
export class Tokens extends Effect.Service<Tokens>()("lore/Tokens", {
  effect: Effect.gen(function* () {
    const repo = yield* IdentityRepo
    return {
      /** Issues a token; `secret` is given only for the bootstrap token, which the operator chose. */
      issue: (userId: string, name: string, expiresInDays: number | null | undefined, secret = newTokenSecret()) =>
        Effect.gen(function* () {
          const days = expiresInDays === undefined ? DEFAULT_TOKEN_DAYS : expiresInDays
          const row = yield* repo.insertToken({
            userId,
            name,
            tokenHash: hashSecret(secret),
            tokenPrefix: secret.slice(0, TOKEN_PREFIX.length + 6),
            expiresAt: days === null ? null : new Date(Date.now() + days * DAY_MS)
          })
          return { ...describeToken(row), token: secret }
        }),
      list: (userId: string) => Effect.map(repo.listTokens(userId), (rows) => rows.map(describeToken)),
      revoke: (userId: string, tokenId: string) =>
        Effect.flatMap(repo.revokeToken(userId, tokenId), (row) =>
          row ? Effect.void : Effect.fail(new TokenNotFound({ detail: "You have no token with this id" }))
        )
    }
  }),
  dependencies: [IdentityRepo.Default]
}) {}
