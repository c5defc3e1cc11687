import { parseCount } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { filesView } from "../../views/assistantFiles"

export default defineCommand({
  description: "list your assistant files, newest first",
  isDefault: true,
  examples: ["lore files list", "lore files list --page 1 --limit 50", "lore --json files list | jq -r '.items[] | select(.status == \"READY\") | .id'"],
  configure: (command) =>
    command
      .option("--page <n>", "which page, from 0", parseCount(0, 1_000_000), 0)
      .option("--limit <n>", "files per page (1-100)", parseCount(1, 100), 20),
  run: async (runtime, command) => {
    const { page, limit } = command.opts<{ page: number; limit: number }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading files", run: () => lore.assistant.files.list({ page, limit }), view: filesView })
  }
})
