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
export type IssuedAccessToken = operations["me.createToken"]["responses"][201]["content"]["application/json"]
export type OrganizationContext = Schemas["OrganizationContext"]
export type Department = OrganizationContext["departments"][number]
export type OrganizationUser = OrganizationContext["users"][number]
export type KnowledgeSpaceRef = Schemas["KnowledgeSpaceRef"]
export type UserRole = Me["role"]
export type Clearance = Me["clearance"]
export type PlatformRole = Me["platformRoles"][number]
