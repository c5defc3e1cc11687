import { requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { sourceView } from "../../views/sources"

export default defineCommand({
  description: "show one source: status, failure, file, classification, version, pages and chunks",
  examples: ["lore sources show 3f0c9a4e-5b1d-4c7a-9e2f-8a6b1c2d3e4f", "lore --json sources show <sourceId> | jq .status"],
  configure: (command) => command.argument("<sourceId>", "the source's id ('lore sources list')"),
  run: async (runtime, command) => {
    const [sourceId] = command.processedArgs as [string]
    requireId(sourceId, "source", "'lore sources list' shows the ids")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading source", run: () => lore.sources.get(sourceId), view: sourceView })
  }
})
