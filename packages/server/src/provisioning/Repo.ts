import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { exec, row, rows, Timestamp } from "../db/Rows"
import { Clearance, UserRole } from "../domain/Model"
import { OperationalState, ProviderProfile } from "./Api"

export const ConnectionRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  alias: Schema.String,
  providerProfile: ProviderProfile,
  operationalState: OperationalState,
  usersEnabled: Schema.Boolean,
  groupsEnabled: Schema.Boolean,
  defaultRole: UserRole,
  defaultClearance: Clearance,
  linkExistingUsers: Schema.Boolean,
  version: Schema.Number,
  liveCredentials: Schema.Number
})
export type ConnectionRow = typeof ConnectionRow.Type

export const CredentialRow = Schema.Struct({
  id: Schema.String,
  connectionId: Schema.String,
  publicTokenId: Schema.String,
  verifierKeyVersion: Schema.Number,
  usersScope: Schema.Boolean,
  groupsScope: Schema.Boolean,
  expiresAt: Timestamp,
  overlapEndsAt: Schema.NullOr(Timestamp),
  revokedAt: Schema.NullOr(Timestamp),
  lastUsedAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp
})
export type CredentialRow = typeof CredentialRow.Type

/** A credential presented to /scim/v2, with its connection: everything the SCIM authenticator decides on. */
export const PresentedCredential = Schema.Struct({
  ...CredentialRow.fields,
  verifier: Schema.String,
  organizationId: Schema.String,
  operationalState: OperationalState,
  usersEnabled: Schema.Boolean,
  groupsEnabled: Schema.Boolean,
  defaultRole: UserRole,
  defaultClearance: Clearance,
  linkExistingUsers: Schema.Boolean,
  live: Schema.Boolean
})
export type PresentedCredential = typeof PresentedCredential.Type

const connectionColumns = (sql: SqlClient.SqlClient) => sql.literal(`
  c.id, c.organization_id, c.alias, c.provider_profile, c.operational_state, c.users_enabled, c.groups_enabled,
  c.default_role, c.default_clearance, c.link_existing_users, c.version,
  (SELECT count(*)::int FROM provisioning_credentials k WHERE k.connection_id = c.id AND k.revoked_at IS NULL
     AND k.expires_at > now() AND (k.overlap_ends_at IS NULL OR k.overlap_ends_at > now())) AS live_credentials`)

const credentialColumns = (sql: SqlClient.SqlClient) => sql.literal(`
  k.id, k.connection_id, k.public_token_id, k.verifier_key_version, k.users_scope, k.groups_scope, k.expires_at,
  k.overlap_ends_at, k.revoked_at, k.last_used_at, k.created_at`)

export interface NewCredential {
  readonly connectionId: string
  readonly publicTokenId: string
  readonly verifier: string
  readonly verifierKeyVersion: number
  readonly usersScope: boolean
  readonly groupsScope: boolean
  readonly expiresAt: Date
  readonly replacesId: string | null
}

/** SQL for provisioning connections and their credentials. */
export class ProvisioningRepo extends Effect.Service<ProvisioningRepo>()("lore/ProvisioningRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = connectionColumns(sql)
    const credentials = credentialColumns(sql)
    return {
      connections: rows("provisioning.connections", ConnectionRow, (organizationId: string) =>
        sql`SELECT ${columns} FROM provisioning_connections c WHERE c.organization_id = ${organizationId} ORDER BY c.alias`),
      connection: row("provisioning.connection", ConnectionRow, (organizationId: string, id: string) =>
        sql`SELECT ${columns} FROM provisioning_connections c WHERE c.organization_id = ${organizationId} AND c.id = ${id}`),
      /** The new connection's id, or undefined when the alias is taken. */
      insertConnection: row("provisioning.insertConnection", Schema.Struct({ id: Schema.String }), (organizationId: string, input: {
        alias: string; providerProfile: string; usersEnabled: boolean; groupsEnabled: boolean; defaultRole: string; defaultClearance: string
        linkExistingUsers: boolean
      }) => sql`
        INSERT INTO provisioning_connections (organization_id, alias, provider_profile, users_enabled, groups_enabled, default_role, default_clearance, link_existing_users)
        VALUES (${organizationId}, ${input.alias}, ${input.providerProfile}, ${input.usersEnabled}, ${input.groupsEnabled}, ${input.defaultRole}, ${input.defaultClearance}, ${input.linkExistingUsers})
        ON CONFLICT (organization_id, alias) DO NOTHING RETURNING id`),
      /** Sets the state if `version` is current; undefined otherwise. */
      setState: row("provisioning.setState", Schema.Struct({ id: Schema.String }), (id: string, state: string, version: number, linkExistingUsers: boolean | null) => sql`
        UPDATE provisioning_connections SET operational_state = ${state},
          link_existing_users = coalesce(${linkExistingUsers}::boolean, link_existing_users), version = version + 1, updated_at = now()
        WHERE id = ${id} AND version = ${version} RETURNING id`),
      credentials: rows("provisioning.credentials", CredentialRow, (connectionId: string) =>
        sql`SELECT ${credentials} FROM provisioning_credentials k WHERE k.connection_id = ${connectionId} ORDER BY k.created_at, k.id`),
      credential: row("provisioning.credential", CredentialRow, (connectionId: string, id: string) =>
        sql`SELECT ${credentials} FROM provisioning_credentials k WHERE k.connection_id = ${connectionId} AND k.id = ${id} FOR UPDATE`),
      insertCredential: row("provisioning.insertCredential", CredentialRow, (input: NewCredential) => sql`
        INSERT INTO provisioning_credentials AS k (connection_id, public_token_id, verifier, verifier_key_version, users_scope, groups_scope, expires_at, replaces_id)
        VALUES (${input.connectionId}, ${input.publicTokenId}, ${input.verifier}, ${input.verifierKeyVersion}, ${input.usersScope}, ${input.groupsScope}, ${input.expiresAt}, ${input.replacesId})
        RETURNING ${credentials}`),
      /** The replaced credential keeps working until `until` (never later than it would have anyway). */
      endOverlap: exec((id: string, until: Date) => sql`
        UPDATE provisioning_credentials SET overlap_ends_at = least(coalesce(overlap_ends_at, ${until}::timestamptz), ${until}::timestamptz, expires_at)
        WHERE id = ${id}`),
      revoke: exec((id: string) => sql`UPDATE provisioning_credentials SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${id}`),
      /** The credential behind a presented public token id, with its connection and whether it is live now. */
      presented: row("provisioning.presented", PresentedCredential, (publicTokenId: string) => sql`
        SELECT ${credentials}, k.verifier, c.organization_id, c.operational_state, c.users_enabled, c.groups_enabled,
          c.default_role, c.default_clearance, c.link_existing_users,
          (k.revoked_at IS NULL AND k.expires_at > now() AND (k.overlap_ends_at IS NULL OR k.overlap_ends_at > now())) AS live
        FROM provisioning_credentials k JOIN provisioning_connections c ON c.id = k.connection_id
        WHERE k.public_token_id = ${publicTokenId}`),
      /** last_used_at, written at most once a minute per credential. */
      touch: exec((id: string) => sql`
        UPDATE provisioning_credentials SET last_used_at = now()
        WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`)
    }
  })
}) {}
