import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { FieldError, InvalidCursor } from "../domain/Errors"
import { Classification } from "../domain/Model"
import { Body, IntegerParam, Timestamp } from "../domain/Schemas"
import { isPublic, requires } from "../domain/Security"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import {
  ConnectionNotFound, ConnectorKindNotFound, CrawlRunning, IndexingUnauthorized, InvalidConnectorConfig, InvalidConnectorCredential,
  InvalidPushedDocument, MappingUserNotFound, ReservedConnectionKey, SourcePrincipalNotFound
} from "./Errors"

export const IdentityTrust = Schema.Literal("TRUSTED", "UNTRUSTED").annotations({ identifier: "IdentityTrust" })
export type IdentityTrust = typeof IdentityTrust.Type
export const SourcePrincipalKind = Schema.Literal("SOURCE_USER", "SOURCE_GROUP", "SOURCE_ORGANIZATION").annotations({ identifier: "SourcePrincipalKind" })
export type SourcePrincipalKind = typeof SourcePrincipalKind.Type
export const MappingMethod = Schema.Literal("IDP_JOIN", "MANUAL").annotations({ identifier: "SourcePrincipalMappingMethod" })
export const MappingStatus = Schema.Literal("ACTIVE", "REVOKED").annotations({ identifier: "SourcePrincipalMappingStatus" })

/** What a crawl attempt or checkpoint is of: the content crawl or the permission sync. */
export const ConnectorComponent = Schema.Literal("content", "permissions").annotations({ identifier: "ConnectorComponent" })

export const ConnectorKind = Schema.Struct({
  sourceSystem: Schema.String,
  displayName: Schema.String,
  credentialRequirement: Schema.Literal("REQUIRED", "OPTIONAL", "NONE").annotations({
    identifier: "CredentialRequirement",
    description: "REQUIRED: a connection does not work without a credential; OPTIONAL: only some sources need one (a private repository); NONE: takes none"
  }),
  credentialHint: Schema.NullOr(Schema.String).annotations({ description: "What the credential is and how long it must be" })
}).annotations({ identifier: "ConnectorKind" })

export const ConnectorConfig = Schema.Struct({
  sourceSystem: Schema.String,
  sourceConnectionKey: Schema.String,
  identityTrust: IdentityTrust,
  crawlEnabled: Schema.Boolean,
  knowledgeSpaceId: Schema.UUID,
  actorUserId: Schema.NullOr(Schema.UUID).annotations({ description: "The Lore user whose authority crawls record in audit: the admin who saved the config" }),
  sourceConfig: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  contentCrawlIntervalSeconds: Schema.Int,
  permissionSyncIntervalSeconds: Schema.Int.annotations({ description: "Seconds between permission syncs (ACLs and groups, no content) while crawling is enabled; 0: none" }),
  permissionMaxAgeSeconds: Schema.NullOr(Schema.Int).annotations({ description: "Past this long without a successful permission sync, the connection's documents admit nobody; null: never" }),
  credentialSet: Schema.Boolean.annotations({ description: "Whether a credential is stored; it is write-only and never returned" }),
  credentialSetByUserId: Schema.NullOr(Schema.UUID),
  credentialSetAt: Schema.NullOr(Timestamp),
  configuredByUserId: Schema.NullOr(Schema.UUID),
  configuredAt: Timestamp
}).annotations({ identifier: "ConnectorConfig" })

export const ConnectionTest = Schema.Struct({
  authenticated: Schema.Boolean,
  connectionKey: Schema.NullOr(Schema.String),
  accountName: Schema.NullOr(Schema.String),
  identityName: Schema.NullOr(Schema.String),
  canReadContent: Schema.Boolean,
  errorCode: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ConnectionTest" })

export const ConnectorScope = Schema.Struct({
  key: Schema.String,
  displayName: Schema.String,
  reachable: Schema.Boolean,
  admissible: Schema.Boolean,
  instruction: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ConnectorScope" })

export const ConnectorActivity = Schema.Struct({
  sourceSystem: Schema.String,
  sourceConnectionKey: Schema.String,
  objectsTotal: Schema.Int,
  objectsActive: Schema.Int,
  objectsArchived: Schema.Int,
  lastObjectAt: Schema.NullOr(Timestamp),
  lastCrawlAt: Schema.NullOr(Timestamp),
  componentCheckpoints: Schema.Array(Schema.Struct({
    /** `content` or `permissions`. */
    component: ConnectorComponent,
    observedCursor: Schema.NullOr(Schema.String),
    captureStatus: Schema.String,
    incompleteReason: Schema.NullOr(Schema.String),
    observedAt: Schema.NullOr(Timestamp),
    lastSuccessfulCursor: Schema.NullOr(Schema.String),
    lastSuccessfulAt: Schema.NullOr(Timestamp),
    /** Added: the crawl in flight (captureStatus IN_PROGRESS), for progress bars; null when none runs. */
    progress: Schema.optional(Schema.NullOr(Schema.Struct({
      startedAt: Timestamp,
      /** Documents and deletions applied so far in this crawl. */
      objectsProcessed: Schema.Int,
      /** What the kind expects still to come, when it knows. */
      objectsRemaining: Schema.NullOr(Schema.Int)
    })))
  })),
  recentAttempts: Schema.Array(Schema.Struct({
    outcome: Schema.String,
    objectsMaterialized: Schema.Int,
    objectsRotated: Schema.Int,
    objectsRematerialized: Schema.Int,
    objectsRetired: Schema.Int,
    objectsFailed: Schema.Int,
    /** Added: objects left out on purpose (a file type Lore cannot parse), never failures. */
    objectsSkipped: Schema.Int,
    /** Added: `content` (a crawl) or `permissions` (a permission sync). */
    component: ConnectorComponent,
    errorCode: Schema.NullOr(Schema.String),
    errorMessage: Schema.NullOr(Schema.String),
    attemptedAt: Timestamp
  }))
}).annotations({ identifier: "ConnectorActivity" })

export const SourcePrincipal = Schema.Struct({
  id: Schema.UUID,
  sourceSystem: Schema.String,
  sourceConnectionKey: Schema.String,
  nativePrincipalId: Schema.String,
  kind: SourcePrincipalKind,
  observedEmail: Schema.NullOr(Schema.String),
  observedDisplayName: Schema.NullOr(Schema.String),
  ssoVerified: Schema.Boolean,
  lastSeenAt: Timestamp,
  mapping: Schema.NullOr(Schema.Struct({
    id: Schema.UUID,
    appUserId: Schema.UUID,
    appUserName: Schema.String,
    appUserEmail: Schema.String,
    method: MappingMethod,
    status: MappingStatus,
    evidence: Schema.String,
    verifiedAt: Timestamp
  }))
}).annotations({ identifier: "SourcePrincipal" })

export const SourceGroup = Schema.Struct({
  principalId: Schema.UUID,
  sourceSystem: Schema.String,
  sourceConnectionKey: Schema.String,
  nativePrincipalId: Schema.String,
  observedDisplayName: Schema.NullOr(Schema.String),
  membershipSnapshotId: Schema.UUID,
  membershipGeneration: Schema.Int,
  sealedAt: Timestamp,
  members: Schema.Array(Schema.Struct({
    principalId: Schema.UUID,
    kind: SourcePrincipalKind,
    nativePrincipalId: Schema.String,
    observedDisplayName: Schema.NullOr(Schema.String),
    observedEmail: Schema.NullOr(Schema.String),
    appUserId: Schema.NullOr(Schema.UUID),
    appUserName: Schema.NullOr(Schema.String)
  }))
}).annotations({ identifier: "SourceGroup" })

export const SourceConnection = Schema.Struct({
  sourceSystem: Schema.String,
  sourceConnectionKey: Schema.String,
  identityTrust: IdentityTrust,
  trustDecidedByUserId: Schema.NullOr(Schema.UUID),
  trustDecidedAt: Schema.NullOr(Timestamp),
  userCount: Schema.Int,
  mappedUserCount: Schema.Int,
  unmappedUserCount: Schema.Int,
  groupCount: Schema.Int,
  lastSeenAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "SourceConnection" })

const configFields = {
  knowledgeSpaceId: Schema.UUID,
  sourceConfig: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  contentCrawlIntervalSeconds: Schema.optional(Schema.Int.pipe(Schema.between(0, 30 * 24 * 3600))).annotations({ description: "0 (the default): no scheduled crawl" }),
  crawlEnabled: Schema.optional(Schema.Boolean),
  identityTrust: Schema.optional(IdentityTrust).annotations({ description: "UNTRUSTED (the default): no principal maps automatically and no mapping grants anything" }),
  permissionSyncIntervalSeconds: Schema.optional(Schema.Int.pipe(Schema.between(0, 30 * 24 * 3600))).annotations({
    description: "Seconds between permission syncs while crawlEnabled (default 300; 0: off; otherwise at least 60)"
  }),
  permissionMaxAgeSeconds: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.between(60, 365 * 24 * 3600)))).annotations({
    description: "Past this long without a successful permission sync the connection's documents fail closed (null, the default: never)"
  })
}
export const PutConnectorConfig = Body(configFields).annotations({ identifier: "PutConnectorConfig" })
/** Unknown, so that a decoding error can never echo it: the kind checks its shape and answers without the value. */
const Credential = Schema.Unknown.annotations({ description: "Write-only: a string or an object per kind; stored encrypted, never returned" })
export const SetConnectorCredential = Body({ credential: Credential }).annotations({ identifier: "SetConnectorCredential" })
export const TestUnsavedConnection = Body({ ...configFields, credential: Schema.optional(Credential) }).annotations({ identifier: "TestUnsavedConnection" })
export const SetSourcePrincipalMapping = Body({ appUserId: Schema.UUID }).annotations({ identifier: "SetSourcePrincipalMapping" })
export const SetIdentityTrust = Body({
  sourceSystem: Schema.String,
  sourceConnectionKey: Schema.String,
  identityTrust: IdentityTrust
}).annotations({ identifier: "SetIdentityTrust" })

const KindPath = Schema.Struct({ sourceSystem: Schema.String })
const ConnectionPath = Schema.Struct({ sourceSystem: Schema.String, connectionKey: Schema.String })
const PrincipalPath = Schema.Struct({ principalId: Schema.UUID })
/** Added: which component to start; both (a content crawl and, for kinds that have one, a permission sync) when absent. */
const CrawlQuery = Schema.Struct({ component: Schema.optional(ConnectorComponent) })

export const PushedDocumentRef = Schema.Struct({
  externalId: Schema.String,
  knowledgeAssetId: Schema.UUID,
  url: Schema.NullOr(Schema.String),
  updatedAt: Timestamp
}).annotations({ identifier: "PushedDocumentRef" })
export const PushedDocumentPage = Schema.Struct({
  items: Schema.Array(PushedDocumentRef),
  nextCursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "PushedDocumentPage", description: "Live documents of the connection by external id (retired ones left out), in external-id order" })
const PushedDocumentQuery = Schema.Struct({
  cursor: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
  limit: Schema.optionalWith(IntegerParam(1, 1000), { default: () => 500 })
})

/** Connector kinds and connections: configuration, the write-only credential, tests, crawls, scopes and activity. */
export class ConnectorsAdminApi extends HttpApiGroup.make("adminConnectors")
  // Registered before /{sourceSystem}, which would otherwise take "sources" as a kind.
  .add(HttpApiEndpoint.get("listConnectorKinds", "/admin/connectors/sources")
    .addSuccess(Schema.Array(ConnectorKind)).pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.get("listConnectorConfigs", "/admin/connectors/:sourceSystem")
    .setPath(KindPath)
    .addSuccess(Schema.Array(ConnectorConfig))
    .addError(ConnectorKindNotFound)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.post("testUnsavedConnection", "/admin/connectors/:sourceSystem/test")
    .setPath(KindPath)
    .setPayload(TestUnsavedConnection)
    .addSuccess(ConnectionTest)
    .addError(ConnectorKindNotFound)
    .addError(InvalidConnectorConfig)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.put("putConnectorConfig", "/admin/connectors/:sourceSystem/:connectionKey")
    .setPath(ConnectionPath)
    .setPayload(PutConnectorConfig)
    .addSuccess(ConnectorConfig)
    .addError(ConnectorKindNotFound)
    .addError(InvalidConnectorConfig)
    .addError(ReservedConnectionKey)
    .addError(KnowledgeSpaceNotFound)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.del("deleteConnectorConfig", "/admin/connectors/:sourceSystem/:connectionKey")
    .setPath(ConnectionPath)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(ConnectorKindNotFound)
    .addError(ConnectionNotFound)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.put("putConnectorCredential", "/admin/connectors/:sourceSystem/:connectionKey/credential")
    .setPath(ConnectionPath)
    .setPayload(SetConnectorCredential)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(ConnectorKindNotFound)
    .addError(ConnectionNotFound)
    .addError(InvalidConnectorCredential)
    .addError(InvalidConnectorConfig)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.del("deleteConnectorCredential", "/admin/connectors/:sourceSystem/:connectionKey/credential")
    .setPath(ConnectionPath)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(ConnectorKindNotFound)
    .addError(ConnectionNotFound)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.post("testConnection", "/admin/connectors/:sourceSystem/:connectionKey/test")
    .setPath(ConnectionPath)
    .addSuccess(ConnectionTest)
    .addError(ConnectorKindNotFound)
    .addError(ConnectionNotFound)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.post("crawlConnection", "/admin/connectors/:sourceSystem/:connectionKey/crawl")
    .setPath(ConnectionPath)
    .setUrlParams(CrawlQuery)
    .addSuccess(HttpApiSchema.Empty(202))
    .addError(ConnectorKindNotFound)
    .addError(ConnectionNotFound)
    .addError(CrawlRunning)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.get("listConnectorDocuments", "/admin/connectors/:sourceSystem/:connectionKey/documents")
    .setPath(ConnectionPath)
    .setUrlParams(PushedDocumentQuery)
    .addSuccess(PushedDocumentPage)
    .addError(ConnectorKindNotFound)
    .addError(ConnectionNotFound)
    .addError(InvalidCursor)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.get("listConnectorScopes", "/admin/connectors/:sourceSystem/:connectionKey/scopes")
    .setPath(ConnectionPath)
    .addSuccess(Schema.Array(ConnectorScope))
    .addError(ConnectorKindNotFound)
    .addError(ConnectionNotFound)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.get("connectorActivity", "/admin/connectors/:sourceSystem/:connectionKey/activity")
    .setPath(ConnectionPath)
    .addSuccess(ConnectorActivity)
    .addError(ConnectorKindNotFound)
    .addError(ConnectionNotFound)
    .pipe(requires("connectors.manage"))) {}

/** Source identity: the native principals seen in ACLs, their mappings to Lore users, source groups, and trust. */
export class SourceIdentityApi extends HttpApiGroup.make("adminSourceIdentity")
  .add(HttpApiEndpoint.get("listSourcePrincipals", "/admin/source-principals")
    .addSuccess(Schema.Array(SourcePrincipal)).pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.put("mapSourcePrincipal", "/admin/source-principals/:principalId/mapping")
    .setPath(PrincipalPath)
    .setPayload(SetSourcePrincipalMapping)
    .addSuccess(SourcePrincipal)
    .addError(SourcePrincipalNotFound)
    .addError(MappingUserNotFound)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.del("unmapSourcePrincipal", "/admin/source-principals/:principalId/mapping")
    .setPath(PrincipalPath)
    .addSuccess(SourcePrincipal)
    .addError(SourcePrincipalNotFound)
    .pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.get("listSourceGroups", "/admin/source-groups")
    .addSuccess(Schema.Array(SourceGroup)).pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.get("listSourceConnections", "/admin/source-connections")
    .addSuccess(Schema.Array(SourceConnection)).pipe(requires("connectors.manage")))
  .add(HttpApiEndpoint.put("setIdentityTrust", "/admin/source-connections/identity-trust")
    .setPayload(SetIdentityTrust)
    .addSuccess(SourceConnection)
    .addError(ConnectionNotFound)
    .pipe(requires("connectors.manage"))) {}

const AclUser = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)),
  email: Schema.optional(Schema.String.pipe(Schema.maxLength(320))),
  displayName: Schema.optional(Schema.String.pipe(Schema.maxLength(500)))
})
const AclGroup = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)),
  displayName: Schema.optional(Schema.String.pipe(Schema.maxLength(500)))
})
const principalFields = {
  users: Schema.optionalWith(Schema.Array(AclUser), { default: () => [] }),
  groups: Schema.optionalWith(Schema.Array(AclGroup), { default: () => [] }),
  /** Added: organization-wide principals (a tenant, domain or workspace), reached only by their member users. */
  organizations: Schema.optional(Schema.Array(AclGroup))
}
export const PushedAcl = Schema.Struct({
  ...principalFields,
  /** Added: principal sets the reader must ALSO match one of each (an intersection, e.g. a page restriction). */
  requireAlso: Schema.optional(Schema.Array(Schema.Struct(principalFields)).pipe(Schema.maxItems(20)))
}).annotations({ identifier: "PushedAcl", description: "Who may read the document in the source: any one of its principals, and one of each requireAlso set. An empty ACL admits nobody." })

const documentFields = {
  title: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(500)),
  content: Schema.optional(Schema.String).annotations({ description: "The document's text (Markdown, plain text or HTML); or contentBase64" }),
  contentBase64: Schema.optional(Schema.String).annotations({ description: "A file's bytes (PDF, DOCX, ...), base64" }),
  fileName: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255))),
  mediaType: Schema.optional(Schema.String.pipe(Schema.maxLength(255))),
  url: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
  classification: Schema.optionalWith(Classification, { default: () => "INTERNAL" as const }),
  acl: PushedAcl
}
export const PushedDocument = Body(documentFields).annotations({ identifier: "PushedDocument" })
/** One document of a bulk push. Each is decoded on its own (connectors/Http.ts): an invalid one is listed in `failed`. */
export const BulkPushedDocument = Schema.Struct({ externalId: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)), ...documentFields })
  .annotations({ identifier: "BulkPushedDocument", parseOptions: { onExcessProperty: "error", errors: "all" } })
export const BulkPush = Body({
  // Unknown on the way in, so one bad document cannot refuse the batch; the contract still shows each as a BulkPushedDocument.
  documents: Schema.optionalWith(
    Schema.Array(Schema.Unknown.annotations({ jsonSchema: { $ref: "#/components/schemas/BulkPushedDocument" } })).pipe(Schema.maxItems(500)),
    { default: () => [] }
  ),
  deletes: Schema.optionalWith(Schema.Array(Schema.String).pipe(Schema.maxItems(500)), { default: () => [] })
}).annotations({ identifier: "BulkPush" })
export const PushedGroup = Body({
  displayName: Schema.optional(Schema.String.pipe(Schema.maxLength(500))),
  kind: Schema.optional(Schema.Literal("SOURCE_GROUP", "SOURCE_ORGANIZATION").annotations({ identifier: "PushedGroupKind" })).annotations({
    description: "Added: SOURCE_ORGANIZATION for an organization-wide principal, whose members are users only (groups are ignored)"
  }),
  members: Schema.Struct({
    users: Schema.optionalWith(Schema.Array(AclUser), { default: () => [] }),
    groups: Schema.optionalWith(Schema.Array(AclGroup), { default: () => [] })
  })
}).annotations({ identifier: "PushedGroup", description: "The group's whole membership (replaces the previous snapshot); member groups nest" })

export const PushOutcome = Schema.Literal("MATERIALIZED", "ROTATED", "REMATERIALIZED", "UNCHANGED", "RETIRED").annotations({ identifier: "PushOutcome" })
export const PushResult = Schema.Struct({
  externalId: Schema.String,
  outcome: PushOutcome.annotations({ description: "MATERIALIZED: new; ROTATED: new content (re-ingested); REMATERIALIZED: only the ACL or classification changed (no re-parsing); UNCHANGED; RETIRED: deleted" }),
  knowledgeAssetId: Schema.NullOr(Schema.UUID),
  sourceId: Schema.NullOr(Schema.UUID)
}).annotations({ identifier: "PushResult" })

export const BulkPushResultItem = Schema.Struct({
  externalId: Schema.String,
  outcome: Schema.Literal(...PushOutcome.literals, "NOT_FOUND").annotations({ identifier: "BulkPushOutcome", description: "As PushOutcome; NOT_FOUND: a delete of an external id the connection does not hold" }),
  knowledgeAssetId: Schema.NullOr(Schema.UUID),
  sourceId: Schema.NullOr(Schema.UUID)
}).annotations({ identifier: "BulkPushResultItem" })

const IndexingHeaders = Schema.Struct({ authorization: Schema.optional(Schema.String) })
const DocumentPath = Schema.Struct({ sourceSystem: Schema.String, connectionKey: Schema.String, externalId: Schema.String })
const GroupPath = Schema.Struct({ sourceSystem: Schema.String, connectionKey: Schema.String, externalGroupId: Schema.String })

/**
 * The indexing API (added, Glean-style): a PUSH connection's pusher sends the connection's credential as
 * `Authorization: Bearer` and puts documents and group memberships, idempotently by external id.
 */
export class IndexingApi extends HttpApiGroup.make("indexing")
  .add(HttpApiEndpoint.get("listPushedDocuments", "/indexing/:sourceSystem/:connectionKey/documents")
    .setPath(ConnectionPath)
    .setHeaders(IndexingHeaders)
    .setUrlParams(PushedDocumentQuery)
    .addSuccess(PushedDocumentPage)
    .addError(IndexingUnauthorized)
    .addError(InvalidCursor)
    .pipe(isPublic))
  .add(HttpApiEndpoint.put("pushDocument", "/indexing/:sourceSystem/:connectionKey/documents/:externalId")
    .setPath(DocumentPath)
    .setHeaders(IndexingHeaders)
    .setPayload(PushedDocument)
    .addSuccess(PushResult)
    .addError(IndexingUnauthorized)
    .addError(InvalidPushedDocument)
    .pipe(isPublic))
  .add(HttpApiEndpoint.del("deletePushedDocument", "/indexing/:sourceSystem/:connectionKey/documents/:externalId")
    .setPath(DocumentPath)
    .setHeaders(IndexingHeaders)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(IndexingUnauthorized)
    .pipe(isPublic))
  .add(HttpApiEndpoint.post("pushDocuments", "/indexing/:sourceSystem/:connectionKey/documents::bulk")
    .setPath(ConnectionPath)
    .setHeaders(IndexingHeaders)
    .setPayload(BulkPush)
    .addSuccess(Schema.Struct({
      results: Schema.Array(BulkPushResultItem),
      failed: Schema.Array(Schema.Struct({
        externalId: Schema.NullOr(Schema.String).annotations({ description: "As sent (at most 200 bytes of it), or null when the document had none" }),
        code: Schema.String.annotations({ description: "INVALID_PUSHED_DOCUMENT for a document that is not a BulkPushedDocument (errors[] names each field), or why indexing it failed" }),
        detail: Schema.String,
        errors: Schema.optional(Schema.Array(FieldError))
      }))
    }).annotations({ identifier: "BulkPushResult" }))
    .addError(IndexingUnauthorized)
    .pipe(isPublic))
  .add(HttpApiEndpoint.put("pushGroup", "/indexing/:sourceSystem/:connectionKey/groups/:externalGroupId")
    .setPath(GroupPath)
    .setHeaders(IndexingHeaders)
    .setPayload(PushedGroup)
    .addSuccess(SourceGroup)
    .addError(IndexingUnauthorized)
    .pipe(isPublic)) {}
