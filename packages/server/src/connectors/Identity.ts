import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { AuthorizationGeneration } from "../access/Generation"
import { transactional } from "../db/Sql"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { ConnectionNotFound, MappingUserNotFound, SourcePrincipalNotFound } from "./Errors"
import { ConnectorsRepo, type PrincipalRow } from "./Repo"
import { quoteInput } from "../domain/Echo"

const describePrincipal = (row: PrincipalRow) => ({
  id: row.id,
  sourceSystem: row.sourceSystem,
  sourceConnectionKey: row.connectionKey,
  nativePrincipalId: row.nativePrincipalId,
  kind: row.kind,
  observedEmail: row.observedEmail,
  observedDisplayName: row.observedDisplayName,
  ssoVerified: row.ssoVerified,
  lastSeenAt: row.lastSeenAt,
  mapping: row.mappingId === null
    ? null
    : {
      id: row.mappingId,
      appUserId: row.appUserId!,
      appUserName: row.appUserName ?? "",
      appUserEmail: row.appUserEmail ?? "",
      method: row.method!,
      status: row.status!,
      evidence: row.evidence ?? "",
      verifiedAt: row.verifiedAt!
    }
})

const principalNotFound = new SourcePrincipalNotFound({ detail: "No source principal with this id in your organization" })

/**
 * Source identity: principals seen in ACLs and their mappings to Lore users, source groups, and the trust of
 * each connection. Every change here raises the authorization generation: the evaluator reads mappings and
 * memberships per request, so it takes effect on the next one.
 */
export class SourceIdentity extends Effect.Service<SourceIdentity>()("lore/SourceIdentity", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* ConnectorsRepo
    const audit = yield* Audit
    const generation = yield* AuthorizationGeneration

    const principals = (actor: Principal) => Effect.map(repo.principals(actor.organizationId), (rows) => rows.map(describePrincipal))

    const requirePrincipal = (actor: Principal, principalId: string) =>
      Effect.flatMap(repo.principal(actor.organizationId, principalId), (row) => (row ? Effect.succeed(row) : Effect.fail(principalNotFound)))

    const map = (actor: Principal, principalId: string, appUserId: string) =>
      Effect.gen(function* () {
        const principal = yield* requirePrincipal(actor, principalId)
        if (!(yield* repo.activeUser(actor.organizationId, appUserId))) {
          return yield* new MappingUserNotFound({ detail: "appUserId names no active user of your organization" })
        }
        yield* transaction(
          Effect.gen(function* () {
            yield* repo.putMapping(principal.id, appUserId, actor.userId)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, {
              action: "source_principal.map",
              resourceType: "source_principal",
              resourceId: principal.id,
              details: { sourceSystem: principal.sourceSystem, connectionKey: principal.connectionKey, nativePrincipalId: principal.nativePrincipalId, appUserId }
            })
          })
        )
        return describePrincipal((yield* repo.principal(actor.organizationId, principalId))!)
      })

    const unmap = (actor: Principal, principalId: string) =>
      Effect.gen(function* () {
        const principal = yield* requirePrincipal(actor, principalId)
        yield* transaction(
          Effect.gen(function* () {
            yield* repo.deleteMapping(principal.id)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, {
              action: "source_principal.unmap",
              resourceType: "source_principal",
              resourceId: principal.id,
              details: { sourceSystem: principal.sourceSystem, connectionKey: principal.connectionKey, nativePrincipalId: principal.nativePrincipalId }
            })
          })
        )
        return describePrincipal((yield* repo.principal(actor.organizationId, principalId))!)
      })

    /** The organization's source groups (or one), each with its sealed membership snapshot. */
    const groupsIn = (organizationId: string, groupId: string | null) =>
      Effect.gen(function* () {
        const [groupRows, memberRows] = yield* Effect.all([repo.groups(organizationId, groupId), repo.members(organizationId)])
        return groupRows.map((group) => ({
          principalId: group.principalId,
          sourceSystem: group.sourceSystem,
          sourceConnectionKey: group.connectionKey,
          nativePrincipalId: group.nativePrincipalId,
          observedDisplayName: group.observedDisplayName,
          membershipSnapshotId: group.snapshotId,
          membershipGeneration: group.membershipGeneration,
          sealedAt: group.sealedAt,
          members: memberRows.filter((m) => m.groupPrincipalId === group.principalId).map(({ groupPrincipalId: _, ...member }) => member)
        }))
      })

    const groups = (actor: Principal) => groupsIn(actor.organizationId, null)

    const connections = (actor: Principal) =>
      Effect.map(repo.sourceConnections(actor.organizationId), (rows) => rows.map((row) => ({
        sourceSystem: row.sourceSystem,
        sourceConnectionKey: row.connectionKey,
        identityTrust: row.identityTrust,
        trustDecidedByUserId: row.trustDecidedBy,
        trustDecidedAt: row.trustDecidedAt,
        userCount: row.userCount,
        mappedUserCount: row.mappedUserCount,
        unmappedUserCount: row.userCount - row.mappedUserCount,
        groupCount: row.groupCount,
        lastSeenAt: row.lastSeenAt
      })))

    /** TRUSTED joins the connection's principals to users by email at once; UNTRUSTED makes every mapping grant nothing. */
    const setTrust = (actor: Principal, input: { sourceSystem: string; sourceConnectionKey: string; identityTrust: "TRUSTED" | "UNTRUSTED" }) =>
      Effect.gen(function* () {
        const row = yield* repo.connection(actor.organizationId, input.sourceSystem, input.sourceConnectionKey)
        if (!row) return yield* new ConnectionNotFound({ detail: `No ${quoteInput(input.sourceSystem, 60)} connection ${quoteInput(input.sourceConnectionKey, 100)}` })
        yield* transaction(
          Effect.gen(function* () {
            yield* repo.setTrust(row.id, input.identityTrust, actor.userId)
            if (input.identityTrust === "TRUSTED") yield* repo.joinByEmail(row.id)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "source_connection.identity_trust", resourceType: "connector", resourceId: row.id, details: { ...input } })
          })
        )
        const all = yield* connections(actor)
        return all.find((c) => c.sourceSystem === input.sourceSystem && c.sourceConnectionKey === input.sourceConnectionKey)!
      })

    return { principals, map, unmap, groups, groupsIn, connections, setTrust }
  }),
  dependencies: [ConnectorsRepo.Default, AuthorizationGeneration.Default, Audit.Default]
}) {}
