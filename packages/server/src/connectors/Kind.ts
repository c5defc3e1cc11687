import { Effect } from "effect"
import type { LoreSettings } from "../Config"
import type { FieldError } from "../domain/Errors"
import type { Classification } from "../domain/Model"

/** A principal as a source names it in an ACL or a group: native id, and what the source says of it. */
export interface NativeUser { readonly id: string; readonly email?: string | undefined; readonly displayName?: string | undefined }
export interface NativeGroup { readonly id: string; readonly displayName?: string | undefined }
/** Everyone of a tenant, domain or workspace: reached only by the source users listed as its members (never guests). */
export interface NativeOrganization { readonly id: string; readonly displayName?: string | undefined }

/** Principals any one of which the source admits. */
export interface NativePrincipals {
  readonly users: ReadonlyArray<NativeUser>
  readonly groups: ReadonlyArray<NativeGroup>
  readonly organizations?: ReadonlyArray<NativeOrganization> | undefined
}

/**
 * Who the source lets read a document: any one of the principals, AND one of each of `requireAlso` (an
 * intersection: Confluence's space permission AND the page's read restrictions AND each restricted ancestor's;
 * Jira's project permission AND the issue security level). `unresolved`: the source would not give the
 * document's permissions; the ACL must then be empty (it admits nobody) and explain answers SOURCE_ACL_UNRESOLVED.
 */
export interface NativeAcl extends NativePrincipals {
  readonly requireAlso?: ReadonlyArray<NativePrincipals> | undefined
  readonly unresolved?: boolean | undefined
}

/** One document a crawl (or a push) yields: its bytes, metadata and ACL, by the source's external id. */
export interface SourceDocument {
  readonly externalId: string
  readonly title: string
  readonly bytes: Uint8Array
  readonly fileName: string
  readonly mediaType: string
  readonly url: string | null
  readonly classification: Classification
  /**
   * Who the source lets read it; null when the source has no ACL of its own (a public web site): then everyone
   * with a grant on the knowledge space (and the clearance) reads it, as with an upload. An empty ACL admits nobody.
   */
  readonly acl: NativeAcl | null
}

/**
 * A source group's whole membership (member groups nest). With `kind: "SOURCE_ORGANIZATION"` it is an
 * organization-wide principal and only its `members.users` count (the source's own users of the organization,
 * guests left out by the kind).
 */
export interface SourceGroupMembership {
  readonly id: string
  readonly kind?: "SOURCE_GROUP" | "SOURCE_ORGANIZATION" | undefined
  readonly displayName?: string | undefined
  readonly members: NativePrincipals
}

/** What one crawl step yields from a checkpoint; the framework applies it and stores `checkpoint`. */
export interface CrawlPage {
  readonly documents: ReadonlyArray<SourceDocument>
  readonly groups: ReadonlyArray<SourceGroupMembership>
  /** External ids the source no longer has (they are retired). */
  readonly deleted: ReadonlyArray<string>
  readonly checkpoint: unknown
  /** False when more pages follow from `checkpoint`. */
  readonly done: boolean
  /** Documents and deletions the kind still expects to yield in this crawl, when it knows (drives progress bars). */
  readonly remaining?: number | undefined
  /**
   * What the source could not give this step (a page unreachable, refused): each counts as failed in the crawl's
   * attempt; `fatal` when nothing could be crawled at all (the attempt is FAILED rather than PARTIAL).
   */
  readonly failures?: ReadonlyArray<{ readonly code: string; readonly message: string; readonly fatal?: boolean }>
  /**
   * Objects the crawl deliberately left out (a file type Lore cannot parse and the vendor cannot convert): counted in
   * the attempt's objectsSkipped, never a failure. Documents the framework finds unsupported are counted there too.
   */
  readonly skipped?: number | undefined
}

/** One document's ACL as a permission sync reads it, by external id. */
export interface DocumentAcl {
  readonly externalId: string
  readonly acl: NativeAcl | null
}

/** What one permission-sync step yields: ACLs and groups, no content; the framework applies them and stores `checkpoint`. */
export interface PermissionPage {
  readonly acls: ReadonlyArray<DocumentAcl>
  readonly groups: ReadonlyArray<SourceGroupMembership>
  readonly checkpoint: unknown
  /** False when more pages follow from `checkpoint`. */
  readonly done: boolean
  readonly failures?: ReadonlyArray<{ readonly code: string; readonly message: string; readonly fatal?: boolean }>
}

/** The external ids of a connection's live documents, for a permission sync that walks what Lore holds. */
export interface KnownDocuments {
  /** A page of external ids in order after `after` (null: from the start). */
  readonly page: (after: string | null, limit: number) => Effect.Effect<ReadonlyArray<string>>
  /**
   * External ids of live documents not written since `since` (ISO time), in order after `after`: what a full walk
   * that began at `since` did not see again, i.e. deleted at the source.
   */
  readonly notSeenSince: (since: string, after: string | null, limit: number) => Effect.Effect<ReadonlyArray<string>>
}

/**
 * One page of the held documents under `prefix` (a unit's or drive's: external ids sort by it), read with `read`
 * (`KnownDocuments.page`, or `notSeenSince` bound to its time) from `after`: their ids, and where the next page
 * starts (null: none is left).
 */
export const pageUnder = async (
  read: (after: string, limit: number) => Effect.Effect<ReadonlyArray<string>>,
  prefix: string,
  after: string | null | undefined,
  limit: number
): Promise<{ readonly ids: ReadonlyArray<string>; readonly next: string | null }> => {
  const found = await Effect.runPromise(read(after ?? prefix, limit))
  const ids = found.filter((id) => id.startsWith(prefix))
  return { ids, next: found.length === limit && ids.length === found.length ? ids.at(-1)! : null }
}

export interface KindContext {
  readonly sourceConfig: Readonly<Record<string, unknown>>
  /** The decrypted credential, or null when none is set. */
  readonly credential: string | null
  /** The server's settings (e.g. which addresses a crawler may reach). */
  readonly settings: LoreSettings
  /**
   * Stores a new credential for the connection, sealed like the first (a kind whose vendor rotates refresh tokens
   * calls it the moment it receives one). Absent outside a crawl or permission sync.
   */
  readonly resealCredential?: ((secret: string) => Effect.Effect<void>) | undefined
  /** The connection's live documents (absent when testing an unsaved config). */
  readonly documents?: KnownDocuments | undefined
}

export interface ConnectionTestResult {
  readonly authenticated: boolean
  readonly accountName: string | null
  readonly identityName: string | null
  readonly canReadContent: boolean
  readonly errorCode: string | null
}

export interface Scope {
  readonly key: string
  readonly displayName: string
  readonly reachable: boolean
  readonly admissible: boolean
  readonly instruction: string | null
}

/**
 * A connector kind: one module implementing this interface, registered in Kinds.ts. The framework does the
 * rest (storing the config and sealed credential, running crawls on the durable queue one at a time per
 * connection, ingesting documents with their ACL keys, principals, groups, retiring deletions, activity).
 */
export interface ConnectorKindModule {
  readonly sourceSystem: string
  readonly displayName: string
  /** Whether a connection of this kind needs a credential to work (REQUIRED), may use one (OPTIONAL, the default) or takes none (NONE). */
  readonly credentialRequirement?: "REQUIRED" | "OPTIONAL" | "NONE"
  /** What the credential is, in a sentence a person acts on (shown after `connectors add`). */
  readonly credentialHint?: string
  /** Field errors of a sourceConfig (paths like `sourceConfig.baseUrl`); empty when valid. */
  readonly validateConfig: (sourceConfig: Readonly<Record<string, unknown>>, settings: LoreSettings) => ReadonlyArray<FieldError>
  /** The credential as stored (a string; objects are kept as JSON), or a message that never repeats the value. */
  readonly readCredential: (credential: unknown) => { readonly ok: true; readonly secret: string } | { readonly ok: false; readonly message: string }
  /**
   * The sourceConfig as it is stored once what it names is looked up at the source with the credential (Slack channel
   * names become ids): run when a config is saved on a connection that has a credential, and when a credential is set.
   * Field errors (422) name what the source does not know; a source that cannot be asked leaves the config as given.
   */
  readonly resolveConfig?: ((context: KindContext) => Effect.Effect<
    { readonly sourceConfig: Readonly<Record<string, unknown>> } | { readonly errors: ReadonlyArray<FieldError> }
  >) | undefined
  readonly testCredentials: (context: KindContext) => Effect.Effect<ConnectionTestResult>
  readonly listScopes: (context: KindContext) => Effect.Effect<ReadonlyArray<Scope>>
  /**
   * What activity shows of a checkpoint (default: all of it), and whether a crawl stopped mid-way (its capture
   * is then IN_PROGRESS). For kinds whose checkpoint is large (WEB keeps validators per URL).
   */
  readonly describeCheckpoint?: (checkpoint: unknown) => { readonly cursor: unknown; readonly inProgress: boolean }
  /** One crawl step from `checkpoint` (null on the first crawl). */
  readonly crawl: (context: KindContext, checkpoint: unknown) => Effect.Effect<CrawlPage>
  /**
   * One permission-sync step from `checkpoint` (null at the start of each sync): ACLs and groups without content, on
   * the connection's own permission schedule. Kinds without it get their permissions from the content crawl alone.
   */
  readonly syncPermissions?: ((context: KindContext, checkpoint: unknown) => Effect.Effect<PermissionPage>) | undefined
}
