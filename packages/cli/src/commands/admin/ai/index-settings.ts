import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { indexSettingsView } from "../../../views/ai"

export default defineCommand({
  description: "the search index's embedding provider, model and dimensions",
  examples: ["lore admin ai index-settings", "lore --json admin ai index-settings"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading index settings", run: () => lore.admin.ai.indexSettings(), view: indexSettingsView })
  }
})
