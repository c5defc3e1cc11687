import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Clearance, UserRole } from "../domain/Model"
import { Body, created, Timestamp } from "../domain/Schemas"
import { requires } from "../domain/Security"
import {
  InvalidProvisioningCredential, ProvisioningAliasTaken, ProvisioningConnectionNotFound, ProvisioningCredentialNotFound,
  ProvisioningCredentialRevoked, ProvisioningVersionConflict
} from "./Errors"

export const ProviderProfile = Schema.Literal("GENERIC_SCIM", "OKTA", "ENTRA_ID", "GOOGLE", "KEYCLOAK").annotations({ identifier: "ProvisioningProviderProfile" })
export type ProviderProfile = typeof ProviderProfile.Type

/**
 * DISABLED (new connections; its tokens get 403), ENABLED (SCIM requests are served), PAUSED (the provider is
 * told to retry: 503). Any state may move to any other by an administrator.
 */
export const OperationalState = Schema.Literal("DISABLED", "ENABLED", "PAUSED").annotations({ identifier: "ProvisioningOperationalState" })
export type OperationalState = typeof OperationalState.Type

export const ProvisioningConnection = Schema.Struct({
  id: Schema.UUID,
  alias: Schema.String,
  providerProfile: ProviderProfile,
  configurationStatus: Schema.String.annotations({ description: "NEEDS_CREDENTIAL until a live credential exists, then CONFIGURED" }),
  operationalState: OperationalState,
  usersEnabled: Schema.Boolean,
  groupsEnabled: Schema.Boolean,
  defaultRole: UserRole.annotations({ description: "The role given to the users it provisions (added)" }),
  defaultClearance: Clearance.annotations({ description: "The clearance given to the users it provisions (added)" }),
  linkExistingUsers: Schema.Boolean.annotations({
    description: "Whether SCIM may take over an existing Lore user with the same email that no connection provisioned (never an ADMIN or ORG_ADMIN); false: such a user is 409 uniqueness (added)"
  }),
  scimBaseUrl: Schema.String.annotations({ description: "Where the identity provider sends SCIM requests: /scim/v2 on this server (added)" }),
  version: Schema.Int
}).annotations({ identifier: "ProvisioningConnection" })

export const ProvisioningCredential = Schema.Struct({
  id: Schema.UUID,
  publicTokenId: Schema.String,
  verifierKeyVersion: Schema.Int,
  usersScope: Schema.Boolean,
  groupsScope: Schema.Boolean,
  expiresAt: Timestamp,
  overlapEndsAt: Schema.NullOr(Timestamp).annotations({ description: "Set when the credential was rotated: it works until then" }),
  revokedAt: Schema.NullOr(Timestamp),
  lastUsedAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp
}).annotations({ identifier: "ProvisioningCredential" })

export const IssuedCredential = Schema.Struct({
  credentialId: Schema.UUID,
  token: Schema.String.annotations({ description: "The bearer token for /scim/v2, shown once (never again)" }),
  publicTokenId: Schema.String,
  usersScope: Schema.Boolean,
  groupsScope: Schema.Boolean,
  expiresAt: Timestamp,
  replacesCredentialId: Schema.NullOr(Schema.UUID).annotations({ description: "On rotation: the credential this one replaces (added)" }),
  overlapEndsAt: Schema.NullOr(Timestamp).annotations({ description: "On rotation: when the replaced credential stops working (added)" })
}).annotations({ identifier: "IssuedCredential" })

const Alias = Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(100))
const ExpiresInDays = Schema.Int.pipe(Schema.between(1, 3650)).annotations({ description: "Days until the credential expires (default 365)" })

const LinkExistingUsers = Schema.Boolean.annotations({
  description: "Let SCIM take over existing Lore users with the same email that no connection provisioned, administrators never (default false)"
})

export const CreateProvisioningConnection = Body({
  alias: Alias,
  providerProfile: ProviderProfile,
  usersEnabled: Schema.Boolean,
  groupsEnabled: Schema.Boolean,
  defaultRole: Schema.optional(UserRole),
  defaultClearance: Schema.optional(Clearance),
  linkExistingUsers: Schema.optional(LinkExistingUsers)
}).annotations({ identifier: "CreateProvisioningConnection" })

export const SetProvisioningState = Body({
  operationalState: OperationalState,
  linkExistingUsers: Schema.optional(LinkExistingUsers.annotations({ description: "Changes linkExistingUsers when given; unchanged otherwise" })),
  version: Schema.Int.annotations({ description: "The version read; a stale one is 409 VERSION_CONFLICT" })
}).annotations({ identifier: "SetProvisioningState" })

export const CreateProvisioningCredential = Body({
  usersScope: Schema.Boolean,
  groupsScope: Schema.Boolean,
  expiresInDays: Schema.optional(ExpiresInDays)
}).annotations({ identifier: "CreateProvisioningCredential" })

export const RotateProvisioningCredential = Body({
  overlapSeconds: Schema.optional(Schema.Int.pipe(Schema.between(0, 30 * 24 * 3600))).annotations({
    description: "How long the replaced credential keeps working (default 86400: 24 hours)"
  }),
  expiresInDays: Schema.optional(ExpiresInDays)
}).annotations({ identifier: "RotateProvisioningCredential" })

const ConnectionPath = Schema.Struct({ connectionId: Schema.UUID })
const CredentialPath = Schema.Struct({ connectionId: Schema.UUID, credentialId: Schema.UUID })

/** Provisioning connections (SCIM clients such as Okta or Entra ID) and the tokens they call /scim/v2 with. */
export class ProvisioningAdminApi extends HttpApiGroup.make("adminProvisioning")
  .add(HttpApiEndpoint.get("listProvisioningConnections", "/admin/provisioning/connections")
    .addSuccess(Schema.Array(ProvisioningConnection)).pipe(requires("provisioning.manage")))
  .add(HttpApiEndpoint.post("createProvisioningConnection", "/admin/provisioning/connections")
    .setPayload(CreateProvisioningConnection)
    .addSuccess(created(ProvisioningConnection))
    .addError(ProvisioningAliasTaken)
    .pipe(requires("provisioning.manage")))
  .add(HttpApiEndpoint.patch("setProvisioningState", "/admin/provisioning/connections/:connectionId/state")
    .setPath(ConnectionPath)
    .setPayload(SetProvisioningState)
    .addSuccess(ProvisioningConnection)
    .addError(ProvisioningConnectionNotFound)
    .addError(ProvisioningVersionConflict)
    .pipe(requires("provisioning.manage")))
  .add(HttpApiEndpoint.get("listProvisioningCredentials", "/admin/provisioning/connections/:connectionId/credentials")
    .setPath(ConnectionPath)
    .addSuccess(Schema.Array(ProvisioningCredential))
    .addError(ProvisioningConnectionNotFound)
    .pipe(requires("provisioning.manage")))
  .add(HttpApiEndpoint.post("createProvisioningCredential", "/admin/provisioning/connections/:connectionId/credentials")
    .setPath(ConnectionPath)
    .setPayload(CreateProvisioningCredential)
    .addSuccess(created(IssuedCredential))
    .addError(ProvisioningConnectionNotFound)
    .addError(InvalidProvisioningCredential)
    .pipe(requires("provisioning.manage")))
  .add(HttpApiEndpoint.post("rotateProvisioningCredential", "/admin/provisioning/connections/:connectionId/credentials/:credentialId/rotate")
    .setPath(CredentialPath)
    .setPayload(RotateProvisioningCredential)
    .addSuccess(created(IssuedCredential))
    .addError(ProvisioningConnectionNotFound)
    .addError(ProvisioningCredentialNotFound)
    .addError(ProvisioningCredentialRevoked)
    .pipe(requires("provisioning.manage")))
  .add(HttpApiEndpoint.del("revokeProvisioningCredential", "/admin/provisioning/connections/:connectionId/credentials/:credentialId")
    .setPath(CredentialPath)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(ProvisioningConnectionNotFound)
    .addError(ProvisioningCredentialNotFound)
    .pipe(requires("provisioning.manage")))
  .annotate(OpenApi.Title, "Provisioning")
  .annotate(OpenApi.Description, "SCIM 2.0 provisioning connections and their credentials; SCIM itself is served at /scim/v2") {}

