import { assetTypeValues, type AssetType } from "@lore/sdk"
import { oneOf } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { assetsView } from "../../views/assets"

export default defineCommand({
  description: "list the assets you can see (viewers see released assets only)",
  isDefault: true,
  examples: ["lore assets list", "lore assets list --type PROMPT_TEMPLATE -q incident", "lore --json assets | jq '.[].slug'"],
  configure: (command) =>
    command
      .option("--type <type>", `only this type: ${assetTypeValues.join(", ")}`, oneOf(assetTypeValues))
      .option("-q, --query <text>", "only assets whose namespace, slug, title or summary contain this"),
  run: async (runtime, command) => {
    const flags = command.opts<{ type?: AssetType; query?: string }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Loading assets",
      run: () => lore.assets.list({ ...(flags.type ? { type: flags.type } : {}), ...(flags.query ? { q: flags.query } : {}) }),
      view: assetsView
    })
  }
})
