import { ProblemError } from "../domain/Errors"

export class ProvisioningConnectionNotFound extends ProblemError<ProvisioningConnectionNotFound>()("ProvisioningConnectionNotFound", {
  status: 404, code: "PROVISIONING_CONNECTION_NOT_FOUND", description: "No provisioning connection with this id in the organization"
}) {}

export class ProvisioningCredentialNotFound extends ProblemError<ProvisioningCredentialNotFound>()("ProvisioningCredentialNotFound", {
  status: 404, code: "PROVISIONING_CREDENTIAL_NOT_FOUND", description: "The connection has no credential with this id"
}) {}

export class ProvisioningAliasTaken extends ProblemError<ProvisioningAliasTaken>()("ProvisioningAliasTaken", {
  status: 409, code: "PROVISIONING_ALIAS_TAKEN", description: "A provisioning connection with this alias exists already"
}) {}

export class ProvisioningVersionConflict extends ProblemError<ProvisioningVersionConflict>()("ProvisioningVersionConflict", {
  status: 409, code: "VERSION_CONFLICT", description: "The connection changed since the version sent; read it again and retry"
}) {}

export class ProvisioningCredentialRevoked extends ProblemError<ProvisioningCredentialRevoked>()("ProvisioningCredentialRevoked", {
  status: 409, code: "PROVISIONING_CREDENTIAL_REVOKED", description: "The credential is revoked, expired or already replaced, so it cannot be rotated"
}) {}

export class InvalidProvisioningCredential extends ProblemError<InvalidProvisioningCredential>()("InvalidProvisioningCredential", {
  status: 400, code: "INVALID_PROVISIONING_CREDENTIAL", description: "A credential needs usersScope or groupsScope"
}) {}
