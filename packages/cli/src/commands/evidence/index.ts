import { defineGroup } from "../../command"

export default defineGroup({
  description: "evidence bound to a conversation: documents ingested into a knowledge space that the conversation's answers retrieve",
  helpGroup: "Knowledge",
  examples: ["lore evidence add memo.pdf --conversation <conversationId> --space legal", "lore evidence list --conversation <conversationId>"]
})
