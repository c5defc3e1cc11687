import { ProblemError } from "../domain/Errors"

export class ConnectorKindNotFound extends ProblemError<ConnectorKindNotFound>()("ConnectorKindNotFound", {
  status: 404, code: "CONNECTOR_KIND_NOT_FOUND", description: "No connector kind with this sourceSystem (GET /api/admin/connectors/sources lists them)"
}) {}

export class ConnectionNotFound extends ProblemError<ConnectionNotFound>()("ConnectionNotFound", {
  status: 404, code: "CONNECTION_NOT_FOUND", description: "No connection of this kind with this key in the organization"
}) {}

export class InvalidConnectorConfig extends ProblemError<InvalidConnectorConfig>()("InvalidConnectorConfig", {
  status: 422, code: "INVALID_CONNECTOR_CONFIG", description: "The connection's configuration breaks its kind's rules; errors[] names each field (never echoing a credential)"
}) {}

export class InvalidConnectorCredential extends ProblemError<InvalidConnectorCredential>()("InvalidConnectorCredential", {
  status: 422, code: "INVALID_CONNECTOR_CREDENTIAL", description: "The credential has the wrong shape for this kind; the value is never echoed"
}) {}

export class ReservedConnectionKey extends ProblemError<ReservedConnectionKey>()("ReservedConnectionKey", {
  status: 422, code: "RESERVED_CONNECTION_KEY", description: "The connection keys `sources` and `test` are reserved"
}) {}

export class CrawlRunning extends ProblemError<CrawlRunning>()("CrawlRunning", {
  status: 409, code: "CRAWL_RUNNING", description: "A crawl of this connection is queued or running; wait for it to finish"
}) {}

export class SourcePrincipalNotFound extends ProblemError<SourcePrincipalNotFound>()("SourcePrincipalNotFound", {
  status: 404, code: "SOURCE_PRINCIPAL_NOT_FOUND", description: "No source principal with this id in the organization"
}) {}

export class MappingUserNotFound extends ProblemError<MappingUserNotFound>()("MappingUserNotFound", {
  status: 422, code: "MAPPING_USER_NOT_FOUND", description: "appUserId names no active user of the organization"
}) {}

export class IndexingUnauthorized extends ProblemError<IndexingUnauthorized>()("IndexingUnauthorized", {
  status: 401, code: "INDEXING_UNAUTHORIZED", description: "The bearer credential is missing or is not this connection's credential"
}) {}

export class InvalidPushedDocument extends ProblemError<InvalidPushedDocument>()("InvalidPushedDocument", {
  status: 422, code: "INVALID_PUSHED_DOCUMENT", description: "The pushed document cannot be indexed (empty, unsupported type, too large); errors[] names each field"
}) {}
