import { requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { confirm, present, requireConfirmation } from "../../output/present"

export default defineCommand({
  description: "delete a conversation with its messages, citations and feedback (asks first; --yes in scripts)",
  aliases: ["remove"],
  examples: ["lore conversations rm <conversationId>", "lore conversations rm <conversationId> --yes"],
  configure: (command) => command.argument("<conversationId>", "the conversation's id").option("-y, --yes", "delete without asking"),
  run: async (runtime, command) => {
    const [conversationId] = command.processedArgs as [string]
    requireId(conversationId, "conversation", "'lore conversations' shows the ids")
    const { yes } = command.opts<{ yes?: boolean }>()
    if (!yes) {
      requireConfirmation(runtime, `delete conversation ${conversationId}`)
      await confirm(runtime, `Delete conversation ${conversationId} and all its messages?`, "the conversation was not deleted")
    }
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Deleting",
      run: async () => {
        await lore.assistant.deleteConversation(conversationId)
        return { id: conversationId, removed: true as const }
      },
      view: () => [{ kind: "message", tone: "success", text: `Deleted conversation ${conversationId}` }]
    })
  }
})
