import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { AuthorizationGeneration } from "../access/Generation"
import { sourceAclKey } from "../access/Evaluator"
import { transactional } from "../db/Sql"
import { Settings } from "../Config"
import { ExternalSources } from "../knowledge/ExternalSources"
import { detectMediaType } from "../knowledge/parsing"
import { InvalidPushedDocument } from "./Errors"
import type { NativeAcl, SourceDocument, SourceGroupMembership } from "./Kind"
import { type ConnectionRow, ConnectorsRepo } from "./Repo"

export type DocumentOutcome = "MATERIALIZED" | "ROTATED" | "REMATERIALIZED" | "UNCHANGED"

/**
 * The ACL keys a document's chunks carry: one per allowed native principal, scoped to the connection; null
 * (no source ACL: the space's grants alone decide) for a document without one.
 */
export const aclKeysOf = (connectionId: string, acl: NativeAcl | null): ReadonlyArray<string> | null =>
  acl === null ? null : [...new Set([
    ...acl.users.map((user) => sourceAclKey(connectionId, "SOURCE_USER", user.id)),
    ...acl.groups.map((group) => sourceAclKey(connectionId, "SOURCE_GROUP", group.id))
  ])].sort()

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
    const observe = (connection: ConnectionRow, acl: NativeAcl | null) =>
      Effect.gen(function* () {
        const ids = { users: [] as Array<string>, groups: [] as Array<string> }
        if (acl === null) return ids
        for (const user of acl.users) {
          const found = yield* repo.observePrincipal(connection.id, { kind: "SOURCE_USER", nativePrincipalId: user.id, email: user.email, displayName: user.displayName })
          if (found) ids.users.push(found.id)
        }
        for (const group of acl.groups) {
          const found = yield* repo.observePrincipal(connection.id, { kind: "SOURCE_GROUP", nativePrincipalId: group.id, displayName: group.displayName })
          if (found) ids.groups.push(found.id)
        }
        // Only an observed email can make or break an IDP_JOIN (an entry without one keeps the last observed).
        if (connection.identityTrust === "TRUSTED" && acl.users.some((user) => user.email)) {
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
        yield* observe(connection, document.acl)

        return yield* transaction(
          Effect.gen(function* () {
            yield* repo.lockDocument(connection.id, document.externalId)
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
                if (sameKeys(live.aclKeys, aclKeys)) outcome = "UNCHANGED"
                else {
                  // Only the ACL changed: rewrite the keys of the versions and their chunks; nothing is parsed or embedded.
                  yield* sources.setAcl(assetId, aclKeys)
                  outcome = "REMATERIALIZED"
                }
              } else {
                // New content: every version takes the new ACL at once, and the new version is ingested.
                yield* sources.setAcl(assetId, aclKeys)
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
                aclKeys
              })
            }
            yield* repo.putDocument(connection.id, document.externalId, assetId, document.url, document.acl, aclKeys)
            return { externalId: document.externalId, outcome, knowledgeAssetId: assetId, sourceId }
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

    /** Replaces a source group's membership with a new sealed snapshot and raises the authorization generation. */
    const putGroup = (connection: ConnectionRow, group: SourceGroupMembership) =>
      Effect.gen(function* () {
        const members = yield* observe(connection, group.members)
        return yield* transaction(
          Effect.gen(function* () {
            const found = yield* repo.observePrincipal(connection.id, { kind: "SOURCE_GROUP", nativePrincipalId: group.id, displayName: group.displayName })
            const groupId = found!.id
            yield* repo.replaceMembers(groupId, [...members.users, ...members.groups].filter((id) => id !== groupId))
            yield* generation.bump(connection.organizationId)
            return groupId
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

    return { put, retire, putGroup, retireAll }
  }),
  dependencies: [ConnectorsRepo.Default, ExternalSources.Default, AuthorizationGeneration.Default]
}) {}
