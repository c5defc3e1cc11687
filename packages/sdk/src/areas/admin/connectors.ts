import type { LoreFetchClient } from "../../fetchClient"
import { unwrap, unwrapEmpty } from "../../response"
import type {
  ConnectionTest,
  ConnectorActivity,
  ConnectorConfig,
  ConnectorKind,
  ConnectorScope,
  IdentityTrust,
  PutConnectorConfig,
  SourceConnection,
  SourceGroup,
  SourcePrincipal,
  TestUnsavedConnection
} from "../../generated/openapi"

/**
 * Connectors (`connectors.manage`): connection configs per kind (sourceSystem PUSH, ...), the write-only
 * credential (never returned: configs show only `credentialSet`), tests, crawls, scopes and activity.
 */
export class AdminConnectorsArea {
  constructor(private readonly client: LoreFetchClient) {}

  kinds(): Promise<Array<ConnectorKind>> {
    return unwrap(this.client.GET("/api/admin/connectors/sources"))
  }

  list(sourceSystem: string): Promise<Array<ConnectorConfig>> {
    return unwrap(this.client.GET("/api/admin/connectors/{sourceSystem}", { params: { path: { sourceSystem } } }))
  }

  /** Creates or replaces a connection's config; 422 INVALID_CONNECTOR_CONFIG names each bad field. */
  put(sourceSystem: string, connectionKey: string, config: PutConnectorConfig): Promise<ConnectorConfig> {
    return unwrap(this.client.PUT("/api/admin/connectors/{sourceSystem}/{connectionKey}", { params: { path: { sourceSystem, connectionKey } }, body: config }))
  }

  /** Deletes the connection and retires its documents. */
  remove(sourceSystem: string, connectionKey: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/admin/connectors/{sourceSystem}/{connectionKey}", { params: { path: { sourceSystem, connectionKey } } }))
  }

  /**
   * Sets the write-only credential. A kind that looks up what its config names with it (SLACK: channel names become
   * ids) answers 422 INVALID_CONNECTOR_CONFIG naming what the source does not know, and stores nothing.
   */
  setCredential(sourceSystem: string, connectionKey: string, credential: unknown): Promise<void> {
    return unwrapEmpty(this.client.PUT("/api/admin/connectors/{sourceSystem}/{connectionKey}/credential", {
      params: { path: { sourceSystem, connectionKey } }, body: { credential }
    }))
  }

  clearCredential(sourceSystem: string, connectionKey: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/admin/connectors/{sourceSystem}/{connectionKey}/credential", { params: { path: { sourceSystem, connectionKey } } }))
  }

  test(sourceSystem: string, connectionKey: string): Promise<ConnectionTest> {
    return unwrap(this.client.POST("/api/admin/connectors/{sourceSystem}/{connectionKey}/test", { params: { path: { sourceSystem, connectionKey } } }))
  }

  testUnsaved(sourceSystem: string, body: TestUnsavedConnection): Promise<ConnectionTest> {
    return unwrap(this.client.POST("/api/admin/connectors/{sourceSystem}/test", { params: { path: { sourceSystem } }, body }))
  }

  /**
   * Queues a content crawl and, for kinds that have one, a permission sync (202); `component` starts only one of
   * them. 409 CRAWL_RUNNING while each asked for is already queued or running.
   */
  crawl(sourceSystem: string, connectionKey: string, component?: "content" | "permissions"): Promise<void> {
    return unwrapEmpty(this.client.POST("/api/admin/connectors/{sourceSystem}/{connectionKey}/crawl", {
      params: { path: { sourceSystem, connectionKey }, ...(component ? { query: { component } } : {}) }
    }))
  }

  /** The connection's live documents (external id, knowledge asset, URL), one page by cursor. */
  documents(sourceSystem: string, connectionKey: string, query: { cursor?: string; limit?: number } = {}) {
    return unwrap(this.client.GET("/api/admin/connectors/{sourceSystem}/{connectionKey}/documents", { params: { path: { sourceSystem, connectionKey }, query } }))
  }

  scopes(sourceSystem: string, connectionKey: string): Promise<Array<ConnectorScope>> {
    return unwrap(this.client.GET("/api/admin/connectors/{sourceSystem}/{connectionKey}/scopes", { params: { path: { sourceSystem, connectionKey } } }))
  }

  activity(sourceSystem: string, connectionKey: string): Promise<ConnectorActivity> {
    return unwrap(this.client.GET("/api/admin/connectors/{sourceSystem}/{connectionKey}/activity", { params: { path: { sourceSystem, connectionKey } } }))
  }
}

/** Source identity (`connectors.manage`): principals seen in ACLs and their mappings, source groups, connection trust. */
export class AdminSourceIdentityArea {
  constructor(private readonly client: LoreFetchClient) {}

  principals(): Promise<Array<SourcePrincipal>> {
    return unwrap(this.client.GET("/api/admin/source-principals"))
  }

  /** A MANUAL mapping to a Lore user; grants only on a TRUSTED connection. */
  map(principalId: string, appUserId: string): Promise<SourcePrincipal> {
    return unwrap(this.client.PUT("/api/admin/source-principals/{principalId}/mapping", { params: { path: { principalId } }, body: { appUserId } }))
  }

  unmap(principalId: string): Promise<SourcePrincipal> {
    return unwrap(this.client.DELETE("/api/admin/source-principals/{principalId}/mapping", { params: { path: { principalId } } }))
  }

  groups(): Promise<Array<SourceGroup>> {
    return unwrap(this.client.GET("/api/admin/source-groups"))
  }

  connections(): Promise<Array<SourceConnection>> {
    return unwrap(this.client.GET("/api/admin/source-connections"))
  }

  setTrust(sourceSystem: string, sourceConnectionKey: string, identityTrust: IdentityTrust): Promise<SourceConnection> {
    return unwrap(this.client.PUT("/api/admin/source-connections/identity-trust", { body: { sourceSystem, sourceConnectionKey, identityTrust } }))
  }
}
