import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { AuthorizationGeneration } from "../access/Generation"
import { Settings } from "../Config"
import { transactional } from "../db/Sql"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import { type FieldError, InvalidCursor } from "../domain/Errors"
import type { Principal } from "../domain/Principal"
import { withNullPrototypes } from "../domain/SafeKeys"
import { JobQueue } from "../jobs/JobQueue"
import { Audit } from "../platform/Audit"
import { SecretBox } from "../platform/SecretBox"
import { ConnectorDocuments } from "./Documents"
import {
  ConnectionNotFound, ConnectorKindNotFound, CrawlRunning, InvalidConnectorConfig, InvalidConnectorCredential, ReservedConnectionKey
} from "./Errors"
import { CrawlConnection, crawlDedupeKey, permissionsDedupeKey, SyncPermissions } from "./Jobs"
import type { ConnectorKindModule } from "./Kind"
import { connectorKinds, kindOf } from "./Kinds"
import { type ConnectionRow, ConnectorsRepo } from "./Repo"
import { quoteInput } from "../domain/Echo"

const RESERVED_KEYS = new Set(["sources", "test"])
const MAX_CONFIG_ERRORS = 50

/** A sourceConfig as the kinds see it: a copy whose objects have null prototypes at every depth (domain/SafeKeys.ts). */
const safeConfig = (config: Readonly<Record<string, unknown>>) => withNullPrototypes(config) as Readonly<Record<string, unknown>>
const CONNECTION_KEY = /^[a-z0-9][a-z0-9._-]{0,99}$/

export interface ConfigInput {
  readonly knowledgeSpaceId: string
  readonly sourceConfig: Readonly<Record<string, unknown>>
  readonly contentCrawlIntervalSeconds?: number | undefined
  readonly crawlEnabled?: boolean | undefined
  readonly identityTrust?: "TRUSTED" | "UNTRUSTED" | undefined
  readonly permissionSyncIntervalSeconds?: number | undefined
  readonly permissionMaxAgeSeconds?: number | null | undefined
}

/** The permission sync's default interval (issue 30): five minutes; 0 turns it off, otherwise at least a minute. */
export const DEFAULT_PERMISSION_INTERVAL_SECONDS = 300
export const MIN_PERMISSION_INTERVAL_SECONDS = 60

/** The verifier a bearer credential is looked up by: keyed with the server's secret, so a database dump reveals nothing. */
export const credentialVerifier = (box: SecretBox, secret: string) => box.sign("connector-credential", secret)

export const describeConfig = (row: ConnectionRow) => ({
  sourceSystem: row.sourceSystem,
  sourceConnectionKey: row.connectionKey,
  identityTrust: row.identityTrust,
  crawlEnabled: row.crawlEnabled,
  knowledgeSpaceId: row.knowledgeSpaceId,
  actorUserId: row.actorUserId,
  sourceConfig: row.sourceConfig,
  contentCrawlIntervalSeconds: row.crawlIntervalSeconds,
  permissionSyncIntervalSeconds: row.permissionIntervalSeconds,
  permissionMaxAgeSeconds: row.permissionMaxAgeSeconds,
  credentialSet: row.credentialSet,
  credentialSetByUserId: row.credentialSetBy,
  credentialSetAt: row.credentialSetAt,
  configuredByUserId: row.configuredBy,
  configuredAt: row.configuredAt
})

/** Administering connections: configs validated by their kind, the write-only credential, tests, crawls, scopes, activity. */
export class ConnectorConnections extends Effect.Service<ConnectorConnections>()("lore/ConnectorConnections", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* ConnectorsRepo
    const documents = yield* ConnectorDocuments
    const audit = yield* Audit
    const box = yield* SecretBox
    const queue = yield* JobQueue
    const generation = yield* AuthorizationGeneration
    const settings = yield* Settings

    const requireKind = (sourceSystem: string) => {
      const kind = kindOf(sourceSystem)
      return kind ? Effect.succeed(kind) : Effect.fail(new ConnectorKindNotFound({ detail: `No connector kind ${quoteInput(sourceSystem, 60)}; kinds: ${connectorKinds.map((k) => k.sourceSystem).join(", ")}` }))
    }

    const requireConnection = (actor: Principal, sourceSystem: string, connectionKey: string) =>
      Effect.gen(function* () {
        const kind = yield* requireKind(sourceSystem)
        const row = yield* repo.connection(actor.organizationId, sourceSystem, connectionKey)
        if (!row) return yield* new ConnectionNotFound({ detail: `No ${quoteInput(sourceSystem, 60)} connection ${quoteInput(connectionKey, 100)}` })
        return { kind, row }
      })

    /** A kind's field errors as a 422: at most 50 of them, the detail naming the first 10. */
    const configFailure = (kind: ConnectorKindModule, all: ReadonlyArray<FieldError>) => {
      const errors = all.slice(0, MAX_CONFIG_ERRORS)
      const named = errors.slice(0, 10).map((e) => `${e.path} ${e.message}`).join("; ")
      return Effect.fail(new InvalidConnectorConfig({ detail: `The ${kind.sourceSystem} configuration is invalid: ${named}${errors.length > 10 ? "; …" : ""}`, errors }))
    }
    const configErrors = (kind: ConnectorKindModule, sourceConfig: Readonly<Record<string, unknown>>) => {
      const errors = kind.validateConfig(sourceConfig, settings)
      return errors.length === 0 ? Effect.void : configFailure(kind, errors)
    }

    /** The config as stored: what it names looked up at the source with the credential, for kinds that do (Slack channel names). */
    const resolvedConfig = (kind: ConnectorKindModule, sourceConfig: Readonly<Record<string, unknown>>, credential: string | null) =>
      Effect.gen(function* () {
        if (!kind.resolveConfig || credential === null) return sourceConfig
        const resolved = yield* kind.resolveConfig({ sourceConfig, credential, settings })
        if ("errors" in resolved) return yield* configFailure(kind, resolved.errors)
        return safeConfig(resolved.sourceConfig)
      })

    const validate = (actor: Principal, kind: ConnectorKindModule, input: ConfigInput) =>
      Effect.gen(function* () {
        yield* configErrors(kind, input.sourceConfig)
        const interval = input.permissionSyncIntervalSeconds
        if (interval !== undefined && interval !== 0 && interval < MIN_PERMISSION_INTERVAL_SECONDS) {
          const message = `must be 0 (off) or at least ${MIN_PERMISSION_INTERVAL_SECONDS}`
          return yield* new InvalidConnectorConfig({ detail: `permissionSyncIntervalSeconds ${message}`, errors: [{ path: "permissionSyncIntervalSeconds", message }] })
        }
        if (!(yield* repo.activeSpace(actor.organizationId, input.knowledgeSpaceId))) {
          return yield* new KnowledgeSpaceNotFound({ detail: "No active knowledge space with this id in your organization" })
        }
      })

    const readCredential = (kind: ConnectorKindModule, credential: unknown) => {
      const read = kind.readCredential(credential)
      return read.ok ? Effect.succeed(read.secret) : Effect.fail(new InvalidConnectorCredential({ detail: read.message, errors: [{ path: "credential", message: read.message }] }))
    }

    const decrypted = (row: ConnectionRow) =>
      Effect.map(repo.sealedCredential(row.id), (found) => {
        if (!found?.credentialSealed) return null
        try {
          return box.decrypt(found.credentialSealed)
        } catch {
          return null
        }
      })

    const list = (actor: Principal, sourceSystem: string) =>
      Effect.flatMap(requireKind(sourceSystem), () => Effect.map(repo.connections(actor.organizationId, sourceSystem), (rows) => rows.map(describeConfig)))

    const put = (actor: Principal, sourceSystem: string, connectionKey: string, input: ConfigInput) =>
      Effect.gen(function* () {
        const kind = yield* requireKind(sourceSystem)
        if (RESERVED_KEYS.has(connectionKey)) return yield* new ReservedConnectionKey({ detail: `The connection key ${connectionKey} is reserved` })
        if (!CONNECTION_KEY.test(connectionKey)) {
          return yield* new InvalidConnectorConfig({
            detail: "The connection key must be 1 to 100 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit",
            errors: [{ path: "connectionKey", message: "must match ^[a-z0-9][a-z0-9._-]{0,99}$" }]
          })
        }
        input = { ...input, sourceConfig: safeConfig(input.sourceConfig) }
        yield* validate(actor, kind, input)
        const before = yield* repo.connection(actor.organizationId, sourceSystem, connectionKey)
        if (kind.resolveConfig && before?.credentialSet) input = { ...input, sourceConfig: yield* resolvedConfig(kind, input.sourceConfig, yield* decrypted(before)) }
        const trust = input.identityTrust ?? before?.identityTrust ?? "UNTRUSTED"
        const row = yield* transaction(
          Effect.gen(function* () {
            const saved = yield* repo.upsertConnection(actor.organizationId, sourceSystem, connectionKey, {
              knowledgeSpaceId: input.knowledgeSpaceId,
              sourceConfig: input.sourceConfig,
              crawlIntervalSeconds: input.contentCrawlIntervalSeconds ?? 0,
              crawlEnabled: input.crawlEnabled ?? false,
              identityTrust: trust,
              permissionIntervalSeconds: input.permissionSyncIntervalSeconds ?? before?.permissionIntervalSeconds ?? DEFAULT_PERMISSION_INTERVAL_SECONDS,
              permissionMaxAgeSeconds: input.permissionMaxAgeSeconds === undefined ? before?.permissionMaxAgeSeconds ?? null : input.permissionMaxAgeSeconds
            }, actor.userId)
            if (before?.identityTrust !== trust) {
              if (trust === "TRUSTED") yield* repo.joinByEmail(saved!.id)
              yield* generation.bump(actor.organizationId)
            }
            yield* audit.record(actor, {
              action: before ? "connector.update" : "connector.create",
              resourceType: "connector",
              resourceId: saved!.id,
              details: { sourceSystem, connectionKey, knowledgeSpaceId: input.knowledgeSpaceId, identityTrust: trust }
            })
            return (yield* repo.connectionById(saved!.id))!
          })
        )
        return describeConfig(row)
      })

    /** Deleting a connection retires its documents, then removes it with its principals and mappings. */
    const remove = (actor: Principal, sourceSystem: string, connectionKey: string) =>
      Effect.gen(function* () {
        const { row } = yield* requireConnection(actor, sourceSystem, connectionKey)
        const retired = yield* documents.retireAll(row)
        yield* transaction(
          Effect.gen(function* () {
            yield* repo.deleteConnection(row.id)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "connector.delete", resourceType: "connector", resourceId: row.id, details: { sourceSystem, connectionKey, retired } })
          })
        )
      })

    const setCredential = (actor: Principal, sourceSystem: string, connectionKey: string, credential: unknown) =>
      Effect.gen(function* () {
        const { kind, row } = yield* requireConnection(actor, sourceSystem, connectionKey)
        const secret = yield* readCredential(kind, credential)
        // A config saved before its credential may name things only the source can look up: they are looked up now.
        const sourceConfig = yield* resolvedConfig(kind, safeConfig(row.sourceConfig), secret)
        yield* transaction(
          Effect.gen(function* () {
            if (JSON.stringify(sourceConfig) !== JSON.stringify(row.sourceConfig)) yield* repo.setSourceConfig(row.id, sourceConfig)
            yield* repo.setCredential(row.id, box.encrypt(secret), credentialVerifier(box, secret), actor.userId)
          })
        )
        yield* audit.record(actor, { action: "connector.credential.set", resourceType: "connector", resourceId: row.id, details: { sourceSystem, connectionKey } })
      })

    const clearCredential = (actor: Principal, sourceSystem: string, connectionKey: string) =>
      Effect.gen(function* () {
        const { row } = yield* requireConnection(actor, sourceSystem, connectionKey)
        yield* repo.setCredential(row.id, null, null, null)
        yield* audit.record(actor, { action: "connector.credential.delete", resourceType: "connector", resourceId: row.id, details: { sourceSystem, connectionKey } })
      })

    const test = (actor: Principal, sourceSystem: string, connectionKey: string) =>
      Effect.gen(function* () {
        const { kind, row } = yield* requireConnection(actor, sourceSystem, connectionKey)
        const result = yield* kind.testCredentials({ sourceConfig: safeConfig(row.sourceConfig), credential: yield* decrypted(row), settings })
        return { connectionKey, ...result }
      })

    /** A test of an unsaved body: config errors are 422; a malformed credential is a failed test (never echoed). */
    const testUnsaved = (actor: Principal, sourceSystem: string, input: ConfigInput & { readonly credential?: unknown }) =>
      Effect.gen(function* () {
        const kind = yield* requireKind(sourceSystem)
        const sourceConfig = safeConfig(input.sourceConfig)
        yield* configErrors(kind, sourceConfig)
        const read = input.credential === undefined ? null : kind.readCredential(input.credential)
        if (read && !read.ok) return { connectionKey: null, authenticated: false, accountName: null, identityName: null, canReadContent: false, errorCode: "CREDENTIAL_INVALID" }
        const result = yield* kind.testCredentials({ sourceConfig, credential: read?.ok ? read.secret : null, settings })
        return { connectionKey: null, ...result }
      })

    /** A content crawl and, for a kind that has one, a permission sync, at once (each unless one is already queued or running). */
    const crawl = (actor: Principal, sourceSystem: string, connectionKey: string, component?: "content" | "permissions") =>
      Effect.gen(function* () {
        const { kind, row } = yield* requireConnection(actor, sourceSystem, connectionKey)
        const enqueued = component === "permissions"
          ? undefined
          : yield* queue.enqueueJob(CrawlConnection, { connectionId: row.id }, { dedupeKey: crawlDedupeKey(row.id), maxAttempts: 5 })
        const permissions = kind.syncPermissions && component !== "content"
          ? yield* queue.enqueueJob(SyncPermissions, { connectionId: row.id }, { dedupeKey: permissionsDedupeKey(row.id), maxAttempts: 5 })
          : undefined
        if ((enqueued === undefined || enqueued.deduplicated) && (permissions === undefined || permissions.deduplicated)) {
          return yield* new CrawlRunning({ detail: `A crawl of ${quoteInput(sourceSystem, 60)}/${quoteInput(connectionKey, 100)} is already queued or running` })
        }
        yield* audit.record(actor, {
          action: "connector.crawl",
          resourceType: "connector",
          resourceId: row.id,
          details: { sourceSystem, connectionKey, jobId: enqueued?.job.id ?? null, permissionsJobId: permissions?.job.id ?? null }
        })
      })

    /** A kind that received a rotated credential (an OAuth refresh token) stores it sealed like the first. */
    const resealCredential = (row: ConnectionRow, secret: string) =>
      repo.setCredential(row.id, box.encrypt(secret), credentialVerifier(box, secret), row.credentialSetBy)

    /** The connection's live documents by external id (a cursor is the last id, base64url), for administrators. */
    const documentsOf = (actor: Principal, sourceSystem: string, connectionKey: string, query: { readonly cursor?: string | undefined; readonly limit: number }) =>
      Effect.gen(function* () {
        const { row } = yield* requireConnection(actor, sourceSystem, connectionKey)
        const after = query.cursor === undefined ? null : Buffer.from(query.cursor, "base64url").toString("utf8")
        if (after !== null && (after.length === 0 || Buffer.from(after, "utf8").toString("base64url") !== query.cursor)) {
          return yield* new InvalidCursor({ detail: "The cursor is not one this list issued; start again without it" })
        }
        const found = yield* repo.documentPage(row.id, after, query.limit + 1)
        const items = found.slice(0, query.limit)
        return { items, nextCursor: found.length > query.limit ? Buffer.from(items[items.length - 1]!.externalId, "utf8").toString("base64url") : null }
      })

    const scopes = (actor: Principal, sourceSystem: string, connectionKey: string) =>
      Effect.gen(function* () {
        const { kind, row } = yield* requireConnection(actor, sourceSystem, connectionKey)
        return yield* kind.listScopes({ sourceConfig: safeConfig(row.sourceConfig), credential: yield* decrypted(row), settings })
      })

    const activity = (actor: Principal, sourceSystem: string, connectionKey: string) =>
      Effect.gen(function* () {
        const { kind, row } = yield* requireConnection(actor, sourceSystem, connectionKey)
        const [counts, attempts, queued, permissionsQueued] = yield* Effect.all([
          repo.objectCounts(row.id), repo.attempts(row.id), repo.crawlQueued(row.id), repo.permissionsQueued(row.id)
        ])
        // A kind may summarize its checkpoint (a WEB frontier is large): the cursor shown is that summary.
        const cursor = (value: unknown) => (value === null ? null : JSON.stringify(kind.describeCheckpoint?.(value).cursor ?? value))
        const progress = row.crawlProgress
        // IN_PROGRESS while a crawl is queued or running; INCOMPLETE when the last one stopped part-way (it failed, the
        // source was unreachable, or the process died) and the next resumes from the checkpoint; COMPLETE when it went to the end.
        const lastAttempt = attempts.find((attempt) => attempt.component === "content")
        const stopped = progress !== null || lastAttempt?.outcome === "FAILED"
        const captureStatus = queued?.queued ? "IN_PROGRESS" : stopped ? "INCOMPLETE" : row.checkpoint === null ? "NOT_STARTED" : "COMPLETE"
        return {
          sourceSystem,
          sourceConnectionKey: connectionKey,
          objectsTotal: counts?.total ?? 0,
          objectsActive: counts?.active ?? 0,
          objectsArchived: (counts?.total ?? 0) - (counts?.active ?? 0),
          lastObjectAt: counts?.lastObjectAt ?? null,
          lastCrawlAt: row.lastCrawlAt,
          componentCheckpoints: [{
            component: "content" as const,
            observedCursor: cursor(row.checkpoint),
            captureStatus,
            incompleteReason: captureStatus !== "INCOMPLETE"
              ? null
              : lastAttempt?.outcome === "FAILED"
                ? `the crawl failed (${lastAttempt.errorCode ?? "CRAWL_FAILED"}); the next crawl resumes from the checkpoint`
                : "the crawl stopped part-way; the next crawl resumes from the checkpoint",
            observedAt: row.lastCrawlAt,
            lastSuccessfulCursor: cursor(row.successfulCheckpoint),
            lastSuccessfulAt: row.successfulAt,
            progress: progress === null
              ? null
              : { startedAt: new Date(progress.startedAt), objectsProcessed: progress.processed, objectsRemaining: progress.remaining }
          }, ...(kind.syncPermissions ? [permissionsComponent(row, attempts, permissionsQueued?.queued ?? false)] : [])],
          recentAttempts: attempts
        }
      })

    /**
     * The permission sync's checkpoint for activity: IN_PROGRESS while one is queued or running, INCOMPLETE when the last
     * stopped part-way or failed, EXPIRED when permissionMaxAgeSeconds passed without a successful one (the connection's
     * documents then admit nobody), COMPLETE otherwise.
     */
    const permissionsComponent = (row: ConnectionRow, attempts: ReadonlyArray<{ readonly component: string; readonly outcome: string; readonly errorCode: string | null }>, queued: boolean) => {
      const last = attempts.find((attempt) => attempt.component === "permissions")
      const expired = row.permissionMaxAgeSeconds !== null
        && (row.permissionsSucceededAt === null || row.permissionsSucceededAt.getTime() < Date.now() - row.permissionMaxAgeSeconds * 1000)
      const stopped = row.permissionCheckpoint !== null || last?.outcome === "FAILED"
      const captureStatus = queued ? "IN_PROGRESS" : expired ? "EXPIRED" : stopped ? "INCOMPLETE" : row.permissionsFinishedAt === null ? "NOT_STARTED" : "COMPLETE"
      return {
        component: "permissions" as const,
        observedCursor: row.permissionCheckpoint === null ? null : JSON.stringify(row.permissionCheckpoint),
        captureStatus,
        incompleteReason: captureStatus === "EXPIRED"
          ? `no permission sync succeeded within permissionMaxAgeSeconds (${row.permissionMaxAgeSeconds}); the connection's documents admit nobody until one does`
          : captureStatus !== "INCOMPLETE"
            ? null
            : last?.outcome === "FAILED"
              ? `the permission sync failed (${last.errorCode ?? "CRAWL_FAILED"}); the next resumes from the checkpoint`
              : "the permission sync stopped part-way; the next resumes from the checkpoint",
        observedAt: row.permissionsSyncedAt,
        lastSuccessfulCursor: null,
        lastSuccessfulAt: row.permissionsSucceededAt,
        progress: null
      }
    }

    /** The decrypted credential of a connection, for crawls. */
    const credentialOf = decrypted

    return { kinds: connectorKinds.map((k) => ({ sourceSystem: k.sourceSystem, displayName: k.displayName, credentialRequirement: k.credentialRequirement ?? "OPTIONAL", credentialHint: k.credentialHint ?? null })), list, put, remove, setCredential, clearCredential, test, testUnsaved, crawl, documents: documentsOf, scopes, activity, credentialOf, resealCredential }
  }),
  dependencies: [ConnectorsRepo.Default, ConnectorDocuments.Default, AuthorizationGeneration.Default, Audit.Default, SecretBox.Default]
}) {}
