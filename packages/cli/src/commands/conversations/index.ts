import { defineGroup } from "../../command"

export default defineGroup({
  description: "your assistant conversations (private to you); 'lore conversations' alone lists them",
  helpGroup: "Knowledge",
  examples: ["lore conversations", "lore conversations show <conversationId>", "lore conversations rename <conversationId> \"Travel questions\""]
})
