import { defineCommand } from "../../../../command"
import { present } from "../../../../output/present"
import { gatewaysView } from "../../../../views/ai"

export default defineCommand({
  description: "every gateway: built in (LOCAL), from LORE_EMBEDDING_* (read-only) and the administrators'",
  isDefault: true,
  examples: ["lore admin ai gateways list", "lore --json admin ai gateways | jq -r '.[].gatewayKey'"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading gateways", run: () => lore.admin.ai.gateways(), view: gatewaysView })
  }
})
