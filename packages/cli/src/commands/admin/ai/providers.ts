import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { providersView } from "../../../views/ai"

export default defineCommand({
  description: "the providers Lore can talk to, with their protocol and default base URL",
  examples: ["lore admin ai providers", "lore --json admin ai providers | jq -r '.[].preset'"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading providers", run: () => lore.admin.ai.providers(), view: providersView })
  }
})
