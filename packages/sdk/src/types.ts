import type { components, operations } from "./generated/openapi"

/** Names for the API's schemas, so callers never spell `components["schemas"][...]`. */
type Schemas = components["schemas"]

export type { Problem, FieldError } from "./errors"
export type Health = Schemas["Health"]
export type Session = Schemas["Session"]
export type SignIn = Schemas["SignIn"]
export type CsrfToken = Schemas["CsrfToken"]
export type Me = Schemas["Me"]
export type AccessToken = Schemas["AccessToken"]
export type CreateAccessToken = Schemas["CreateAccessToken"]
/** A new token: an AccessToken plus the secret `token`, which the server shows only in this response. */
export type IssuedAccessToken = Schemas["IssuedAccessToken"]
export type OrganizationContext = Schemas["OrganizationContext"]
/** A department as every member sees it (organization context); `Department` is the administrator's view. */
export type DepartmentRef = OrganizationContext["departments"][number]
export type OrganizationUser = OrganizationContext["users"][number]
export type KnowledgeSpaceRef = Schemas["KnowledgeSpaceRef"]
export type UserRole = Me["role"]
export type Clearance = Me["clearance"]
export type PlatformRole = Me["platformRoles"][number]

// Administration
export type AdminUser = Schemas["AdminUser"]
export type UpdateUser = Schemas["UpdateUser"]
export type UserPermissions = Schemas["UserPermissions"]
export type PermissionState = UserPermissions["permissions"][string]
export type RoleList = Schemas["RoleList"]
export type RoleAssignment = RoleList["roles"][number]
export type Department = Schemas["Department"]
export type Invitation = Schemas["Invitation"]
export type InvitationStatus = Invitation["status"]
export type CreateInvitation = Schemas["CreateInvitation"]
/** A new invitation: an Invitation plus the secret `invitationCode`, shown only in this response. */
export type IssuedInvitation = operations["adminUsers.createInvitation"]["responses"][201]["content"]["application/json"]
export type AcceptInvitation = Schemas["AcceptInvitation"]
/** The new user and their first personal access token (secret shown once). */
export type AcceptedInvitation = operations["invitations.acceptInvitation"]["responses"][201]["content"]["application/json"]
export type AdminKnowledgeSpace = Schemas["AdminKnowledgeSpace"]
export type CreateKnowledgeSpace = Schemas["CreateKnowledgeSpace"]
export type SpaceGrant = Schemas["SpaceGrant"]
export type GrantOption = Schemas["GrantOption"]
export type Grant = Schemas["AddGrant"]
export type GrantRelation = Grant["relation"]
export type GrantKind = Grant["kind"]
export type ExplainRequest = Schemas["ExplainRequest"]
export type AccessExplanation = Schemas["AccessExplanation"]
export type ResourceType = ExplainRequest["resourceType"]
export type AuditEvent = Schemas["AuditEvent"]
export type AuditPage = Schemas["AuditPage"]
/** Filters of the audit log; `since`/`until` are ISO 8601 strings or Dates. */
export interface AuditQuery {
  readonly actorUserId?: string | undefined
  readonly resourceType?: string | undefined
  readonly resourceId?: string | undefined
  readonly since?: string | Date | undefined
  readonly until?: string | Date | undefined
  readonly cursor?: string | undefined
  readonly pageSize?: number | undefined
}

// Knowledge
export type Classification = Schemas["Source"]["classification"]
export type Source = Schemas["Source"]
/** PROCESSING, READY, ATTENTION; DELETING while a deletion is being purged. */
export type SourceStatus = "PROCESSING" | "READY" | "ATTENTION" | "DELETING"
export type SourcePage = Schemas["SourcePage"]
export type SourceDeletion = Schemas["SourceDeletion"]
/** Filters of `lore.sources.list`; `pageSize` 1..200 (default 25). */
export interface SourceQuery {
  readonly knowledgeSpaceId?: string | undefined
  readonly classification?: Classification | undefined
  readonly status?: Exclude<SourceStatus, "DELETING"> | undefined
  /** Matches titles and file names. */
  readonly q?: string | undefined
  readonly cursor?: string | undefined
  readonly pageSize?: number | undefined
}
export type Evidence = Schemas["Evidence"]
export type SearchResult = Schemas["SearchResult"]
export interface SearchQuery {
  readonly q: string
  readonly knowledgeSpaceId?: string | undefined
  readonly classification?: Classification | undefined
  /** 1..50 */
  readonly limit?: number | undefined
}
export type CatalogEntry = Schemas["CatalogEntry"]
export interface CatalogQuery {
  readonly knowledgeSpaceId?: string | undefined
  readonly classification?: Classification | undefined
}
export type CitationExcerpt = Schemas["CitationExcerpt"]
