import { connectionStateCommand } from "../../../provisioningState"

export default connectionStateCommand("DISABLED", { examples: ["lore admin provisioning disable okta"] })
