import { requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { transcriptView } from "../../views/assistant"

export default defineCommand({
  description: "show a conversation: every message, and the sources of each answer (availability checked now)",
  examples: ["lore conversations show <conversationId>", "lore --json conversations show <conversationId> | jq '.messages[-1].citations'"],
  configure: (command) => command.argument("<conversationId>", "the conversation's id ('lore conversations')"),
  run: async (runtime, command) => {
    const [conversationId] = command.processedArgs as [string]
    requireId(conversationId, "conversation", "'lore conversations' shows the ids")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Loading the conversation",
      run: async () => {
        const [messages, conversations] = await Promise.all([lore.assistant.messages(conversationId), lore.assistant.conversations()])
        const withCitations = await Promise.all(messages.map(async (message) =>
          message.role === "ASSISTANT" ? { ...message, citations: await lore.assistant.citations(message.id) } : message))
        return { conversation: conversations.find((candidate) => candidate.id === conversationId), messages: withCitations }
      },
      view: (result) => transcriptView(result.conversation, result.messages)
    })
  }
})
