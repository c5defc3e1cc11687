import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { exec, row, Timestamp } from "../../db/Rows"

export const SsoSettingsRow = Schema.Struct({
  organizationId: Schema.String,
  enabled: Schema.Boolean,
  issuer: Schema.String,
  clientId: Schema.String,
  clientSecretSealed: Schema.NullOr(Schema.String),
  justInTime: Schema.Boolean,
  version: Schema.Number,
  updatedAt: Timestamp
})
export type SsoSettingsRow = typeof SsoSettingsRow.Type

const PendingLogin = Schema.Struct({
  organizationId: Schema.String,
  codeVerifierSealed: Schema.String,
  nonce: Schema.String,
  returnTo: Schema.NullOr(Schema.String),
  expired: Schema.Boolean
})
const Id = Schema.Struct({ id: Schema.String })
const Candidate = Schema.Struct({ id: Schema.String, active: Schema.Boolean })

/** SQL of single sign-on: the organization's settings, sign-ins in flight, and matching identities to users. */
export class SsoRepo extends Effect.Service<SsoRepo>()("lore/SsoRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      /** The single organization's id (Lore serves one organization per deployment). */
      organization: row("sso.organization", Id, () => sql`SELECT id FROM organizations ORDER BY created_at LIMIT 1`),
      settings: row("sso.settings", SsoSettingsRow, (organizationId: string) => sql`
        SELECT organization_id, enabled, issuer, client_id, client_secret_sealed, just_in_time, version, updated_at
        FROM sso_settings WHERE organization_id = ${organizationId}`),
      /** Inserts (version 0 read) or updates when `version` is current; undefined when it is stale. */
      save: row("sso.save", Id, (organizationId: string, input: {
        enabled: boolean; issuer: string; clientId: string; clientSecretSealed: string | null; justInTime: boolean; version: number; updatedBy: string | null
      }) => input.version === 0
        ? sql`
          INSERT INTO sso_settings (organization_id, enabled, issuer, client_id, client_secret_sealed, just_in_time, updated_by)
          VALUES (${organizationId}, ${input.enabled}, ${input.issuer}, ${input.clientId}, ${input.clientSecretSealed}, ${input.justInTime}, ${input.updatedBy})
          ON CONFLICT (organization_id) DO NOTHING RETURNING organization_id AS id`
        : sql`
          UPDATE sso_settings SET enabled = ${input.enabled}, issuer = ${input.issuer}, client_id = ${input.clientId},
            client_secret_sealed = coalesce(${input.clientSecretSealed}, client_secret_sealed), just_in_time = ${input.justInTime},
            version = version + 1, updated_at = now(), updated_by = ${input.updatedBy}
          WHERE organization_id = ${organizationId} AND version = ${input.version} RETURNING organization_id AS id`),
      insertLogin: exec((stateHash: string, organizationId: string, codeVerifierSealed: string, nonce: string, returnTo: string | null) => sql`
        INSERT INTO sso_logins (state_hash, organization_id, code_verifier_sealed, nonce, return_to, expires_at)
        VALUES (${stateHash}, ${organizationId}, ${codeVerifierSealed}, ${nonce}, ${returnTo}, now() + interval '10 minutes')`),
      /** The sign-in in flight for a state, removed as it is read: a state serves once. */
      consumeLogin: row("sso.consumeLogin", PendingLogin, (stateHash: string) => sql`
        DELETE FROM sso_logins WHERE state_hash = ${stateHash}
        RETURNING organization_id, code_verifier_sealed, nonce, return_to, expires_at <= now() AS expired`),
      purgeLogins: exec(() => sql`DELETE FROM sso_logins WHERE expires_at <= now()`),
      bySubject: row("sso.bySubject", Candidate, (organizationId: string, subject: string) => sql`
        SELECT id, active FROM users WHERE organization_id = ${organizationId} AND sso_subject = ${subject}`),
      /** A user provisioned (SCIM) with this externalId. */
      byExternalId: row("sso.byExternalId", Candidate, (organizationId: string, externalId: string) => sql`
        SELECT u.id, u.active FROM scim_users s JOIN users u ON u.id = s.user_id
        WHERE s.organization_id = ${organizationId} AND s.external_id = ${externalId} LIMIT 1`),
      byEmail: row("sso.byEmail", Candidate, (organizationId: string, email: string) => sql`
        SELECT id, active FROM users WHERE organization_id = ${organizationId} AND lower(email) = lower(${email})`),
      link: exec((userId: string, subject: string) => sql`UPDATE users SET sso_subject = ${subject} WHERE id = ${userId} AND sso_subject IS DISTINCT FROM ${subject}`),
      insertUser: row("sso.insertUser", Id, (organizationId: string, email: string, name: string, subject: string) => sql`
        INSERT INTO users (organization_id, department_id, email, name, role, clearance, sso_subject)
        SELECT ${organizationId}, d.id, ${email}, ${name}, 'EMPLOYEE', 'STANDARD', ${subject}
        FROM departments d WHERE d.organization_id = ${organizationId} ORDER BY d.created_at, d.id LIMIT 1
        RETURNING id`)
    }
  })
}) {}
