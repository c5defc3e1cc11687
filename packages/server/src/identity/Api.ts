import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Clearance, PlatformRole, UserRole } from "../domain/Model"
import { InvalidToken, UserDeactivated } from "../domain/Errors"
import { authenticated, isPublic, optionallyAuthenticated } from "../domain/Security"
import { Body, created, Timestamp } from "../domain/Schemas"
import { TokenNotFound } from "./Errors"

export const Session = Schema.Struct({
  authenticated: Schema.Boolean,
  name: Schema.optional(Schema.String),
  email: Schema.optional(Schema.String),
  userId: Schema.optional(Schema.UUID),
  organizationId: Schema.optional(Schema.UUID),
  departmentId: Schema.optional(Schema.UUID),
  role: Schema.optional(UserRole),
  clearance: Schema.optional(Clearance),
  platformRoles: Schema.optional(Schema.Array(PlatformRole)),
  canManageMembers: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "Session" })

export const CsrfToken = Schema.Struct({
  headerName: Schema.String,
  parameterName: Schema.String,
  token: Schema.String
}).annotations({ identifier: "CsrfToken" })

export const Me = Schema.Struct({
  authenticated: Schema.Boolean,
  subject: Schema.String,
  authorizationProvider: Schema.String,
  userId: Schema.UUID,
  organizationId: Schema.UUID,
  departmentId: Schema.UUID,
  departmentName: Schema.String,
  name: Schema.String,
  email: Schema.String,
  role: UserRole,
  clearance: Clearance,
  platformRoles: Schema.Array(PlatformRole)
}).annotations({ identifier: "Me" })

export const OrganizationContext = Schema.Struct({
  organizationId: Schema.UUID,
  departments: Schema.Array(Schema.Struct({ id: Schema.UUID, organizationId: Schema.UUID, name: Schema.String })),
  users: Schema.Array(
    Schema.Struct({
      id: Schema.UUID,
      organizationId: Schema.UUID,
      departmentId: Schema.UUID,
      name: Schema.String,
      email: Schema.String,
      role: UserRole,
      clearance: Clearance
    })
  )
}).annotations({ identifier: "OrganizationContext" })

export const AccessToken = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  tokenPrefix: Schema.String.annotations({ description: "The first characters of the token, to recognize it" }),
  status: Schema.Literal("ACTIVE", "EXPIRED", "REVOKED").annotations({ identifier: "AccessTokenStatus" }),
  createdAt: Timestamp,
  expiresAt: Schema.NullOr(Timestamp),
  lastUsedAt: Schema.NullOr(Timestamp),
  revokedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "AccessToken" })

export const IssuedAccessToken = Schema.Struct({
  ...AccessToken.fields,
  token: Schema.String.annotations({ description: "The secret token; shown only in this response" })
}).annotations({ identifier: "IssuedAccessToken" })

export const CreateAccessToken = Body({
  name: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(100)),
  expiresInDays: Schema.optional(
    Schema.NullOr(Schema.Int.pipe(Schema.between(1, 3650))).annotations({
      description: "Days until the token expires (default 90); null for a token that never expires"
    })
  )
}).annotations({ identifier: "CreateAccessToken" })

export const SignIn = Body({
  token: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "A personal access token to exchange for a session cookie" })
}).annotations({ identifier: "SignIn" })

export class SessionApi extends HttpApiGroup.make("session")
  .add(HttpApiEndpoint.get("getSession", "/session").addSuccess(Session).pipe(optionallyAuthenticated))
  .add(
    HttpApiEndpoint.post("signIn", "/session")
      .setPayload(SignIn)
      .addSuccess(created(Session))
      .addError(InvalidToken)
      .addError(UserDeactivated)
      .pipe(isPublic)
  )
  .add(HttpApiEndpoint.del("signOut", "/session").addSuccess(HttpApiSchema.NoContent).pipe(authenticated))
  .add(HttpApiEndpoint.get("getCsrfToken", "/session/csrf").addSuccess(CsrfToken).pipe(optionallyAuthenticated))
  .annotate(OpenApi.Title, "Session")
  .annotate(OpenApi.Description, "Browser sessions (cookie) and their CSRF token") {}

export class MeApi extends HttpApiGroup.make("me")
  .add(HttpApiEndpoint.get("getMe", "/me").addSuccess(Me).pipe(authenticated))
  .add(HttpApiEndpoint.get("listTokens", "/me/tokens").addSuccess(Schema.Array(AccessToken)).pipe(authenticated))
  .add(HttpApiEndpoint.post("createToken", "/me/tokens").setPayload(CreateAccessToken).addSuccess(created(IssuedAccessToken)).pipe(authenticated))
  .add(
    HttpApiEndpoint.del("revokeToken", "/me/tokens/:tokenId")
      .setPath(Schema.Struct({ tokenId: Schema.UUID }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(TokenNotFound)
      .pipe(authenticated)
  )
  .add(HttpApiEndpoint.get("getOrganizationContext", "/organization/context").addSuccess(OrganizationContext).pipe(authenticated))
  .annotate(OpenApi.Title, "Me")
  .annotate(OpenApi.Description, "The caller, their personal access tokens and their organization") {}
