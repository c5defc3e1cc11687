import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ProblemError, UserDeactivated } from "../../domain/Errors"
import { Body, Query, Timestamp } from "../../domain/Schemas"
import { isPublic, requires } from "../../domain/Security"

export class SsoNotConfigured extends ProblemError<SsoNotConfigured>()("SsoNotConfigured", {
  status: 404, code: "SSO_NOT_CONFIGURED", description: "Single sign-on is not configured or not enabled for this organization"
}) {}
export class InvalidSsoSettings extends ProblemError<InvalidSsoSettings>()("InvalidSsoSettings", {
  status: 400, code: "INVALID_SSO_SETTINGS", description: "The single sign-on settings cannot be used (issuer, client id or secret)"
}) {}
export class SsoVersionConflict extends ProblemError<SsoVersionConflict>()("SsoVersionConflict", {
  status: 409, code: "SSO_VERSION_CONFLICT", description: "The single sign-on settings changed since the version sent"
}) {}
export class SsoStateInvalid extends ProblemError<SsoStateInvalid>()("SsoStateInvalid", {
  status: 400, code: "SSO_STATE_INVALID", description: "The sign-in's state is missing, wrong, used already or expired: start again"
}) {}
export class SsoCodeRejected extends ProblemError<SsoCodeRejected>()("SsoCodeRejected", {
  status: 401, code: "SSO_CODE_REJECTED", description: "The identity provider did not accept the authorization response (a replayed or invalid code)"
}) {}
export class SsoUserNotLinked extends ProblemError<SsoUserNotLinked>()("SsoUserNotLinked", {
  status: 403, code: "SSO_USER_NOT_LINKED", description: "No Lore user matches the signed-in identity (by verified email or provisioned externalId)"
}) {}
export class SsoProviderUnavailable extends ProblemError<SsoProviderUnavailable>()("SsoProviderUnavailable", {
  status: 503, code: "SSO_PROVIDER_UNAVAILABLE", description: "The identity provider could not be reached or answered unexpectedly"
}) {}

export const SsoSettings = Schema.Struct({
  enabled: Schema.Boolean,
  issuer: Schema.String,
  clientId: Schema.String,
  clientSecretSet: Schema.Boolean.annotations({ description: "Whether a client secret is stored; the secret is write-only and never returned" }),
  justInTimeCreation: Schema.Boolean.annotations({ description: "Create a Lore user for an unknown identity with a verified email" }),
  redirectPath: Schema.String.annotations({ description: "The callback to register at the identity provider, on this server's origin" }),
  version: Schema.Int,
  updatedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "SsoSettings" })

export const SetSsoSettings = Body({
  enabled: Schema.Boolean,
  issuer: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000)).annotations({ description: "The OpenID Connect issuer URL (https)" }),
  clientId: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)),
  clientSecret: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096))).annotations({ description: "Write-only; left out keeps the stored one" }),
  justInTimeCreation: Schema.optional(Schema.Boolean),
  version: Schema.Int.annotations({ description: "The version read (0 before the first save); a stale one is 409" })
}).annotations({ identifier: "SetSsoSettings" })

const StartQuery = Query({
  returnTo: Schema.optional(Schema.String.pipe(Schema.pattern(/^\/[^/\\]/), Schema.maxLength(2000))).annotations({ description: "A path on this server to land on afterwards" }),
  cliRedirect: Schema.optional(Schema.String.pipe(Schema.pattern(/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}\//), Schema.maxLength(2000))).annotations({
    description: "For `lore login --sso`: a loopback URL that receives a new personal access token instead of a cookie"
  })
})
const CallbackQuery = Query({
  code: Schema.optional(Schema.String),
  state: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String),
  error_description: Schema.optional(Schema.String),
  iss: Schema.optional(Schema.String),
  session_state: Schema.optional(Schema.String)
})

/** Single sign-on with OpenID Connect: the browser steps (both redirect) and their administration. */
export class SsoSessionApi extends HttpApiGroup.make("sso")
  .add(HttpApiEndpoint.get("startSso", "/session/sso/start")
    .setUrlParams(StartQuery)
    .addSuccess(HttpApiSchema.Empty(302))
    .addError(SsoNotConfigured)
    .addError(SsoProviderUnavailable)
    .addError(InvalidSsoSettings)
    .pipe(isPublic))
  .add(HttpApiEndpoint.get("ssoCallback", "/session/sso/callback")
    .setUrlParams(CallbackQuery)
    .addSuccess(HttpApiSchema.Empty(302))
    .addError(SsoNotConfigured)
    .addError(SsoStateInvalid)
    .addError(SsoCodeRejected)
    .addError(SsoUserNotLinked)
    .addError(UserDeactivated)
    .addError(SsoProviderUnavailable)
    .addError(InvalidSsoSettings)
    .pipe(isPublic))
  .annotate(OpenApi.Title, "Single sign-on")
  .annotate(OpenApi.Description, "OpenID Connect sign-in (authorization code with PKCE): start redirects to the identity provider, its callback sets the session cookie") {}

export class SsoAdminApi extends HttpApiGroup.make("adminSso")
  .add(HttpApiEndpoint.get("getSsoSettings", "/admin/sso").addSuccess(SsoSettings).pipe(requires("provisioning.manage")))
  .add(HttpApiEndpoint.put("setSsoSettings", "/admin/sso")
    .setPayload(SetSsoSettings)
    .addSuccess(SsoSettings)
    .addError(InvalidSsoSettings)
    .addError(SsoVersionConflict)
    .pipe(requires("provisioning.manage")))
  .annotate(OpenApi.Title, "Administration: single sign-on")
  .annotate(OpenApi.Description, "The organization's OpenID Connect provider; the client secret is write-only") {}
