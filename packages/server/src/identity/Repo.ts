import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { affected, exec, row, RowDecodeError, rows, Timestamp } from "../db/Rows"
import { Clearance, PlatformRole, UserRole } from "../domain/Model"

/** A live credential (token or session) with everything a Principal holds, in one row. */
export const PrincipalRow = Schema.Struct({
  credentialId: Schema.String,
  /** When the credential stops working (a cached principal is dropped then); null: never. */
  credentialExpiresAt: Schema.NullOr(Timestamp),
  lastUsedAt: Schema.NullOr(Timestamp),
  userId: Schema.String,
  organizationId: Schema.String,
  departmentId: Schema.String,
  departmentName: Schema.String,
  email: Schema.String,
  name: Schema.String,
  role: UserRole,
  clearance: Clearance,
  active: Schema.Boolean,
  platformRoles: Schema.Array(PlatformRole)
})
export type PrincipalRow = typeof PrincipalRow.Type

export const TokenRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  tokenPrefix: Schema.String,
  createdAt: Timestamp,
  expiresAt: Schema.NullOr(Timestamp),
  lastUsedAt: Schema.NullOr(Timestamp),
  revokedAt: Schema.NullOr(Timestamp)
})
export type TokenRow = typeof TokenRow.Type

const SessionId = Schema.Struct({ id: Schema.String })

const tokenColumns = "id, name, token_prefix, created_at, expires_at, last_used_at, revoked_at"

/** An INSERT ... RETURNING: its one row, decoded; no row back is a defect like a row that does not decode. */
const inserted = <A, I, Args extends ReadonlyArray<any>, E>(
  statement: string,
  schema: Schema.Schema<A, I>,
  run: (...args: Args) => Effect.Effect<ReadonlyArray<unknown>, E>
) => {
  const first = row(statement, schema, run)
  return (...args: Args): Effect.Effect<A> =>
    Effect.flatMap(first(...args), (found) => found === undefined ? Effect.die(new RowDecodeError({ statement, paths: ["(no row returned)"] })) : Effect.succeed(found))
}

/** SQL for users' credentials (tokens and sessions) and the principals behind them. */
export class IdentityRepo extends Effect.Service<IdentityRepo>()("lore/IdentityRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // The caller's whole principal in one statement: user, department name and platform roles beside the credential.
    const principalColumns = sql.literal(`
      u.id AS user_id, u.organization_id, u.department_id, d.name AS department_name, u.email, u.name, u.role,
      u.clearance, u.active,
      coalesce((SELECT array_agg(m.role ORDER BY m.role) FROM platform_role_members m WHERE m.user_id = u.id), '{}') AS platform_roles`)
    const insertSession = inserted("identity.insertSession", SessionId, (userId: string, secretHash: string, expiresAt: Date) => sql`
      INSERT INTO sessions (user_id, secret_hash, expires_at) VALUES (${userId}, ${secretHash}, ${expiresAt}) RETURNING id`)

    return {
      /** The user behind a live (unrevoked, unexpired) token, active or not. */
      principalByTokenHash: row("identity.principalByTokenHash", PrincipalRow, (hash: string) => sql`
        SELECT t.id AS credential_id, t.expires_at AS credential_expires_at, t.last_used_at, ${principalColumns}
        FROM access_tokens t JOIN users u ON u.id = t.user_id JOIN departments d ON d.id = u.department_id
        WHERE t.token_hash = ${hash} AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`),

      principalBySessionHash: row("identity.principalBySessionHash", PrincipalRow, (hash: string) => sql`
        SELECT s.id AS credential_id, s.expires_at AS credential_expires_at, NULL::timestamptz AS last_used_at, ${principalColumns}
        FROM sessions s JOIN users u ON u.id = s.user_id JOIN departments d ON d.id = u.department_id
        WHERE s.secret_hash = ${hash} AND s.revoked_at IS NULL AND s.expires_at > now()`),

      touchToken: exec((tokenId: string) => sql`UPDATE access_tokens SET last_used_at = now() WHERE id = ${tokenId}`),

      insertToken: inserted(
        "identity.insertToken",
        TokenRow,
        (input: { userId: string; name: string; tokenHash: string; tokenPrefix: string; expiresAt: Date | null }) => sql`
          INSERT INTO access_tokens (user_id, name, token_hash, token_prefix, expires_at)
          VALUES (${input.userId}, ${input.name}, ${input.tokenHash}, ${input.tokenPrefix}, ${input.expiresAt})
          RETURNING ${sql.literal(tokenColumns)}`
      ),

      listTokens: rows("identity.listTokens", TokenRow, (userId: string) => sql`
        SELECT ${sql.literal(tokenColumns)} FROM access_tokens WHERE user_id = ${userId} ORDER BY created_at DESC, id`),

      /** Revokes the user's token; answers the row, or nothing when the user has no such token. */
      revokeToken: row("identity.revokeToken", TokenRow, (userId: string, tokenId: string) => sql`
        UPDATE access_tokens SET revoked_at = coalesce(revoked_at, now())
        WHERE id = ${tokenId} AND user_id = ${userId}
        RETURNING ${sql.literal(tokenColumns)}`),

      /** Answers the new session's id. */
      insertSession: (userId: string, secretHash: string, expiresAt: Date) =>
        Effect.map(insertSession(userId, secretHash, expiresAt), (created) => created.id),

      /** Whether a live session was signed out. */
      revokeSession: affected((sessionId: string) =>
        sql`UPDATE sessions SET revoked_at = now() WHERE id = ${sessionId} AND revoked_at IS NULL RETURNING id`)
    }
  })
}) {}
