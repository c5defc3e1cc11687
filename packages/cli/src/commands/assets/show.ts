import { requireAsset } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { assetView } from "../../views/assets"

export default defineCommand({
  description: "show one asset: state, draft, releases and reviews",
  examples: ["lore assets show ops/incident-summary", "lore --json assets show <assetId> | jq '.releases[].digest'"],
  configure: (command) => command.argument("<asset>", "the asset's id or namespace/slug"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading asset", run: async () => lore.assets.get(await requireAsset(lore, ref)), view: assetView })
  }
})
