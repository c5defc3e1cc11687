import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { AuthorizationGeneration } from "../access/Generation"
import { transactional } from "../db/Sql"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { randomSecret, SecretBox } from "../platform/SecretBox"
import type { OperationalState, ProviderProfile } from "./Api"
import {
  InvalidProvisioningCredential, ProvisioningAliasTaken, ProvisioningConnectionNotFound, ProvisioningCredentialNotFound,
  ProvisioningCredentialRevoked, ProvisioningVersionConflict
} from "./Errors"
import { type ConnectionRow, type CredentialRow, ProvisioningRepo } from "./Repo"
import { quoteInput } from "../domain/Echo"

export const SCIM_BASE_PATH = "/scim/v2"
export const SCIM_TOKEN_PREFIX = "lore_scim_"
/** The server key version verifiers are made with; a future key rotation raises it and keeps the old key for reading. */
export const VERIFIER_KEY_VERSION = 1
const DEFAULT_EXPIRY_DAYS = 365
const DEFAULT_OVERLAP_SECONDS = 24 * 3600
const DAY_MS = 24 * 3600_000

/** `lore_scim_<publicTokenId>.<secret>`: the public part finds the credential, the whole token is verified. */
export const parseScimToken = (token: string) => {
  const match = /^lore_scim_([0-9a-f]{16})\.([A-Za-z0-9_-]{32,})$/.exec(token)
  return match ? { publicTokenId: match[1]! } : undefined
}

export const verifierOf = (box: { readonly sign: (purpose: string, value: string) => string }, token: string) => box.sign("scim-credential", token)

const describeConnection = (row: ConnectionRow) => ({
  id: row.id,
  alias: row.alias,
  providerProfile: row.providerProfile,
  configurationStatus: row.liveCredentials > 0 ? "CONFIGURED" : "NEEDS_CREDENTIAL",
  operationalState: row.operationalState,
  usersEnabled: row.usersEnabled,
  groupsEnabled: row.groupsEnabled,
  defaultRole: row.defaultRole,
  defaultClearance: row.defaultClearance,
  linkExistingUsers: row.linkExistingUsers,
  scimBaseUrl: SCIM_BASE_PATH,
  version: row.version
})

const describeCredential = (row: CredentialRow) => ({
  id: row.id,
  publicTokenId: row.publicTokenId,
  verifierKeyVersion: row.verifierKeyVersion,
  usersScope: row.usersScope,
  groupsScope: row.groupsScope,
  expiresAt: row.expiresAt,
  overlapEndsAt: row.overlapEndsAt,
  revokedAt: row.revokedAt,
  lastUsedAt: row.lastUsedAt,
  createdAt: row.createdAt
})

const notFound = new ProvisioningConnectionNotFound({ detail: "No provisioning connection with this id in your organization" })
const credentialNotFound = new ProvisioningCredentialNotFound({ detail: "The connection has no credential with this id" })

/** Administering provisioning connections and their credentials (tokens shown once, stored as verifiers). */
export class ProvisioningConnections extends Effect.Service<ProvisioningConnections>()("lore/ProvisioningConnections", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* ProvisioningRepo
    const audit = yield* Audit
    const box = yield* SecretBox
    const generation = yield* AuthorizationGeneration

    const requireConnection = (actor: Principal, id: string) =>
      Effect.flatMap(repo.connection(actor.organizationId, id), (row) => (row ? Effect.succeed(row) : Effect.fail(notFound)))

    const issue = (connectionId: string, scopes: { usersScope: boolean; groupsScope: boolean }, expiresInDays: number | undefined, replacesId: string | null) =>
      Effect.gen(function* () {
        const publicTokenId = randomBytes(8).toString("hex")
        const token = `${SCIM_TOKEN_PREFIX}${publicTokenId}.${randomSecret(32)}`
        const row = yield* repo.insertCredential({
          connectionId,
          publicTokenId,
          verifier: verifierOf(box, token),
          verifierKeyVersion: VERIFIER_KEY_VERSION,
          usersScope: scopes.usersScope,
          groupsScope: scopes.groupsScope,
          expiresAt: new Date(Date.now() + (expiresInDays ?? DEFAULT_EXPIRY_DAYS) * DAY_MS),
          replacesId
        })
        return { row: row!, token }
      })

    return {
      list: (actor: Principal) => Effect.map(repo.connections(actor.organizationId), (rows) => rows.map(describeConnection)),

      create: (actor: Principal, input: {
        alias: string; providerProfile: ProviderProfile; usersEnabled: boolean; groupsEnabled: boolean
        defaultRole?: string | undefined; defaultClearance?: string | undefined; linkExistingUsers?: boolean | undefined
      }) =>
        transaction(Effect.gen(function* () {
          const inserted = yield* repo.insertConnection(actor.organizationId, {
            alias: input.alias,
            providerProfile: input.providerProfile,
            usersEnabled: input.usersEnabled,
            groupsEnabled: input.groupsEnabled,
            defaultRole: input.defaultRole ?? "EMPLOYEE",
            defaultClearance: input.defaultClearance ?? "STANDARD",
            linkExistingUsers: input.linkExistingUsers ?? false
          })
          if (!inserted) return yield* new ProvisioningAliasTaken({ detail: `A provisioning connection with alias ${quoteInput(input.alias, 100)} exists already` })
          yield* audit.record(actor, { action: "provisioning.connection.create", resourceType: "provisioning_connection", resourceId: inserted.id, details: { alias: input.alias, providerProfile: input.providerProfile, linkExistingUsers: input.linkExistingUsers ?? false } })
          return describeConnection((yield* repo.connection(actor.organizationId, inserted.id))!)
        })),

      setState: (actor: Principal, id: string, state: OperationalState, version: number, linkExistingUsers?: boolean | undefined) =>
        transaction(Effect.gen(function* () {
          const current = yield* requireConnection(actor, id)
          if (!(yield* repo.setState(id, state, version, linkExistingUsers ?? null))) {
            return yield* new ProvisioningVersionConflict({ detail: `The connection is at version ${current.version}, not ${version}; read it again and retry` })
          }
          yield* audit.record(actor, { action: "provisioning.connection.state", resourceType: "provisioning_connection", resourceId: id, details: {
            from: current.operationalState, to: state,
            ...(linkExistingUsers !== undefined ? { linkExistingUsers: { from: current.linkExistingUsers, to: linkExistingUsers } } : {})
          } })
          // Provisioned people and groups stop or start changing access: clients comparing generations re-read.
          yield* generation.bump(actor.organizationId)
          return describeConnection((yield* repo.connection(actor.organizationId, id))!)
        })),

      credentials: (actor: Principal, id: string) =>
        Effect.flatMap(requireConnection(actor, id), () => Effect.map(repo.credentials(id), (rows) => rows.map(describeCredential))),

      issue: (actor: Principal, id: string, input: { usersScope: boolean; groupsScope: boolean; expiresInDays?: number | undefined }) =>
        transaction(Effect.gen(function* () {
          yield* requireConnection(actor, id)
          if (!input.usersScope && !input.groupsScope) {
            return yield* new InvalidProvisioningCredential({ detail: "A credential needs usersScope or groupsScope (or both)" })
          }
          const { row, token } = yield* issue(id, input, input.expiresInDays, null)
          yield* audit.record(actor, { action: "provisioning.credential.issue", resourceType: "provisioning_connection", resourceId: id, details: { credentialId: row.id, publicTokenId: row.publicTokenId } })
          return { credentialId: row.id, token, publicTokenId: row.publicTokenId, usersScope: row.usersScope, groupsScope: row.groupsScope, expiresAt: row.expiresAt, replacesCredentialId: null, overlapEndsAt: null }
        })),

      rotate: (actor: Principal, id: string, credentialId: string, input: { overlapSeconds?: number | undefined; expiresInDays?: number | undefined }) =>
        transaction(Effect.gen(function* () {
          yield* requireConnection(actor, id)
          const old = yield* repo.credential(id, credentialId)
          if (!old) return yield* credentialNotFound
          const now = Date.now()
          if (old.revokedAt || old.expiresAt.getTime() <= now || (old.overlapEndsAt && old.overlapEndsAt.getTime() <= now)) {
            return yield* new ProvisioningCredentialRevoked({ detail: "This credential no longer works, so it cannot be rotated; issue a new one" })
          }
          const { row, token } = yield* issue(id, old, input.expiresInDays, old.id)
          const overlapEndsAt = new Date(now + (input.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS) * 1000)
          yield* repo.endOverlap(old.id, overlapEndsAt)
          const ended = (yield* repo.credential(id, old.id))!
          yield* audit.record(actor, {
            action: "provisioning.credential.rotate", resourceType: "provisioning_connection", resourceId: id,
            details: { credentialId: row.id, replacesCredentialId: old.id, overlapEndsAt: ended.overlapEndsAt?.toISOString() }
          })
          return { credentialId: row.id, token, publicTokenId: row.publicTokenId, usersScope: row.usersScope, groupsScope: row.groupsScope, expiresAt: row.expiresAt, replacesCredentialId: old.id, overlapEndsAt: ended.overlapEndsAt }
        })),

      revoke: (actor: Principal, id: string, credentialId: string) =>
        transaction(Effect.gen(function* () {
          yield* requireConnection(actor, id)
          const found = yield* repo.credential(id, credentialId)
          if (!found) return yield* credentialNotFound
          yield* repo.revoke(credentialId)
          yield* audit.record(actor, { action: "provisioning.credential.revoke", resourceType: "provisioning_connection", resourceId: id, details: { credentialId } })
        }))
    }
  }),
  dependencies: [ProvisioningRepo.Default, Audit.Default, SecretBox.Default, AuthorizationGeneration.Default]
}) {}
