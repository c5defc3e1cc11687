import { Layer } from "effect"
import { Audit, AuditTrail } from "./Audit"
import { SecretBox } from "./SecretBox"

/**
 * The platform area: audit trail and secrets at rest. Reading the trail needs AuditLabels, which the access
 * area provides (the app wires it in).
 */
export const PlatformLive = Layer.mergeAll(Audit.Default, AuditTrail.Default, SecretBox.Default)
