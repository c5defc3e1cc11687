import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { asCaller } from "../domain/Principal"
import { LoreApi } from "../http/Api"
import { ConnectorConnections } from "./Connections"
import { SourceIdentity } from "./Identity"
import { Indexing } from "./Indexing"

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
        indexing.bulk(headers.authorization, path.sourceSystem, path.connectionKey, payload))
      .handle("pushGroup", ({ path, headers, payload }) =>
        indexing.putGroup(headers.authorization, path.sourceSystem, path.connectionKey, path.externalGroupId, payload))
  })
)
