import type { LoreFetchClient } from "../../fetchClient"
import { unwrap, unwrapEmpty } from "../../response"
import type {
  CreateProvisioningConnection,
  CreateProvisioningCredential,
  IssuedCredential,
  ProvisioningConnection,
  ProvisioningCredential,
  ProvisioningOperationalState,
  RotateProvisioningCredential
} from "../../generated/openapi"

/**
 * Provisioning (`provisioning.manage`): the SCIM connections an identity provider (Okta, Entra ID, ...) uses,
 * and their tokens. A new connection starts DISABLED: create it, enable it with `setState`, then `issue` a
 * credential and give its token (shown once) to the identity provider with the SCIM base URL `/scim/v2`.
 */
export class AdminProvisioningArea {
  constructor(private readonly client: LoreFetchClient) {}

  connections(): Promise<Array<ProvisioningConnection>> {
    return unwrap(this.client.GET("/api/admin/provisioning/connections"))
  }

  createConnection(input: CreateProvisioningConnection): Promise<ProvisioningConnection> {
    return unwrap(this.client.POST("/api/admin/provisioning/connections", { body: input }))
  }

  /**
   * `version` is the one read: 409 VERSION_CONFLICT when the connection changed since. `linkExistingUsers`, when
   * given, changes whether SCIM may take over existing (non-administrator) users with the same email.
   */
  setState(
    connectionId: string, operationalState: ProvisioningOperationalState, version: number, options: { readonly linkExistingUsers?: boolean } = {}
  ): Promise<ProvisioningConnection> {
    return unwrap(this.client.PATCH("/api/admin/provisioning/connections/{connectionId}/state", {
      params: { path: { connectionId } },
      body: { operationalState, version, ...(options.linkExistingUsers !== undefined ? { linkExistingUsers: options.linkExistingUsers } : {}) }
    }))
  }

  /** The connection's credentials, revoked and replaced ones included; never their tokens. */
  credentials(connectionId: string): Promise<Array<ProvisioningCredential>> {
    return unwrap(this.client.GET("/api/admin/provisioning/connections/{connectionId}/credentials", { params: { path: { connectionId } } }))
  }

  /** A new credential; its `token` is shown only in this answer. */
  issue(connectionId: string, input: CreateProvisioningCredential): Promise<IssuedCredential> {
    return unwrap(this.client.POST("/api/admin/provisioning/connections/{connectionId}/credentials", { params: { path: { connectionId } }, body: input }))
  }

  /** A new credential replacing `credentialId`, which keeps working until `overlapEndsAt` (default 24 hours). */
  rotate(connectionId: string, credentialId: string, input: RotateProvisioningCredential = {}): Promise<IssuedCredential> {
    return unwrap(this.client.POST("/api/admin/provisioning/connections/{connectionId}/credentials/{credentialId}/rotate", {
      params: { path: { connectionId, credentialId } }, body: input
    }))
  }

  /** Revoked at once; the credential stays listed with `revokedAt`. */
  revoke(connectionId: string, credentialId: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/admin/provisioning/connections/{connectionId}/credentials/{credentialId}", {
      params: { path: { connectionId, credentialId } }
    }))
  }
}
