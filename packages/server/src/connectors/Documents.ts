import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { AuthorizationGeneration } from "../access/Generation"
import { sourceAclKey, sourceAclSetKey } from "../access/Evaluator"
import { transactional } from "../db/Sql"
import { Settings } from "../Config"
import { ExternalSources } from "../knowledge/ExternalSources"
import { detectMediaType } from "../knowledge/parsing"
import { InvalidPushedDocument } from "./Errors"
import type { NativeAcl, NativePrincipals, SourceDocument, SourceGroupMembership } from "./Kind"
import { type ConnectionRow, ConnectorsRepo } from "./Repo"

export type DocumentOutcome = "MATERIALIZED" | "ROTATED" | "REMATERIALIZED" | "UNCHANGED"

const principalKeys = (connectionId: string, principals: NativePrincipals) => [...new Set([
  ...principals.users.map((user) => sourceAclKey(connectionId, "SOURCE_USER", user.id)),
  ...principals.groups.map((group) => sourceAclKey(connectionId, "SOURCE_GROUP", group.id)),
  ...(principals.organizations ?? []).map((organization) => sourceAclKey(connectionId, "SOURCE_ORGANIZATION", organization.id))
])].sort()

/**
 * The ACL keys a document's chunks carry: one per allowed native principal, scoped to the connection; null
 * (no source ACL: the space's grants alone decide) for a document without one; none for one whose permissions the
 * source would not give (unresolved: it admits nobody).
 */
export const aclKeysOf = (connectionId: string, acl: NativeAcl | null): ReadonlyArray<string> | null =>
  acl === null ? null : acl.unresolved ? [] : principalKeys(connectionId, acl)

/** A key set of an intersection: its content-addressed key and its members' keys. */
export interface AclSet { readonly setKey: string; readonly members: ReadonlyArray<string> }

/**
 * The key sets a document also requires (acl_all), each content-addressed (equal restrictions on many pages are
 * one set); null when the ACL requires nothing more. An unresolved ACL is empty and requires nothing further.
 */
export const aclSetsOf = (connectionId: string, acl: NativeAcl | null): ReadonlyArray<AclSet> | null => {
  if (acl === null || acl.unresolved || !acl.requireAlso || acl.requireAlso.length === 0) return null
  const sets = new Map<string, AclSet>()
  for (const principals of acl.requireAlso) {
    const members = principalKeys(connectionId, principals)
    const setKey = sourceAclSetKey(connectionId, createHash("sha256").update(members.join("\n")).digest("hex").slice(0, 32))
    sets.set(setKey, { setKey, members })
  }
  return [...sets.values()].sort((a, b) => (a.setKey < b.setKey ? -1 : a.setKey > b.setKey ? 1 : 0))
}

const setKeysOf = (sets: ReadonlyArray<AclSet> | null) => (sets === null ? null : sets.map((set) => set.setKey))

const sameKeys = (a: ReadonlyArray<string> | null, b: ReadonlyArray<string> | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((key, i) => key === b[i])

/**
 * Materializing what connectors yield: documents become sources (versions of one knowledge asset per external
 * id) ingested by the same job as uploads, with the ACL's keys on the source and its chunks; an ACL-only change
 * rewrites those keys without re-parsing or re-embedding; principals and group snapshots are recorded; a
 * deletion retires the document. Used by the indexing API and by crawls alike.
 */
export class ConnectorDocuments extends Effect.Service<ConnectorDocuments>()("lore/ConnectorDocuments", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = transactional(sql)
    const repo = yield* ConnectorsRepo
    const sources = yield* ExternalSources
    const generation = yield* AuthorizationGeneration
    const settings = yield* Settings

    /** Records the principals of an ACL; on a TRUSTED connection, joins new ones by email (raising the generation). */
    const observe = (connection: ConnectionRow, acl: NativeAcl | NativePrincipals | null) =>
      Effect.gen(function* () {
        const ids = { users: [] as Array<string>, groups: [] as Array<string> }
        if (acl === null) return ids
        const all: Array<NativePrincipals> = [acl, ...((acl as NativeAcl).requireAlso ?? [])]
        for (const principals of all) {
          for (const user of principals.users) {
            const found = yield* repo.observePrincipal(connection.id, { kind: "SOURCE_USER", nativePrincipalId: user.id, email: user.email, displayName: user.displayName })
            if (found && principals === acl) ids.users.push(found.id)
          }
          for (const group of principals.groups) {
            const found = yield* repo.observePrincipal(connection.id, { kind: "SOURCE_GROUP", nativePrincipalId: group.id, displayName: group.displayName })
            if (found && principals === acl) ids.groups.push(found.id)
          }
          for (const organization of principals.organizations ?? []) {
            yield* repo.observePrincipal(connection.id, { kind: "SOURCE_ORGANIZATION", nativePrincipalId: organization.id, displayName: organization.displayName })
          }
        }
        // Only an observed email can make or break an IDP_JOIN (an entry without one keeps the last observed).
        if (connection.identityTrust === "TRUSTED" && all.some((principals) => principals.users.some((user) => user.email))) {
          const revoked = yield* repo.revokeStaleJoins(connection.id, ids.users)
          const joined = yield* repo.joinByEmail(connection.id)
          if (revoked.length + joined.length > 0) yield* generation.bump(connection.organizationId)
        }
        return ids
      })

    const put = (connection: ConnectionRow, document: SourceDocument) =>
      Effect.gen(function* () {
        if (document.bytes.byteLength > settings.maxUploadBytes) {
          return yield* new InvalidPushedDocument({ detail: `Documents are limited to ${settings.maxUploadBytes} bytes`, errors: [{ path: "content", message: "is too large" }] })
        }
        const detected = detectMediaType(document.bytes, document.fileName, document.mediaType)
        if (detected._tag === "Empty") return yield* new InvalidPushedDocument({ detail: detected.detail, errors: [{ path: "content", message: "is empty" }] })
        if (detected._tag === "Unsupported") return yield* new InvalidPushedDocument({ detail: detected.detail, errors: [{ path: "mediaType", message: "is not supported" }] })
        const digest = createHash("sha256").update(document.bytes).digest("hex")
        const aclKeys = aclKeysOf(connection.id, document.acl)
        const sets = aclSetsOf(connection.id, document.acl)
        const aclAll = setKeysOf(sets)
        yield* observe(connection, document.acl)

        return yield* transaction(
          Effect.gen(function* () {
            yield* repo.lockDocument(connection.id, document.externalId)
            for (const set of sets ?? []) yield* repo.putAclSet(connection.id, set.setKey, set.members)
            const existing = yield* repo.document(connection.id, document.externalId)
            const live = existing && existing.retiredAt === null ? existing : undefined
            let outcome: DocumentOutcome = "MATERIALIZED"
            let assetId: string
            let sourceId: string | null = null
            if (live) {
              assetId = live.knowledgeAssetId
              yield* sources.lockAsset(assetId)
              const latest = yield* sources.latestVersion(assetId)
              if (latest && latest.contentDigest === digest && latest.classification === document.classification && latest.title === document.title) {
                sourceId = latest.id
                if (sameKeys(live.aclKeys, aclKeys) && sameKeys(live.aclAll, aclAll)) outcome = "UNCHANGED"
                else {
                  // Only the ACL changed: rewrite the keys of the versions and their chunks; nothing is parsed or embedded.
                  yield* sources.setAcl(assetId, aclKeys, aclAll)
                  outcome = "REMATERIALIZED"
                }
              } else {
                // New content: every version takes the new ACL at once, and the new version is ingested.
                yield* sources.setAcl(assetId, aclKeys, aclAll)
                outcome = "ROTATED"
              }
            } else {
              assetId = yield* sources.createAsset(connection.organizationId, connection.knowledgeSpaceId, document.title)
            }
            if (outcome === "MATERIALIZED" || outcome === "ROTATED") {
              sourceId = yield* sources.addVersion({
                organizationId: connection.organizationId,
                knowledgeSpaceId: connection.knowledgeSpaceId,
                knowledgeAssetId: assetId,
                title: document.title,
                classification: document.classification,
                fileName: document.fileName,
                mediaType: detected.mediaType,
                bytes: document.bytes,
                contentDigest: digest,
                uploadedBy: connection.actorUserId,
                sourceSystem: connection.sourceSystem,
                aclKeys,
                aclAll
              })
            }
            yield* repo.putDocument(connection.id, document.externalId, assetId, document.url, document.acl, aclKeys, aclAll)
            return { externalId: document.externalId, outcome, knowledgeAssetId: assetId, sourceId }
          })
        )
      })

    /**
     * A document's new ACL without its bytes (a permission sync): when the keys differ, the versions and chunks take
     * them (REMATERIALIZED; nothing is parsed or embedded); when they are the same, nothing is written (UNCHANGED).
     * A document Lore does not hold (or has retired) is left to the content crawl (MISSING).
     */
    const putAcl = (connection: ConnectionRow, externalId: string, acl: NativeAcl | null) =>
      Effect.gen(function* () {
        const aclKeys = aclKeysOf(connection.id, acl)
        const sets = aclSetsOf(connection.id, acl)
        const aclAll = setKeysOf(sets)
        const unresolved = acl?.unresolved === true
        const existing = yield* repo.document(connection.id, externalId)
        if (!existing || existing.retiredAt !== null) return "MISSING" as const
        if (sameKeys(existing.aclKeys, aclKeys) && sameKeys(existing.aclAll, aclAll) && existing.unresolved === unresolved) return "UNCHANGED" as const
        yield* observe(connection, acl)
        return yield* transaction(
          Effect.gen(function* () {
            yield* repo.lockDocument(connection.id, externalId)
            const current = yield* repo.document(connection.id, externalId)
            if (!current || current.retiredAt !== null) return "MISSING" as const
            for (const set of sets ?? []) yield* repo.putAclSet(connection.id, set.setKey, set.members)
            yield* sources.lockAsset(current.knowledgeAssetId)
            yield* sources.setAcl(current.knowledgeAssetId, aclKeys, aclAll)
            yield* repo.setDocumentAcl(connection.id, externalId, acl, aclKeys, aclAll)
            return "REMATERIALIZED" as const
          })
        )
      })

    /** Retires a document: every version is deleted (hidden at once, purged by a job); unknown ids are a no-op. */
    const retire = (connection: ConnectionRow, externalId: string) =>
      transaction(
        Effect.gen(function* () {
          yield* repo.lockDocument(connection.id, externalId)
          const existing = yield* repo.document(connection.id, externalId)
          if (!existing || existing.retiredAt !== null) return false
          yield* sources.lockAsset(existing.knowledgeAssetId)
          yield* sources.retire(existing.knowledgeAssetId, connection.organizationId)
          yield* repo.retireDocument(connection.id, externalId)
          return true
        })
      )

    /**
     * Replaces a source group's (or organization's) membership with a new sealed snapshot and raises the authorization
     * generation, only when the membership changed: an unchanged group writes nothing and keeps the principal cache.
     * Answers the group's id and whether it changed.
     */
    const putGroup = (connection: ConnectionRow, group: SourceGroupMembership) =>
      Effect.gen(function* () {
        const kind = group.kind ?? "SOURCE_GROUP"
        // An organization-wide principal holds users only: a group inside it would let guests in through the group.
        const members = yield* observe(connection, kind === "SOURCE_ORGANIZATION" ? { users: group.members.users, groups: [] } : group.members)
        return yield* transaction(
          Effect.gen(function* () {
            const found = yield* repo.observePrincipal(connection.id, { kind, nativePrincipalId: group.id, displayName: group.displayName })
            const groupId = found!.id
            const wanted = [...new Set([...members.users, ...members.groups])].filter((id) => id !== groupId).sort()
            const current = yield* repo.groupState(groupId)
            if (current.sealed && sameKeys(current.memberIds, wanted)) return { groupId, changed: false }
            yield* repo.replaceMembers(groupId, wanted)
            yield* generation.bump(connection.organizationId)
            return { groupId, changed: true }
          })
        )
      })

    /** Retires every live document of a connection (before it is deleted). */
    const retireAll = (connection: ConnectionRow) =>
      Effect.gen(function* () {
        let retired = 0
        for (const document of yield* repo.liveDocuments(connection.id)) if (yield* retire(connection, document.externalId)) retired++
        return retired
      })

    return { put, putAcl, retire, putGroup, retireAll }
  }),
  dependencies: [ConnectorsRepo.Default, ExternalSources.Default, AuthorizationGeneration.Default]
}) {}
