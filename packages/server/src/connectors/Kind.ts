import { Effect } from "effect"
import type { LoreSettings } from "../Config"
import type { FieldError } from "../domain/Errors"
import type { Classification } from "../domain/Model"

/** A principal as a source names it in an ACL or a group: native id, and what the source says of it. */
export interface NativeUser { readonly id: string; readonly email?: string | undefined; readonly displayName?: string | undefined }
export interface NativeGroup { readonly id: string; readonly displayName?: string | undefined }
export interface NativeAcl { readonly users: ReadonlyArray<NativeUser>; readonly groups: ReadonlyArray<NativeGroup> }

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

/** A source group's whole membership (member groups nest). */
export interface SourceGroupMembership {
  readonly id: string
  readonly displayName?: string | undefined
  readonly members: NativeAcl
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
}

export interface KindContext {
  readonly sourceConfig: Readonly<Record<string, unknown>>
  /** The decrypted credential, or null when none is set. */
  readonly credential: string | null
  /** The server's settings (e.g. which addresses a crawler may reach). */
  readonly settings: LoreSettings
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
  readonly testCredentials: (context: KindContext) => Effect.Effect<ConnectionTestResult>
  readonly listScopes: (context: KindContext) => Effect.Effect<ReadonlyArray<Scope>>
  /**
   * What activity shows of a checkpoint (default: all of it), and whether a crawl stopped mid-way (its capture
   * is then IN_PROGRESS). For kinds whose checkpoint is large (WEB keeps validators per URL).
   */
  readonly describeCheckpoint?: (checkpoint: unknown) => { readonly cursor: unknown; readonly inProgress: boolean }
  /** One crawl step from `checkpoint` (null on the first crawl). */
  readonly crawl: (context: KindContext, checkpoint: unknown) => Effect.Effect<CrawlPage>
}
