import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Clearance, PlatformRole, UserRole } from "../domain/Model"

export interface PrincipalRow {
  readonly credentialId: string
  readonly userId: string
  readonly organizationId: string
  readonly departmentId: string
  readonly departmentName: string
  readonly email: string
  readonly name: string
  readonly role: UserRole
  readonly clearance: Clearance
  readonly active: boolean
  readonly platformRoles: ReadonlyArray<PlatformRole>
  readonly lastUsedAt: Date | null
}

export interface TokenRow {
  readonly id: string
  readonly name: string
  readonly tokenPrefix: string
  readonly createdAt: Date
  readonly expiresAt: Date | null
  readonly lastUsedAt: Date | null
  readonly revokedAt: Date | null
}

const tokenColumns = "id, name, token_prefix, created_at, expires_at, last_used_at, revoked_at"

/** SQL for users, tokens and sessions. Database failures are defects here: callers cannot act on them. */
export class IdentityRepo extends Effect.Service<IdentityRepo>()("lore/IdentityRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const roles = sql`coalesce((SELECT array_agg(role ORDER BY role) FROM platform_role_members m WHERE m.user_id = u.id), '{}')`

    return {
      /** The user behind a live (unrevoked, unexpired) token, active or not. */
      principalByTokenHash: (hash: string) =>
        sql<PrincipalRow>`
          SELECT t.id AS credential_id, t.last_used_at, u.id AS user_id, u.organization_id, u.department_id,
                 d.name AS department_name, u.email, u.name, u.role, u.clearance, u.active, ${roles} AS platform_roles
          FROM access_tokens t JOIN users u ON u.id = t.user_id JOIN departments d ON d.id = u.department_id
          WHERE t.token_hash = ${hash} AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
        `.pipe(Effect.map((rows) => rows[0]), Effect.orDie),

      principalBySessionHash: (hash: string) =>
        sql<PrincipalRow>`
          SELECT s.id AS credential_id, NULL AS last_used_at, u.id AS user_id, u.organization_id, u.department_id,
                 d.name AS department_name, u.email, u.name, u.role, u.clearance, u.active, ${roles} AS platform_roles
          FROM sessions s JOIN users u ON u.id = s.user_id JOIN departments d ON d.id = u.department_id
          WHERE s.secret_hash = ${hash} AND s.revoked_at IS NULL AND s.expires_at > now()
        `.pipe(Effect.map((rows) => rows[0]), Effect.orDie),

      touchToken: (tokenId: string) =>
        sql`UPDATE access_tokens SET last_used_at = now() WHERE id = ${tokenId}`.pipe(Effect.asVoid, Effect.orDie),

      insertToken: (row: { userId: string; name: string; tokenHash: string; tokenPrefix: string; expiresAt: Date | null }) =>
        sql<TokenRow>`
          INSERT INTO access_tokens (user_id, name, token_hash, token_prefix, expires_at)
          VALUES (${row.userId}, ${row.name}, ${row.tokenHash}, ${row.tokenPrefix}, ${row.expiresAt})
          RETURNING ${sql.literal(tokenColumns)}
        `.pipe(Effect.map((rows) => rows[0]!), Effect.orDie),

      listTokens: (userId: string) =>
        sql<TokenRow>`
          SELECT ${sql.literal(tokenColumns)} FROM access_tokens WHERE user_id = ${userId} ORDER BY created_at DESC, id
        `.pipe(Effect.orDie),

      /** Revokes the user's token; answers the row, or nothing when the user has no such token. */
      revokeToken: (userId: string, tokenId: string) =>
        sql<TokenRow>`
          UPDATE access_tokens SET revoked_at = coalesce(revoked_at, now())
          WHERE id = ${tokenId} AND user_id = ${userId}
          RETURNING ${sql.literal(tokenColumns)}
        `.pipe(Effect.map((rows) => rows[0]), Effect.orDie),

      insertSession: (userId: string, secretHash: string, expiresAt: Date) =>
        sql<{ id: string }>`
          INSERT INTO sessions (user_id, secret_hash, expires_at) VALUES (${userId}, ${secretHash}, ${expiresAt}) RETURNING id
        `.pipe(Effect.map((rows) => rows[0]!.id), Effect.orDie),

      revokeSession: (sessionId: string) =>
        sql`UPDATE sessions SET revoked_at = now() WHERE id = ${sessionId} AND revoked_at IS NULL`.pipe(Effect.asVoid, Effect.orDie),


      departments: (organizationId: string) =>
        sql<{ id: string; organizationId: string; name: string }>`
          SELECT id, organization_id, name FROM departments WHERE organization_id = ${organizationId} ORDER BY name
        `.pipe(Effect.orDie),

      activeUsers: (organizationId: string) =>
        sql<{ id: string; organizationId: string; departmentId: string; name: string; email: string; role: UserRole; clearance: Clearance }>`
          SELECT id, organization_id, department_id, name, email, role, clearance
          FROM users WHERE organization_id = ${organizationId} AND active ORDER BY name, email
        `.pipe(Effect.orDie)
    }
  })
}) {}
