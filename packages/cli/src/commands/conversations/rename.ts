import { nonEmpty, requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"

export default defineCommand({
  description: "rename a conversation",
  examples: ["lore conversations rename <conversationId> \"Travel questions\""],
  configure: (command) => command.argument("<conversationId>", "the conversation's id").argument("<title>", "the new title (1-200 characters)"),
  run: async (runtime, command) => {
    const [conversationId, rawTitle] = command.processedArgs as [string, string]
    requireId(conversationId, "conversation", "'lore conversations' shows the ids")
    const title = nonEmpty(rawTitle, "the title")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Renaming",
      run: async () => {
        await lore.assistant.renameConversation(conversationId, title)
        return { id: conversationId, title }
      },
      view: (result) => [{ kind: "message", tone: "success", text: `Renamed the conversation to "${result.title}"` }]
    })
  }
})
