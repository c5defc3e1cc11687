import { HttpApiBuilder } from "@effect/platform"
import { Effect, Either, ParseResult, Schema } from "effect"
import { quoteInput } from "../domain/Echo"
import { describeIssues, summarize } from "../domain/ValidationMessages"
import { asCaller } from "../domain/Principal"
import { LoreApi } from "../http/Api"
import { ConnectorConnections } from "./Connections"
import { SourceIdentity } from "./Identity"
import { type BulkDocument, type BulkFailure, Indexing } from "./Indexing"
import { BulkPushedDocument } from "./Api"

export const ConnectorsAdminHttp = HttpApiBuilder.group(LoreApi, "adminConnectors", (handlers) =>
  Effect.gen(function* () {
    const connections = yield* ConnectorConnections
    return handlers
      .handle("listConnectorKinds", () => Effect.succeed(connections.kinds))
      .handle("listConnectorConfigs", ({ path }) => asCaller((me) => connections.list(me, path.sourceSystem)))
      .handle("testUnsavedConnection", ({ path, payload }) => asCaller((me) => connections.testUnsaved(me, path.sourceSystem, payload)))
      .handle("putConnectorConfig", ({ path, payload }) => asCaller((me) => connections.put(me, path.sourceSystem, path.connectionKey, payload)))
      .handle("deleteConnectorConfig", ({ path }) => asCaller((me) => connections.remove(me, path.sourceSystem, path.connectionKey)))
      .handle("putConnectorCredential", ({ path, payload }) => asCaller((me) => connections.setCredential(me, path.sourceSystem, path.connectionKey, payload.credential)))
      .handle("deleteConnectorCredential", ({ path }) => asCaller((me) => connections.clearCredential(me, path.sourceSystem, path.connectionKey)))
      .handle("testConnection", ({ path }) => asCaller((me) => connections.test(me, path.sourceSystem, path.connectionKey)))
      .handle("crawlConnection", ({ path, urlParams }) => asCaller((me) => connections.crawl(me, path.sourceSystem, path.connectionKey, urlParams.component)))
      .handle("listConnectorDocuments", ({ path, urlParams }) => asCaller((me) => connections.documents(me, path.sourceSystem, path.connectionKey, urlParams)))
      .handle("listConnectorScopes", ({ path }) => asCaller((me) => connections.scopes(me, path.sourceSystem, path.connectionKey)))
      .handle("connectorActivity", ({ path }) => asCaller((me) => connections.activity(me, path.sourceSystem, path.connectionKey)))
  })
)

export const SourceIdentityHttp = HttpApiBuilder.group(LoreApi, "adminSourceIdentity", (handlers) =>
  Effect.gen(function* () {
    const identity = yield* SourceIdentity
    return handlers
      .handle("listSourcePrincipals", () => asCaller(identity.principals))
      .handle("mapSourcePrincipal", ({ path, payload }) => asCaller((me) => identity.map(me, path.principalId, payload.appUserId)))
      .handle("unmapSourcePrincipal", ({ path }) => asCaller((me) => identity.unmap(me, path.principalId)))
      .handle("listSourceGroups", () => asCaller(identity.groups))
      .handle("listSourceConnections", () => asCaller(identity.connections))
      .handle("setIdentityTrust", ({ payload }) => asCaller((me) => identity.setTrust(me, payload)))
  })
)

const decodeDocument = Schema.decodeUnknownEither(BulkPushedDocument)

/**
 * One document of a bulk push, decoded on its own so an invalid one is reported in `failed` (INVALID_PUSHED_DOCUMENT
 * with errors[] per field, never repeating a submitted value) while the others are indexed.
 */
const decodeBulkDocument = (raw: unknown): Either.Either<BulkDocument, BulkFailure> =>
  Either.mapLeft(decodeDocument(raw), (error) => {
    const errors = describeIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
    const id = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as { externalId?: unknown }).externalId : undefined
    return { externalId: typeof id === "string" ? quoteInput(id) : null, code: "INVALID_PUSHED_DOCUMENT", detail: summarize(errors), errors }
  })

export const IndexingHttp = HttpApiBuilder.group(LoreApi, "indexing", (handlers) =>
  Effect.gen(function* () {
    const indexing = yield* Indexing
    return handlers
      .handle("listPushedDocuments", ({ path, headers, urlParams }) =>
        indexing.listDocuments(headers.authorization, path.sourceSystem, path.connectionKey, urlParams))
      .handle("pushDocument", ({ path, headers, payload }) =>
        indexing.putDocument(headers.authorization, path.sourceSystem, path.connectionKey, path.externalId, payload))
      .handle("deletePushedDocument", ({ path, headers }) =>
        indexing.deleteDocument(headers.authorization, path.sourceSystem, path.connectionKey, path.externalId))
      .handle("pushDocuments", ({ path, headers, payload }) =>
        indexing.bulk(headers.authorization, path.sourceSystem, path.connectionKey, { documents: payload.documents.map(decodeBulkDocument), deletes: payload.deletes }))
      .handle("pushGroup", ({ path, headers, payload }) =>
        indexing.putGroup(headers.authorization, path.sourceSystem, path.connectionKey, path.externalGroupId, payload))
  })
)
