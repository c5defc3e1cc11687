import { Effect, Either } from "effect"
import { quoteInput } from "../domain/Echo"
import type { FieldError } from "../domain/Errors"
import { SecretBox } from "../platform/SecretBox"
import { cursorCodec, decodeCursorWith } from "../db/Cursor"
import type { Classification } from "../domain/Model"
import { credentialVerifier } from "./Connections"
import { ConnectorDocuments } from "./Documents"
import { IndexingUnauthorized, InvalidPushedDocument } from "./Errors"
import type { NativeAcl, SourceDocument } from "./Kind"
import { ConnectorsRepo } from "./Repo"
import { SourceIdentity } from "./Identity"


/** The document listing's cursor: the last external id (a pusher's own ids are unique per connection). */
const externalIdCursor = cursorCodec<string>((externalId) => externalId, (text) => (text.length > 0 ? text : undefined))

export interface PushedDocumentInput {
  readonly title: string
  readonly content?: string | undefined
  readonly contentBase64?: string | undefined
  readonly fileName?: string | undefined
  readonly mediaType?: string | undefined
  readonly url?: string | undefined
  readonly classification: Classification
  readonly acl: NativeAcl
}

/** A document of a bulk push, decoded on its own (connectors/Http.ts). */
export type BulkDocument = PushedDocumentInput & { readonly externalId: string }

/** A document of a bulk push that was not indexed: its id (quoted, at most 200 bytes), the code and each field's error. */
export interface BulkFailure {
  readonly externalId: string | null
  readonly code: string
  readonly detail: string
  readonly errors?: ReadonlyArray<FieldError>
}

const unauthorized = new IndexingUnauthorized({ detail: "Send this connection's credential as Authorization: Bearer <credential>" })

/** The indexing API: a PUSH connection's pusher, authenticated by the connection's credential. */
export class Indexing extends Effect.Service<Indexing>()("lore/Indexing", {
  effect: Effect.gen(function* () {
    const repo = yield* ConnectorsRepo
    const documents = yield* ConnectorDocuments
    const box = yield* SecretBox
    const identity = yield* SourceIdentity

    /** The connection the bearer credential belongs to, when it is the one the path names (else 401, saying nothing more). */
    const authenticate = (authorization: string | undefined, sourceSystem: string, connectionKey: string) =>
      Effect.gen(function* () {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")
        if (!match) return yield* unauthorized
        const row = yield* repo.connectionByVerifier(credentialVerifier(box, match[1]!))
        if (!row || row.sourceSystem !== sourceSystem || row.connectionKey !== connectionKey || sourceSystem !== "PUSH") return yield* unauthorized
        return row
      })

    const toDocument = (externalId: string, input: PushedDocumentInput) =>
      Effect.gen(function* () {
        if ((input.content === undefined) === (input.contentBase64 === undefined)) {
          return yield* new InvalidPushedDocument({ detail: "Send exactly one of content and contentBase64", errors: [{ path: "content", message: "exactly one of content and contentBase64" }] })
        }
        const bytes = input.content !== undefined ? new TextEncoder().encode(input.content) : new Uint8Array(Buffer.from(input.contentBase64!, "base64"))
        const mediaType = input.mediaType ?? (input.content !== undefined ? "text/markdown" : "application/octet-stream")
        const extension = mediaType === "text/markdown" ? ".md" : mediaType === "text/html" ? ".html" : mediaType === "text/plain" ? ".txt" : ""
        return {
          externalId,
          title: input.title,
          bytes,
          fileName: input.fileName ?? `${externalId.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 200)}${extension}`,
          mediaType,
          url: input.url ?? null,
          classification: input.classification,
          acl: input.acl
        } satisfies SourceDocument
      })

    const putDocument = (authorization: string | undefined, sourceSystem: string, connectionKey: string, externalId: string, input: PushedDocumentInput) =>
      Effect.gen(function* () {
        const connection = yield* authenticate(authorization, sourceSystem, connectionKey)
        const result = yield* documents.put(connection, yield* toDocument(externalId, input))
        yield* repo.recordAttempt(connection.id, {
          outcome: "SUCCEEDED",
          materialized: result.outcome === "MATERIALIZED" ? 1 : 0,
          rotated: result.outcome === "ROTATED" ? 1 : 0,
          rematerialized: result.outcome === "REMATERIALIZED" ? 1 : 0
        })
        return result
      })

    const deleteDocument = (authorization: string | undefined, sourceSystem: string, connectionKey: string, externalId: string) =>
      Effect.gen(function* () {
        const connection = yield* authenticate(authorization, sourceSystem, connectionKey)
        const retired = yield* documents.retire(connection, externalId)
        if (retired) yield* repo.recordAttempt(connection.id, { outcome: "SUCCEEDED", retired: 1 })
      })

    const putGroup = (authorization: string | undefined, sourceSystem: string, connectionKey: string, externalGroupId: string, input: { displayName?: string | undefined; kind?: "SOURCE_GROUP" | "SOURCE_ORGANIZATION" | undefined; members: NativeAcl }) =>
      Effect.gen(function* () {
        const connection = yield* authenticate(authorization, sourceSystem, connectionKey)
        const { groupId } = yield* documents.putGroup(connection, { id: externalGroupId, kind: input.kind, displayName: input.displayName, members: input.members })
        return (yield* identity.groupsIn(connection.organizationId, groupId))[0]!
      })

    /**
     * Many documents and deletions in one request, each applied on its own (idempotent by external id): one bad
     * document is reported in `failed` and does not stop the others.
     */
    const bulk = (
      authorization: string | undefined,
      sourceSystem: string,
      connectionKey: string,
      input: { readonly documents: ReadonlyArray<Either.Either<BulkDocument, BulkFailure>>; readonly deletes: ReadonlyArray<string> }
    ) =>
      Effect.gen(function* () {
        const connection = yield* authenticate(authorization, sourceSystem, connectionKey)
        const results: Array<{ externalId: string; outcome: "MATERIALIZED" | "ROTATED" | "REMATERIALIZED" | "UNCHANGED" | "RETIRED" | "NOT_FOUND"; knowledgeAssetId: string | null; sourceId: string | null }> = []
        const failed: Array<BulkFailure> = []
        for (const decoded of input.documents) {
          if (Either.isLeft(decoded)) {
            failed.push(decoded.left)
            continue
          }
          const { externalId, ...document } = decoded.right
          const outcome = yield* Effect.either(Effect.flatMap(toDocument(externalId, document), (d) => documents.put(connection, d)))
          if (outcome._tag === "Left") failed.push({ externalId: quoteInput(externalId), code: outcome.left.code, detail: outcome.left.detail, ...(outcome.left.errors ? { errors: outcome.left.errors } : {}) })
          else results.push(outcome.right)
        }
        for (const externalId of input.deletes) {
          // A delete of an id the connection does not hold is reported, so a pusher's list and Lore's can be reconciled.
          const retired = yield* documents.retire(connection, externalId)
          results.push({ externalId: quoteInput(externalId), outcome: retired ? "RETIRED" : "NOT_FOUND", knowledgeAssetId: null, sourceId: null })
        }
        const count = (outcome: string) => results.filter((r) => r.outcome === outcome).length
        yield* repo.recordAttempt(connection.id, {
          outcome: failed.length > 0 ? "PARTIAL" : "SUCCEEDED",
          materialized: count("MATERIALIZED"),
          rotated: count("ROTATED"),
          rematerialized: count("REMATERIALIZED"),
          retired: count("RETIRED"),
          failed: failed.length,
          errorCode: failed[0]?.code ?? null,
          errorMessage: failed[0] ? `${failed[0].externalId}: ${failed[0].detail}` : null
        })
        return { results, failed }
      })

    /**
     * The connection's live documents by external id, a page at a time (the cursor is the last external id,
     * base64url): what a pusher compares with its own list to delete what it no longer has.
     */
    const listDocuments = (authorization: string | undefined, sourceSystem: string, connectionKey: string, query: { readonly cursor?: string | undefined; readonly limit: number }) =>
      Effect.gen(function* () {
        const connection = yield* authenticate(authorization, sourceSystem, connectionKey)
        const after = (yield* decodeCursorWith(externalIdCursor, query.cursor)) ?? null
        const found = yield* repo.documentPage(connection.id, after, query.limit + 1)
        const items = found.slice(0, query.limit)
        return { items, nextCursor: found.length > query.limit ? externalIdCursor.encode(items[items.length - 1]!.externalId) : null }
      })

    return { putDocument, deleteDocument, putGroup, bulk, listDocuments, authenticate, toDocument }
  }),
  dependencies: [ConnectorsRepo.Default, ConnectorDocuments.Default, SourceIdentity.Default, SecretBox.Default]
}) {}
