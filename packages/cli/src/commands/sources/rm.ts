import { requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { confirm, present, requireConfirmation } from "../../output/present"

export default defineCommand({
  description: "delete a source: it leaves search at once, its chunks are purged in the background",
  aliases: ["remove"],
  examples: ["lore sources rm <sourceId>            # asks first on a terminal", "lore sources rm <sourceId> --yes      # in scripts and CI"],
  configure: (command) =>
    command.argument("<sourceId>", "the source's id ('lore sources list')").option("-y, --yes", "do not ask for confirmation (required without a terminal or in CI)"),
  run: async (runtime, command) => {
    const [sourceId] = command.processedArgs as [string]
    requireId(sourceId, "source", "'lore sources list' shows the ids")
    const { yes } = command.opts<{ yes?: boolean }>()
    if (!yes) requireConfirmation(runtime, "delete")
    const lore = runtime.client({ requireToken: true })
    if (!yes) {
      const source = await lore.sources.get(sourceId)
      await confirm(runtime, `Delete '${source.title}' (${source.fileName}) from ${source.knowledgeSpaceKey}? It leaves search at once.`, "nothing was deleted")
    }
    await present(runtime, {
      progress: "Deleting source",
      run: async () => ({ sourceId, ...(await lore.sources.remove(sourceId)) }),
      view: (deleted) => [{ kind: "message", tone: "success", text: `Deleted source ${deleted.sourceId}; it no longer appears in search (purge ${deleted.status.toLowerCase()})` }]
    })
  }
})
