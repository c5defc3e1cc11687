import type { LoreFetchClient } from "../fetchClient"
import { unwrap, unwrapEmpty } from "../response"
import type { BulkPush, BulkPushResult, PushedDocument, PushedDocumentPage, PushedDocumentRef, PushedGroup, PushResult, SourceGroup } from "../generated/openapi"

/**
 * The indexing API of PUSH connections: a pusher (a CI job, a script) sends the connection's credential (not
 * a user token) as `Authorization: Bearer` on each call; documents and groups are idempotent by external id.
 */
export class IndexingArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** MATERIALIZED, ROTATED, REMATERIALIZED (ACL or classification only) or UNCHANGED; 401 for a wrong credential. */
  push(sourceSystem: string, connectionKey: string, externalId: string, document: PushedDocument, credential: string): Promise<PushResult> {
    return unwrap(this.client.PUT("/api/indexing/{sourceSystem}/{connectionKey}/documents/{externalId}", {
      params: { path: { sourceSystem, connectionKey, externalId } }, headers: bearer(credential), body: document
    }))
  }

  /** One page of the connection's live documents in external-id order; pass `nextCursor` back for the next. */
  list(sourceSystem: string, connectionKey: string, credential: string, query: { cursor?: string; limit?: number } = {}): Promise<PushedDocumentPage> {
    return unwrap(this.client.GET("/api/indexing/{sourceSystem}/{connectionKey}/documents", {
      params: { path: { sourceSystem, connectionKey }, query }, headers: bearer(credential)
    }))
  }

  /** Every live document of the connection, fetching pages lazily: what a pusher compares with its own list. */
  async *all(sourceSystem: string, connectionKey: string, credential: string, limit = 1000): AsyncGenerator<PushedDocumentRef, void, undefined> {
    let cursor: string | undefined
    for (;;) {
      const page = await this.list(sourceSystem, connectionKey, credential, { limit, ...(cursor ? { cursor } : {}) })
      yield* page.items
      if (!page.nextCursor) return
      cursor = page.nextCursor
    }
  }

  /** Retires the document. */
  delete(sourceSystem: string, connectionKey: string, externalId: string, credential: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/indexing/{sourceSystem}/{connectionKey}/documents/{externalId}", {
      params: { path: { sourceSystem, connectionKey, externalId } }, headers: bearer(credential)
    }))
  }

  /** Up to 500 documents and 500 deletes; per-document failures are listed, not thrown. */
  bulk(sourceSystem: string, connectionKey: string, body: BulkPush, credential: string): Promise<BulkPushResult> {
    return unwrap(this.client.POST("/api/indexing/{sourceSystem}/{connectionKey}/documents:bulk", {
      params: { path: { sourceSystem, connectionKey } }, headers: bearer(credential), body
    }))
  }

  /** Replaces the group's whole membership. */
  pushGroup(sourceSystem: string, connectionKey: string, externalGroupId: string, group: PushedGroup, credential: string): Promise<SourceGroup> {
    return unwrap(this.client.PUT("/api/indexing/{sourceSystem}/{connectionKey}/groups/{externalGroupId}", {
      params: { path: { sourceSystem, connectionKey, externalGroupId } }, headers: bearer(credential), body: group
    }))
  }
}

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` })
