import { requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { evidenceListView } from "../../views/evidence"

export default defineCommand({
  description: "list the evidence of one of your conversations, oldest first",
  isDefault: true,
  examples: ["lore evidence list --conversation <conversationId>", "lore --json evidence list --conversation <conversationId> | jq -r '.[] | select(.status == \"READY\") | .fileName'"],
  configure: (command) => command.option("--conversation <id>", "your conversation (required)"),
  run: async (runtime, command) => {
    const { conversation } = command.opts<{ conversation?: string }>()
    if (!conversation) throw usageError("missing --conversation: pass --conversation <id>")
    const conversationId = requireId(conversation, "conversation", "lore conversations list shows your conversations' ids")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading evidence", run: () => lore.assistant.evidence.list(conversationId), view: evidenceListView })
  }
})
