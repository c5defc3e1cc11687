import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { conversationsView } from "../../views/assistant"

export default defineCommand({
  description: "list your conversations, most recent activity first",
  isDefault: true,
  aliases: ["ls"],
  examples: ["lore conversations list", "lore --json conversations | jq -r '.[0].id'"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading conversations", run: () => lore.assistant.conversations(), view: conversationsView })
  }
})
