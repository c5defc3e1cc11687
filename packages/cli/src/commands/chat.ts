import { requireId } from "../arguments"
import { defineCommand } from "../command"
import { usageError } from "../errors"
import { loadInk } from "../output/present"

export default defineCommand({
  description: "talk with the assistant: streamed answers with numbered sources (/new, /model, /good, /bad, /sources, /open N)",
  helpGroup: "Knowledge",
  examples: ["lore chat", "lore chat --conversation <conversationId>   # continue one", "lore ask \"...\"   # one question, for scripts and pipes"],
  notes: "Interactive: needs a terminal (use 'lore ask' in scripts). Ctrl-C stops the answer being written; with none, it ends the session.",
  configure: (command) => command.option("--conversation <id>", "continue this conversation ('lore conversations' lists them)"),
  run: async (runtime, command) => {
    const { conversation } = command.opts<{ conversation?: string }>()
    if (conversation) requireId(conversation, "conversation", "'lore conversations' shows the ids")
    if (runtime.output === "json") throw usageError("lore chat is interactive and has no --json form: use 'lore --json ask \"<question>\"'")
    if (!runtime.canPrompt || runtime.output !== "tty") throw usageError("lore chat needs a terminal (stdin is not one, or CI is set): use 'lore ask \"<question>\"'")
    const lore = runtime.client({ requireToken: true })
    // Colors are settled before Ink loads (loadInk), then the session's own view.
    await loadInk(runtime)
    const { runChat } = await import("../views/chat")
    await runChat(lore, conversation)
  }
})
