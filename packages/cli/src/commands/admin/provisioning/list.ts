import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { connectionsView } from "../../../views/provisioning"

export default defineCommand({
  description: "every provisioning connection, with its state",
  isDefault: true,
  examples: ["lore admin provisioning list", "lore --json admin provisioning | jq -r '.[].alias'"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading provisioning connections", run: () => lore.admin.provisioning.connections(), view: connectionsView })
  }
})
