import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { IntegerParam, Query, Timestamp } from "../domain/Schemas"
import { InvalidCursor } from "../domain/Errors"
import { requires } from "../domain/Security"

export const AuditEvent = Schema.Struct({
  id: Schema.UUID,
  actorUserId: Schema.NullOr(Schema.UUID),
  actorEmail: Schema.NullOr(Schema.String),
  action: Schema.String,
  resourceType: Schema.String,
  resourceId: Schema.NullOr(Schema.String),
  resourceLabel: Schema.NullOr(Schema.String).annotations({
    description: "The resource's label (a document's title, a user's email) when the reader may see that resource; null when they may not, or it is gone"
  }),
  requestId: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  occurredAt: Timestamp
}).annotations({ identifier: "AuditEvent" })

export const AuditPage = Schema.Struct({
  items: Schema.Array(AuditEvent),
  nextCursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "AuditPage" })

export const AuditQuery = Query({
  actorUserId: Schema.optional(Schema.UUID),
  resourceType: Schema.optional(Schema.String),
  resourceId: Schema.optional(Schema.String),
  since: Schema.optional(Timestamp),
  until: Schema.optional(Timestamp),
  cursor: Schema.optional(Schema.String),
  pageSize: Schema.optional(IntegerParam(1, 200))
})

export class AuditApi extends HttpApiGroup.make("adminAudit")
  .add(
    HttpApiEndpoint.get("listAuditEvents", "/admin/audit")
      .setUrlParams(AuditQuery)
      .addSuccess(AuditPage)
      .addError(InvalidCursor)
      .pipe(requires("audit.read"))
  )
  .annotate(OpenApi.Title, "Administration: audit")
  .annotate(OpenApi.Description, "Who did what, when, to which resource, with the request id; newest first, cursor paged") {}
