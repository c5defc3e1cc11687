import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { exec, row, rows, Timestamp } from "../db/Rows"
import { IdentityTrust, MappingMethod, MappingStatus, SourcePrincipalKind } from "./Api"
import { CrawlConnection, crawlDedupeKey, permissionsDedupeKey, SyncPermissions } from "./Jobs"

/** How far the crawl in flight has come: objects applied so far, and what the kind expects still to yield. */
export const CrawlProgress = Schema.Struct({
  startedAt: Schema.String,
  processed: Schema.Number,
  remaining: Schema.NullOr(Schema.Number),
  /** What the crawl's earlier job runs counted (a long crawl spans several; its one attempt reports the sum). */
  counts: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number }))
})
export type CrawlProgress = typeof CrawlProgress.Type

export const ConnectionRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  sourceSystem: Schema.String,
  connectionKey: Schema.String,
  knowledgeSpaceId: Schema.String,
  sourceConfig: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  crawlIntervalSeconds: Schema.Number,
  crawlEnabled: Schema.Boolean,
  identityTrust: IdentityTrust,
  trustDecidedBy: Schema.NullOr(Schema.String),
  trustDecidedAt: Schema.NullOr(Timestamp),
  actorUserId: Schema.NullOr(Schema.String),
  configuredBy: Schema.NullOr(Schema.String),
  configuredAt: Timestamp,
  credentialSet: Schema.Boolean,
  credentialSetBy: Schema.NullOr(Schema.String),
  credentialSetAt: Schema.NullOr(Timestamp),
  checkpoint: Schema.NullOr(Schema.Unknown),
  lastCrawlAt: Schema.NullOr(Timestamp),
  crawlProgress: Schema.NullOr(CrawlProgress),
  crawlFinishedAt: Schema.NullOr(Timestamp),
  successfulCheckpoint: Schema.NullOr(Schema.Unknown),
  successfulAt: Schema.NullOr(Timestamp),
  permissionIntervalSeconds: Schema.Number,
  permissionMaxAgeSeconds: Schema.NullOr(Schema.Number),
  permissionCheckpoint: Schema.NullOr(Schema.Unknown),
  permissionsSyncedAt: Schema.NullOr(Timestamp),
  permissionsFinishedAt: Schema.NullOr(Timestamp),
  permissionsSucceededAt: Schema.NullOr(Timestamp)
})
export type ConnectionRow = typeof ConnectionRow.Type


export const PrincipalRow = Schema.Struct({
  id: Schema.String,
  connectionId: Schema.String,
  organizationId: Schema.String,
  sourceSystem: Schema.String,
  connectionKey: Schema.String,
  identityTrust: IdentityTrust,
  kind: SourcePrincipalKind,
  nativePrincipalId: Schema.String,
  observedEmail: Schema.NullOr(Schema.String),
  observedDisplayName: Schema.NullOr(Schema.String),
  ssoVerified: Schema.Boolean,
  lastSeenAt: Timestamp,
  mappingId: Schema.NullOr(Schema.String),
  appUserId: Schema.NullOr(Schema.String),
  appUserName: Schema.NullOr(Schema.String),
  appUserEmail: Schema.NullOr(Schema.String),
  method: Schema.NullOr(MappingMethod),
  status: Schema.NullOr(MappingStatus),
  evidence: Schema.NullOr(Schema.String),
  verifiedAt: Schema.NullOr(Timestamp)
})
export type PrincipalRow = typeof PrincipalRow.Type

export const GroupRow = Schema.Struct({
  principalId: Schema.String,
  sourceSystem: Schema.String,
  connectionKey: Schema.String,
  nativePrincipalId: Schema.String,
  observedDisplayName: Schema.NullOr(Schema.String),
  snapshotId: Schema.String,
  membershipGeneration: Schema.Number,
  sealedAt: Timestamp
})
export const MemberRow = Schema.Struct({
  groupPrincipalId: Schema.String,
  principalId: Schema.String,
  kind: SourcePrincipalKind,
  nativePrincipalId: Schema.String,
  observedDisplayName: Schema.NullOr(Schema.String),
  observedEmail: Schema.NullOr(Schema.String),
  appUserId: Schema.NullOr(Schema.String),
  appUserName: Schema.NullOr(Schema.String)
})
export const SourceConnectionRow = Schema.Struct({
  sourceSystem: Schema.String,
  connectionKey: Schema.String,
  identityTrust: IdentityTrust,
  trustDecidedBy: Schema.NullOr(Schema.String),
  trustDecidedAt: Schema.NullOr(Timestamp),
  userCount: Schema.Number,
  mappedUserCount: Schema.Number,
  groupCount: Schema.Number,
  lastSeenAt: Schema.NullOr(Timestamp)
})
export const DocumentRow = Schema.Struct({
  externalId: Schema.String,
  knowledgeAssetId: Schema.String,
  aclKeys: Schema.NullOr(Schema.Array(Schema.String)),
  aclAll: Schema.NullOr(Schema.Array(Schema.String)),
  unresolved: Schema.Boolean,
  retiredAt: Schema.NullOr(Timestamp)
})
export type DocumentRow = typeof DocumentRow.Type
export const AttemptRow = Schema.Struct({
  outcome: Schema.String,
  objectsMaterialized: Schema.Number,
  objectsRotated: Schema.Number,
  objectsRematerialized: Schema.Number,
  objectsRetired: Schema.Number,
  objectsFailed: Schema.Number,
  objectsSkipped: Schema.Number,
  component: Schema.Literal("content", "permissions"),
  errorCode: Schema.NullOr(Schema.String),
  errorMessage: Schema.NullOr(Schema.String),
  attemptedAt: Timestamp
})
const ObjectCounts = Schema.Struct({ total: Schema.Number, active: Schema.Number, lastObjectAt: Schema.NullOr(Timestamp) })
const Id = Schema.Struct({ id: Schema.String })
const Progress = Schema.Struct({ crawlProgress: CrawlProgress })
const Queued = Schema.Struct({ queued: Schema.Boolean })
const SystemRef = Schema.Struct({ id: Schema.String, sourceSystem: Schema.String })
const DocumentRef = Schema.Struct({ externalId: Schema.String, knowledgeAssetId: Schema.String, url: Schema.NullOr(Schema.String), updatedAt: Timestamp })
const Sealed = Schema.Struct({ credentialSealed: Schema.NullOr(Schema.String) })
const UserRef = Schema.Struct({ id: Schema.String })

export interface ConnectionSettings {
  readonly knowledgeSpaceId: string
  readonly sourceConfig: Record<string, unknown>
  readonly crawlIntervalSeconds: number
  readonly crawlEnabled: boolean
  readonly identityTrust: "TRUSTED" | "UNTRUSTED"
  readonly permissionIntervalSeconds: number
  readonly permissionMaxAgeSeconds: number | null
}

export interface ObservedPrincipal {
  readonly kind: "SOURCE_USER" | "SOURCE_GROUP" | "SOURCE_ORGANIZATION"
  readonly nativePrincipalId: string
  readonly email?: string | undefined
  readonly displayName?: string | undefined
}

export interface Attempt {
  readonly outcome: string
  readonly materialized?: number
  readonly rotated?: number
  readonly rematerialized?: number
  readonly retired?: number
  readonly failed?: number
  readonly skipped?: number
  /** content (the default) or permissions. */
  readonly component?: "content" | "permissions"
  readonly errorCode?: string | null
  readonly errorMessage?: string | null
}

/** SQL of connectors and source identity (migration 0020_connectors). */
export class ConnectorsRepo extends Effect.Service<ConnectorsRepo>()("lore/ConnectorsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const selectConnection = sql`
      SELECT id, organization_id, source_system, connection_key, knowledge_space_id, source_config, crawl_interval_seconds,
        crawl_enabled, identity_trust, trust_decided_by, trust_decided_at, actor_user_id, configured_by, configured_at,
        credential_sealed IS NOT NULL AS credential_set, credential_set_by, credential_set_at, checkpoint, last_crawl_at,
        crawl_progress, crawl_finished_at, successful_checkpoint, successful_at, permission_interval_seconds, permission_max_age_seconds,
        permission_checkpoint, permissions_synced_at, permissions_finished_at, permissions_succeeded_at
      FROM connector_connections`
    const selectPrincipal = sql`
      SELECT p.id, p.connection_id, c.organization_id, c.source_system, c.connection_key, c.identity_trust, p.kind,
        p.native_principal_id, p.observed_email, p.observed_display_name, p.sso_verified, p.last_seen_at,
        m.id AS mapping_id, m.app_user_id, u.name AS app_user_name, u.email AS app_user_email, m.method, m.status, m.evidence, m.verified_at
      FROM source_principals p
      JOIN connector_connections c ON c.id = p.connection_id
      LEFT JOIN source_principal_mappings m ON m.principal_id = p.id
      LEFT JOIN users u ON u.id = m.app_user_id`

    return {
      connections: rows("connectors.connections", ConnectionRow, (organizationId: string, sourceSystem: string) =>
        sql`${selectConnection} WHERE organization_id = ${organizationId} AND source_system = ${sourceSystem} ORDER BY connection_key`),
      connection: row("connectors.connection", ConnectionRow, (organizationId: string, sourceSystem: string, connectionKey: string) =>
        sql`${selectConnection} WHERE organization_id = ${organizationId} AND source_system = ${sourceSystem} AND connection_key = ${connectionKey}`),
      connectionById: row("connectors.connectionById", ConnectionRow, (id: string) => sql`${selectConnection} WHERE id = ${id}`),
      /** The connection a bearer credential belongs to (by its keyed verifier). */
      connectionByVerifier: row("connectors.connectionByVerifier", ConnectionRow, (verifier: string) =>
        sql`${selectConnection} WHERE credential_verifier = ${verifier}`),
      upsertConnection: row("connectors.upsertConnection", Id, (organizationId: string, sourceSystem: string, connectionKey: string, settings: ConnectionSettings, actorId: string) => sql`
        INSERT INTO connector_connections (organization_id, source_system, connection_key, knowledge_space_id, source_config,
          crawl_interval_seconds, crawl_enabled, identity_trust, trust_decided_by, trust_decided_at, actor_user_id, configured_by, configured_at,
          permission_interval_seconds, permission_max_age_seconds)
        VALUES (${organizationId}, ${sourceSystem}, ${connectionKey}, ${settings.knowledgeSpaceId}, ${JSON.stringify(settings.sourceConfig)}::jsonb,
          ${settings.crawlIntervalSeconds}, ${settings.crawlEnabled}, ${settings.identityTrust}, ${actorId}, now(), ${actorId}, ${actorId}, now(),
          ${settings.permissionIntervalSeconds}, ${settings.permissionMaxAgeSeconds})
        ON CONFLICT (organization_id, source_system, connection_key) DO UPDATE SET
          knowledge_space_id = EXCLUDED.knowledge_space_id, source_config = EXCLUDED.source_config,
          crawl_interval_seconds = EXCLUDED.crawl_interval_seconds, crawl_enabled = EXCLUDED.crawl_enabled,
          permission_interval_seconds = EXCLUDED.permission_interval_seconds, permission_max_age_seconds = EXCLUDED.permission_max_age_seconds,
          trust_decided_by = CASE WHEN connector_connections.identity_trust = EXCLUDED.identity_trust THEN connector_connections.trust_decided_by ELSE EXCLUDED.trust_decided_by END,
          trust_decided_at = CASE WHEN connector_connections.identity_trust = EXCLUDED.identity_trust THEN connector_connections.trust_decided_at ELSE EXCLUDED.trust_decided_at END,
          identity_trust = EXCLUDED.identity_trust,
          actor_user_id = EXCLUDED.actor_user_id, configured_by = EXCLUDED.configured_by, configured_at = now()
        RETURNING id`),
      deleteConnection: exec((id: string) => sql`DELETE FROM connector_connections WHERE id = ${id}`),
      /** The stored config rewritten by its kind (names the source looked up, as ids). */
      setSourceConfig: exec((id: string, sourceConfig: Readonly<Record<string, unknown>>) => sql`
        UPDATE connector_connections SET source_config = ${JSON.stringify(sourceConfig)}::jsonb WHERE id = ${id}`),
      setCredential: exec((id: string, sealed: string | null, verifier: string | null, actorId: string | null) => sql`
        UPDATE connector_connections SET credential_sealed = ${sealed}, credential_verifier = ${verifier},
          credential_set_by = ${sealed === null ? null : actorId}, credential_set_at = ${sealed === null ? null : sql`now()`}
        WHERE id = ${id}`),
      sealedCredential: row("connectors.sealedCredential", Sealed, (id: string) =>
        sql`SELECT credential_sealed FROM connector_connections WHERE id = ${id}`),
      setTrust: exec((id: string, trust: string, actorId: string) => sql`
        UPDATE connector_connections SET identity_trust = ${trust}, trust_decided_by = ${actorId}, trust_decided_at = now() WHERE id = ${id}`),
      /** A crawl begins, or resumes after a restart (its progress so far is kept); answers that progress. */
      beginCrawl: row("connectors.beginCrawl", Progress, (id: string) => sql`
        UPDATE connector_connections
        SET crawl_progress = coalesce(crawl_progress, jsonb_build_object('startedAt', now(), 'processed', 0, 'remaining', NULL))
        WHERE id = ${id} RETURNING crawl_progress`),
      /** Whether a crawl job of the connection is queued or running (by the crawl's dedupe key). */
      crawlQueued: row("connectors.crawlQueued", Queued, (id: string) => sql`
        SELECT EXISTS (SELECT 1 FROM jobs WHERE kind = ${CrawlConnection.kind} AND dedupe_key = ${crawlDedupeKey(id)}
          AND status IN ('QUEUED', 'RUNNING')) AS queued`),
      /** A page is applied: its checkpoint and the crawl's progress are stored together. */
      setCheckpoint: exec((id: string, checkpoint: unknown, progress: CrawlProgress | null) => sql`
        UPDATE connector_connections SET checkpoint = ${JSON.stringify(checkpoint)}::jsonb, last_crawl_at = now(),
          crawl_progress = ${progress === null ? null : JSON.stringify(progress)}::jsonb
        WHERE id = ${id}`),
      /** A crawl ended; a clean one's checkpoint becomes the last successful cursor. */
      endCrawl: exec((id: string, succeeded: boolean) => sql`
        UPDATE connector_connections SET crawl_progress = NULL, crawl_finished_at = now(),
          successful_checkpoint = CASE WHEN ${succeeded} THEN checkpoint ELSE successful_checkpoint END,
          successful_at = CASE WHEN ${succeeded} THEN now() ELSE successful_at END
        WHERE id = ${id}`),
      /**
       * Connections whose scheduled crawl is due: crawling enabled with an interval, and the last crawl ended at
       * least that long ago (or none ever ran). The caller enqueues with the per-connection dedupe key.
       */
      dueForCrawl: rows("connectors.dueForCrawl", Id, () => sql`
        SELECT id FROM connector_connections
        WHERE crawl_enabled AND crawl_interval_seconds > 0 AND deleted_at IS NULL
          AND coalesce(crawl_finished_at, '-infinity'::timestamptz) <= now() - crawl_interval_seconds * interval '1 second'
        ORDER BY crawl_finished_at NULLS FIRST LIMIT 100`),
      /** Whether a permission sync of the connection is queued or running. */
      permissionsQueued: row("connectors.permissionsQueued", Queued, (id: string) => sql`
        SELECT EXISTS (SELECT 1 FROM jobs WHERE kind = ${SyncPermissions.kind} AND dedupe_key = ${permissionsDedupeKey(id)}
          AND status IN ('QUEUED', 'RUNNING')) AS queued`),
      /** A permission-sync page is applied: its checkpoint is stored (null when the sync went to the end). */
      setPermissionCheckpoint: exec((id: string, checkpoint: unknown) => sql`
        UPDATE connector_connections SET permission_checkpoint = ${checkpoint === null ? null : JSON.stringify(checkpoint)}::jsonb,
          permissions_synced_at = now() WHERE id = ${id}`),
      /** A permission sync ended; a clean one makes the connection's permissions current (permissionMaxAgeSeconds counts from it). */
      endPermissions: exec((id: string, succeeded: boolean) => sql`
        UPDATE connector_connections SET permissions_finished_at = now(),
          permissions_succeeded_at = CASE WHEN ${succeeded} THEN now() ELSE permissions_succeeded_at END
        WHERE id = ${id}`),
      /** Connections whose permission sync is due: crawling enabled, an interval, and that long since the last one ended. */
      dueForPermissions: rows("connectors.dueForPermissions", SystemRef, (sourceSystems: ReadonlyArray<string>) => sql`
        SELECT id, source_system FROM connector_connections
        WHERE crawl_enabled AND permission_interval_seconds > 0 AND deleted_at IS NULL
          AND source_system = ANY(${sourceSystems as Array<string>}::text[])
          AND coalesce(permissions_finished_at, '-infinity'::timestamptz) <= now() - permission_interval_seconds * interval '1 second'
        ORDER BY permissions_finished_at NULLS FIRST LIMIT 100`),
      activeSpace: row("connectors.activeSpace", Id, (organizationId: string, knowledgeSpaceId: string) =>
        sql`SELECT id FROM knowledge_spaces WHERE id = ${knowledgeSpaceId} AND organization_id = ${organizationId} AND active`),

      /** Records a principal seen in an ACL or a group (upsert by native id); answers its id. */
      observePrincipal: row("connectors.observePrincipal", Id, (connectionId: string, p: ObservedPrincipal) => sql`
        INSERT INTO source_principals (connection_id, kind, native_principal_id, observed_email, observed_display_name)
        VALUES (${connectionId}, ${p.kind}, ${p.nativePrincipalId}, ${p.email ?? null}, ${p.displayName ?? null})
        ON CONFLICT (connection_id, kind, native_principal_id) DO UPDATE SET
          observed_email = coalesce(EXCLUDED.observed_email, source_principals.observed_email),
          observed_display_name = coalesce(EXCLUDED.observed_display_name, source_principals.observed_display_name),
          last_seen_at = now()
        RETURNING id`),
      /**
       * IDP_JOIN: every unmapped SOURCE_USER of the connection whose observed email is an active Lore user's of
       * the organization maps to that user. Answers how many mappings it made.
       */
      joinByEmail: rows("connectors.joinByEmail", Id, (connectionId: string) => sql`
        INSERT INTO source_principal_mappings (principal_id, app_user_id, method, status, evidence)
        SELECT p.id, u.id, 'IDP_JOIN', 'ACTIVE', 'observed email ' || p.observed_email || ' is the Lore user''s email on a TRUSTED connection'
        FROM source_principals p
        JOIN connector_connections c ON c.id = p.connection_id
        JOIN users u ON u.organization_id = c.organization_id AND lower(u.email) = lower(p.observed_email) AND u.active
        WHERE p.connection_id = ${connectionId} AND p.kind = 'SOURCE_USER' AND c.identity_trust = 'TRUSTED'
          AND NOT EXISTS (
            SELECT 1 FROM source_principal_mappings m
            WHERE m.principal_id = p.id AND NOT (m.method = 'IDP_JOIN' AND m.status = 'REVOKED')
          )
        ON CONFLICT (principal_id) DO UPDATE SET app_user_id = EXCLUDED.app_user_id, status = 'ACTIVE', evidence = EXCLUDED.evidence, verified_at = now()
          WHERE source_principal_mappings.method = 'IDP_JOIN' AND source_principal_mappings.status = 'REVOKED'
        RETURNING id`),
      /**
       * An IDP_JOIN mapping holds only while its evidence does: when the source now reports another email for the
       * principal (or none), or the Lore user's email no longer matches, the mapping is REVOKED (kept, for the
       * record, but granting nothing). A MANUAL mapping is an administrator's decision and is left alone.
       */
      revokeStaleJoins: rows("connectors.revokeStaleJoins", Id, (connectionId: string, principalIds: ReadonlyArray<string>) => sql`
        UPDATE source_principal_mappings m
        SET status = 'REVOKED', verified_at = now(),
          evidence = 'revoked: the observed email ' || coalesce(p.observed_email, '(none)') || ' no longer matches the Lore user''s email'
        FROM source_principals p, users u
        WHERE m.principal_id = p.id AND u.id = m.app_user_id AND p.connection_id = ${connectionId}
          AND p.id = ANY(${principalIds as Array<string>}::uuid[]) AND m.method = 'IDP_JOIN' AND m.status = 'ACTIVE'
          AND (p.observed_email IS NULL OR lower(p.observed_email) <> lower(u.email))
        RETURNING m.id`),
      principals: rows("connectors.principals", PrincipalRow, (organizationId: string) =>
        sql`${selectPrincipal} WHERE c.organization_id = ${organizationId} ORDER BY c.source_system, c.connection_key, p.kind DESC, p.native_principal_id`),
      principal: row("connectors.principal", PrincipalRow, (organizationId: string, principalId: string) =>
        sql`${selectPrincipal} WHERE c.organization_id = ${organizationId} AND p.id = ${principalId}`),
      activeUser: row("connectors.activeUser", UserRef, (organizationId: string, userId: string) =>
        sql`SELECT id FROM users WHERE id = ${userId} AND organization_id = ${organizationId} AND active`),
      putMapping: exec((principalId: string, appUserId: string, actorId: string) => sql`
        INSERT INTO source_principal_mappings (principal_id, app_user_id, method, status, evidence, decided_by)
        VALUES (${principalId}, ${appUserId}, 'MANUAL', 'ACTIVE', 'mapped by an administrator', ${actorId})
        ON CONFLICT (principal_id) DO UPDATE SET app_user_id = EXCLUDED.app_user_id, method = 'MANUAL', status = 'ACTIVE',
          evidence = EXCLUDED.evidence, decided_by = EXCLUDED.decided_by, verified_at = now()`),
      deleteMapping: exec((principalId: string) => sql`DELETE FROM source_principal_mappings WHERE principal_id = ${principalId}`),

      /** Replaces a group's membership and seals a new snapshot (a new snapshot id, the generation + 1). */
      replaceMembers: (groupId: string, memberIds: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          yield* sql`DELETE FROM source_group_members WHERE group_principal_id = ${groupId}`
          for (const memberId of new Set(memberIds)) {
            yield* sql`INSERT INTO source_group_members (group_principal_id, member_principal_id) VALUES (${groupId}, ${memberId}) ON CONFLICT DO NOTHING`
          }
          yield* sql`
            INSERT INTO source_group_snapshots (group_principal_id) VALUES (${groupId})
            ON CONFLICT (group_principal_id) DO UPDATE SET snapshot_id = gen_random_uuid(),
              membership_generation = source_group_snapshots.membership_generation + 1, sealed_at = now()`
        }),
      groups: rows("connectors.groups", GroupRow, (organizationId: string, groupId: string | null) => sql`
        SELECT p.id AS principal_id, c.source_system, c.connection_key, p.native_principal_id, p.observed_display_name,
          s.snapshot_id, s.membership_generation, s.sealed_at
        FROM source_group_snapshots s
        JOIN source_principals p ON p.id = s.group_principal_id
        JOIN connector_connections c ON c.id = p.connection_id
        WHERE c.organization_id = ${organizationId} AND (${groupId}::uuid IS NULL OR p.id = ${groupId}::uuid)
        ORDER BY c.source_system, c.connection_key, p.native_principal_id`),
      members: rows("connectors.members", MemberRow, (organizationId: string) => sql`
        SELECT gm.group_principal_id, p.id AS principal_id, p.kind, p.native_principal_id, p.observed_display_name, p.observed_email,
          CASE WHEN m.status = 'ACTIVE' THEN m.app_user_id END AS app_user_id, CASE WHEN m.status = 'ACTIVE' THEN u.name END AS app_user_name
        FROM source_group_members gm
        JOIN source_principals p ON p.id = gm.member_principal_id
        JOIN connector_connections c ON c.id = p.connection_id
        LEFT JOIN source_principal_mappings m ON m.principal_id = p.id
        LEFT JOIN users u ON u.id = m.app_user_id
        WHERE c.organization_id = ${organizationId}
        ORDER BY p.kind DESC, p.native_principal_id`),
      sourceConnections: rows("connectors.sourceConnections", SourceConnectionRow, (organizationId: string) => sql`
        SELECT c.source_system, c.connection_key, c.identity_trust, c.trust_decided_by, c.trust_decided_at,
          count(p.id) FILTER (WHERE p.kind = 'SOURCE_USER')::int AS user_count,
          count(p.id) FILTER (WHERE p.kind = 'SOURCE_USER' AND m.status = 'ACTIVE')::int AS mapped_user_count,
          count(p.id) FILTER (WHERE p.kind = 'SOURCE_GROUP')::int AS group_count,
          max(p.last_seen_at) AS last_seen_at
        FROM connector_connections c
        LEFT JOIN source_principals p ON p.connection_id = c.id
        LEFT JOIN source_principal_mappings m ON m.principal_id = p.id
        WHERE c.organization_id = ${organizationId}
        GROUP BY c.id ORDER BY c.source_system, c.connection_key`),

      document: row("connectors.document", DocumentRow, (connectionId: string, externalId: string) => sql`
        SELECT external_id, knowledge_asset_id, acl_keys, acl_all, coalesce((acl->>'unresolved')::boolean, false) AS unresolved, retired_at
        FROM connector_documents WHERE connection_id = ${connectionId} AND external_id = ${externalId}`),
      /** A page of live documents in external-id order, after `after` (keyset). */
      documentPage: rows("connectors.documentPage", DocumentRef, (connectionId: string, after: string | null, limit: number) => sql`
        SELECT external_id, knowledge_asset_id, url, updated_at FROM connector_documents
        WHERE connection_id = ${connectionId} AND retired_at IS NULL AND (${after}::text IS NULL OR external_id COLLATE "C" > ${after}::text COLLATE "C")
        ORDER BY external_id COLLATE "C" LIMIT ${limit}`),
      liveDocuments: rows("connectors.liveDocuments", DocumentRow, (connectionId: string) => sql`
        SELECT external_id, knowledge_asset_id, acl_keys, acl_all, coalesce((acl->>'unresolved')::boolean, false) AS unresolved, retired_at
        FROM connector_documents WHERE connection_id = ${connectionId} AND retired_at IS NULL`),
      /** External ids of live documents after `after`, in order (a permission sync walks them page by page). */
      liveExternalIds: (connectionId: string, after: string | null, limit: number, notUpdatedSince: string | null) =>
        Effect.map(
          sql<{ externalId: string }>`SELECT external_id FROM connector_documents
            WHERE connection_id = ${connectionId} AND retired_at IS NULL AND (${after}::text IS NULL OR external_id COLLATE "C" > ${after}::text COLLATE "C")
              AND (${notUpdatedSince}::timestamptz IS NULL OR updated_at < ${notUpdatedSince}::timestamptz)
            ORDER BY external_id COLLATE "C" LIMIT ${limit}`,
          (found) => found.map((r) => r.externalId)
        ).pipe(Effect.orDie),
      /** A key set's members (content-addressed: a set that exists is complete, so it is written once). */
      putAclSet: (connectionId: string, setKey: string, members: ReadonlyArray<string>) =>
        sql`INSERT INTO source_acl_set_members (set_key, connection_id, member_key)
          SELECT ${setKey}, ${connectionId}, m FROM unnest(${members as Array<string>}::text[]) AS m
          ON CONFLICT DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
      /** A document's ACL alone changed (a permission sync). */
      setDocumentAcl: exec((connectionId: string, externalId: string, acl: unknown, aclKeys: ReadonlyArray<string> | null, aclAll: ReadonlyArray<string> | null) => sql`
        UPDATE connector_documents SET acl = ${JSON.stringify(acl)}::jsonb, acl_keys = ${aclKeys as Array<string> | null}::text[],
          acl_all = ${aclAll as Array<string> | null}::text[], updated_at = now()
        WHERE connection_id = ${connectionId} AND external_id = ${externalId}`),
      /** A group's current members (ids, sorted) and whether a snapshot was ever sealed. */
      groupState: (groupId: string) =>
        Effect.map(
          sql<{ memberIds: Array<string> | null; sealed: boolean }>`SELECT
            (SELECT array_agg(member_principal_id::text ORDER BY member_principal_id::text) FROM source_group_members WHERE group_principal_id = ${groupId}) AS member_ids,
            EXISTS (SELECT 1 FROM source_group_snapshots WHERE group_principal_id = ${groupId}) AS sealed`,
          (found) => ({ memberIds: found[0]?.memberIds ?? [], sealed: found[0]?.sealed ?? false })
        ).pipe(Effect.orDie),
      putDocument: exec((connectionId: string, externalId: string, knowledgeAssetId: string, url: string | null, acl: unknown, aclKeys: ReadonlyArray<string> | null, aclAll: ReadonlyArray<string> | null = null) => sql`
        INSERT INTO connector_documents (connection_id, external_id, knowledge_asset_id, url, acl, acl_keys, acl_all)
        VALUES (${connectionId}, ${externalId}, ${knowledgeAssetId}, ${url}, ${JSON.stringify(acl)}::jsonb, ${aclKeys as Array<string> | null}::text[],
          ${aclAll as Array<string> | null}::text[])
        ON CONFLICT (connection_id, external_id) DO UPDATE SET knowledge_asset_id = EXCLUDED.knowledge_asset_id, url = EXCLUDED.url,
          acl = EXCLUDED.acl, acl_keys = EXCLUDED.acl_keys, acl_all = EXCLUDED.acl_all, updated_at = now(), retired_at = NULL`),
      retireDocument: exec((connectionId: string, externalId: string) => sql`
        UPDATE connector_documents SET retired_at = now(), updated_at = now() WHERE connection_id = ${connectionId} AND external_id = ${externalId}`),
      /** Serializes writes of one external document until the transaction ends (concurrent first pushes make one asset). */
      lockDocument: exec((connectionId: string, externalId: string) =>
        sql`SELECT pg_advisory_xact_lock(hashtextextended(${connectionId}::text || '/' || ${externalId}, 0))`),
      recordAttempt: exec((connectionId: string, a: Attempt) => sql`
        INSERT INTO connector_attempts (connection_id, outcome, objects_materialized, objects_rotated, objects_rematerialized,
          objects_retired, objects_failed, objects_skipped, component, error_code, error_message)
        VALUES (${connectionId}, ${a.outcome}, ${a.materialized ?? 0}, ${a.rotated ?? 0}, ${a.rematerialized ?? 0}, ${a.retired ?? 0},
          ${a.failed ?? 0}, ${a.skipped ?? 0}, ${a.component ?? "content"}, ${a.errorCode ?? null}, ${a.errorMessage ?? null})`),
      attempts: rows("connectors.attempts", AttemptRow, (connectionId: string) => sql`
        SELECT outcome, objects_materialized, objects_rotated, objects_rematerialized, objects_retired, objects_failed,
          objects_skipped, component, error_code, error_message, attempted_at
        FROM connector_attempts WHERE connection_id = ${connectionId} ORDER BY attempted_at DESC LIMIT 20`),
      objectCounts: row("connectors.objectCounts", ObjectCounts, (connectionId: string) => sql`
        SELECT count(*)::int AS total, count(*) FILTER (WHERE retired_at IS NULL)::int AS active, max(updated_at) AS last_object_at
        FROM connector_documents WHERE connection_id = ${connectionId}`)
    }
  })
}) {}
