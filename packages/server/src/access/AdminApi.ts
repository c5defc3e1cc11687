import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { DepartmentNotFound, UserNotFound } from "../domain/Errors"
import { AccessState, Classification, GrantKind, SpaceRelation } from "../domain/Model"
import { Body, created, Query, Timestamp } from "../domain/Schemas"
import { requires } from "../domain/Security"
import { GrantNotFound, InvalidGrant, KnowledgeSpaceKeyTaken, KnowledgeSpaceNotFound, LastSpaceManager, ResourceNotFound } from "./Errors"

export const SpaceGrant = Schema.Struct({
  relation: SpaceRelation,
  subject: Schema.String.annotations({ description: "KIND or KIND:subjectId or ROLE:role, e.g. DEPARTMENT:<uuid>" }),
  kind: GrantKind,
  subjectId: Schema.NullOr(Schema.UUID),
  role: Schema.NullOr(Schema.String),
  subjectLabel: Schema.String,
  effective: Schema.Boolean.annotations({ description: "False when the subject no longer exists or is inactive" })
}).annotations({ identifier: "SpaceGrant" })

export const AdminKnowledgeSpace = Schema.Struct({
  id: Schema.UUID,
  key: Schema.String,
  name: Schema.String,
  audienceMode: Schema.Literal("ORGANIZATION", "DEPARTMENT", "RESTRICTED", "NONE").annotations({ identifier: "AudienceMode" }),
  audienceVersion: Schema.Int,
  departmentId: Schema.NullOr(Schema.UUID),
  active: Schema.Boolean,
  grants: Schema.Array(SpaceGrant),
  grantsComplete: Schema.Boolean,
  policyVersion: Schema.String
}).annotations({ identifier: "AdminKnowledgeSpace" })

export const CreateKnowledgeSpace = Body({
  key: Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9-]{0,62}$/)).annotations({ description: "lowercase letters, digits and dashes" }),
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200)),
  departmentId: Schema.optional(Schema.NullOr(Schema.UUID))
}).annotations({ identifier: "CreateKnowledgeSpace" })

export const GrantOption = Schema.Struct({
  relation: SpaceRelation,
  kinds: Schema.Array(GrantKind),
  roles: Schema.Array(Schema.String)
}).annotations({ identifier: "GrantOption" })

export const AddGrant = Body({
  relation: SpaceRelation,
  kind: GrantKind,
  subjectId: Schema.optional(Schema.UUID),
  role: Schema.optional(Schema.String)
}).annotations({ identifier: "AddGrant" })

export const RemoveGrantQuery = Query({
  relation: SpaceRelation,
  kind: GrantKind,
  subjectId: Schema.optional(Schema.UUID),
  role: Schema.optional(Schema.String)
})

export const ResourceType = Schema.Literal("KNOWLEDGE_SPACE", "KNOWLEDGE_ASSET", "SOURCE", "ASSET").annotations({ identifier: "ResourceType" })
export const ExplainRequest = Body({
  userId: Schema.UUID,
  resourceType: ResourceType,
  resourceId: Schema.UUID,
  relation: Schema.optionalWith(SpaceRelation, { default: () => "viewer" as const })
}).annotations({ identifier: "ExplainRequest" })

export const AccessExplanation = Schema.Struct({
  state: AccessState,
  reasonCode: Schema.String,
  path: Schema.Array(Schema.Struct({
    object: Schema.String,
    objectType: Schema.optional(Schema.String),
    objectLabel: Schema.optional(Schema.String),
    relation: Schema.String,
    kind: Schema.String
  })),
  blockedBy: Schema.Array(Schema.Struct({ branch: Schema.String, kind: Schema.String, detail: Schema.String })),
  provenance: Schema.Struct({
    authority: Schema.String,
    origin: Schema.String,
    generation: Schema.Int,
    capturedAt: Timestamp,
    expired: Schema.Boolean
  }),
  evaluationKind: Schema.String,
  relationshipState: AccessState,
  relationshipReasonCode: Schema.String,
  contentPolicyState: AccessState,
  contentPolicyReasonCode: Schema.String,
  resource: Schema.Struct({
    id: Schema.UUID,
    type: ResourceType,
    label: Schema.String.annotations({ description: "The resource's title or name, or \"(hidden)\" when the caller may not read the resource themselves" }),
    labelHidden: Schema.Boolean.annotations({ description: "True when label is withheld because the caller may not read the resource themselves. contextLabel and the path's objectLabel are withheld likewise where the caller may not see the knowledge space" }),
    contextLabel: Schema.String,
    classification: Schema.NullOr(Classification)
  }),
  policyVersion: Schema.String,
  evaluatedAt: Timestamp
}).annotations({ identifier: "AccessExplanation" })

const SpacePath = Schema.Struct({ knowledgeSpaceId: Schema.UUID })

export class AccessAdminApi extends HttpApiGroup.make("adminAccess")
  .add(HttpApiEndpoint.get("listKnowledgeSpaces", "/admin/knowledge-spaces").addSuccess(Schema.Array(AdminKnowledgeSpace)).pipe(requires("spaces.read")))
  .add(
    HttpApiEndpoint.post("createKnowledgeSpace", "/admin/knowledge-spaces")
      .setPayload(CreateKnowledgeSpace)
      .addSuccess(created(AdminKnowledgeSpace))
      .addError(KnowledgeSpaceKeyTaken)
      .addError(DepartmentNotFound)
      .pipe(requires("spaces.manage"))
  )
  .add(
    HttpApiEndpoint.del("deleteKnowledgeSpace", "/admin/knowledge-spaces/:knowledgeSpaceId")
      .setPath(SpacePath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(KnowledgeSpaceNotFound)
      .pipe(requires("spaces.manage"))
  )
  .add(HttpApiEndpoint.get("listGrantOptions", "/admin/knowledge-spaces/grant-options").addSuccess(Schema.Array(GrantOption)).pipe(requires("spaces.read")))
  .add(
    HttpApiEndpoint.post("addGrant", "/admin/knowledge-spaces/:knowledgeSpaceId/grants")
      .setPath(SpacePath)
      .setPayload(AddGrant)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(KnowledgeSpaceNotFound)
      .addError(InvalidGrant)
      .addError(DepartmentNotFound)
      .addError(UserNotFound)
      .pipe(requires("grants.manage"))
  )
  .add(
    HttpApiEndpoint.del("removeGrant", "/admin/knowledge-spaces/:knowledgeSpaceId/grants")
      .setPath(SpacePath)
      .setUrlParams(RemoveGrantQuery)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(KnowledgeSpaceNotFound)
      .addError(GrantNotFound)
      .addError(LastSpaceManager)
      .pipe(requires("grants.manage"))
  )
  .add(
    HttpApiEndpoint.post("explainAccess", "/admin/access/explain")
      .setPayload(ExplainRequest)
      .addSuccess(AccessExplanation)
      .addError(UserNotFound)
      .addError(ResourceNotFound)
      .pipe(requires("access.explain"))
  )
  .annotate(OpenApi.Title, "Administration: access")
  .annotate(OpenApi.Description, "Knowledge spaces, their grants, and explanations of access decisions") {}
