import { Layer } from "effect"
import { ProvisioningConnections } from "./Connections"
import { ProvisioningRepo } from "./Repo"
import { Scim } from "./scim/Scim"

/** The provisioning area: connections, their credentials, and the SCIM service. */
export const ProvisioningLive = Layer.mergeAll(ProvisioningConnections.Default, Scim.Default, ProvisioningRepo.Default)
