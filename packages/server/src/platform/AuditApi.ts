import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { RequiredPermission } from "../access/Permissions"
import { BadRequest, Forbidden } from "../http/Problem"
import { Authentication } from "../http/Security"

export const AuditEvent = Schema.Struct({
  id: Schema.UUID,
  actorUserId: Schema.NullOr(Schema.UUID),
  actorEmail: Schema.NullOr(Schema.String),
  action: Schema.String,
  resourceType: Schema.String,
  resourceId: Schema.NullOr(Schema.String),
  requestId: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  occurredAt: Schema.Date
}).annotations({ identifier: "AuditEvent" })

export const AuditPage = Schema.Struct({
  items: Schema.Array(AuditEvent),
  nextCursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "AuditPage" })

export const AuditQuery = Schema.Struct({
  actorUserId: Schema.optional(Schema.UUID),
  resourceType: Schema.optional(Schema.String),
  resourceId: Schema.optional(Schema.String),
  since: Schema.optional(Schema.Date),
  until: Schema.optional(Schema.Date),
  cursor: Schema.optional(Schema.String),
  pageSize: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 200)))
})

export class AuditApi extends HttpApiGroup.make("adminAudit")
  .add(HttpApiEndpoint.get("listAuditEvents", "/admin/audit").setUrlParams(AuditQuery).addSuccess(AuditPage).annotate(RequiredPermission, "audit.read"))
  .addError(BadRequest)
  .addError(Forbidden)
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Administration: audit")
  .annotate(OpenApi.Description, "Who did what, when, to which resource, with the request id; newest first, cursor paged") {}
