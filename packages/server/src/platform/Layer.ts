import { Layer } from "effect"
import { Audit } from "./Audit"
import { SecretBox } from "./SecretBox"

/** The platform area: audit trail and secrets at rest. */
export const PlatformLive = Layer.mergeAll(Audit.Default, SecretBox.Default)
