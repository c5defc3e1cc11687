import { connectionStateCommand } from "../../../provisioningState"

export default connectionStateCommand("PAUSED", { examples: ["lore admin provisioning pause okta"] })
