import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { asCaller } from "../domain/Principal"
import { LoreApi } from "../http/Api"
import { ProvisioningConnections } from "./Connections"

export const ProvisioningAdminHttp = HttpApiBuilder.group(LoreApi, "adminProvisioning", (handlers) =>
  Effect.gen(function* () {
    const connections = yield* ProvisioningConnections
    return handlers
      .handle("listProvisioningConnections", () => asCaller(connections.list))
      .handle("createProvisioningConnection", ({ payload }) => asCaller((me) => connections.create(me, payload)))
      .handle("setProvisioningState", ({ path, payload }) => asCaller((me) => connections.setState(me, path.connectionId, payload.operationalState, payload.version, payload.linkExistingUsers)))
      .handle("listProvisioningCredentials", ({ path }) => asCaller((me) => connections.credentials(me, path.connectionId)))
      .handle("createProvisioningCredential", ({ path, payload }) => asCaller((me) => connections.issue(me, path.connectionId, payload)))
      .handle("rotateProvisioningCredential", ({ path, payload }) => asCaller((me) => connections.rotate(me, path.connectionId, path.credentialId, payload)))
      .handle("revokeProvisioningCredential", ({ path }) => asCaller((me) => connections.revoke(me, path.connectionId, path.credentialId)))
  })
)
