import { requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { confirm, present, requireConfirmation } from "../../output/present"

export default defineCommand({
  description: "delete one of your assistant files with its content, at once",
  aliases: ["remove"],
  examples: ["lore files rm <fileId>            # asks first on a terminal", "lore files rm <fileId> --yes      # in scripts and CI"],
  configure: (command) =>
    command.argument("<fileId>", "the file's id ('lore files list')").option("-y, --yes", "do not ask for confirmation (required without a terminal or in CI)"),
  run: async (runtime, command) => {
    const [fileId] = command.processedArgs as [string]
    requireId(fileId, "file", "'lore files list' shows the ids")
    const { yes } = command.opts<{ yes?: boolean }>()
    if (!yes) requireConfirmation(runtime, "delete")
    const lore = runtime.client({ requireToken: true })
    if (!yes) {
      const file = await lore.assistant.files.get(fileId)
      await confirm(runtime, `Delete your file '${file.fileName}'?`, "nothing was deleted")
    }
    await present(runtime, {
      progress: "Deleting file",
      run: async () => {
        await lore.assistant.files.remove(fileId)
        return { fileId, deleted: true }
      },
      view: (deleted) => [{ kind: "message", tone: "success", text: `Deleted file ${deleted.fileId}` }]
    })
  }
})
