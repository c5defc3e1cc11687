import { requireAsset } from "../../arguments"
import { defineCommand } from "../../command"
import { confirm, present, requireConfirmation } from "../../output/present"

export default defineCommand({
  description: "delete an asset that was never released (a draft created by mistake; asks first, --yes in scripts)",
  aliases: ["remove"],
  examples: ["lore assets rm ops/incident-summary", "lore assets rm <assetId> --yes"],
  notes: "Only the asset's OWNER or BACKUP_OWNER may delete it (403 otherwise), and only while it has no release: a released asset is withdrawn instead (409 ASSET_HAS_RELEASES, exit 6; see 'lore assets withdraw').",
  configure: (command) => command.argument("<asset>", "the asset's id or namespace/slug").option("-y, --yes", "delete without asking"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const { yes } = command.opts<{ yes?: boolean }>()
    if (!yes) {
      requireConfirmation(runtime, `delete asset ${ref}`)
      await confirm(runtime, `Delete asset ${ref}, its draft, revisions and reviews?`, `asset ${ref} was not deleted`)
    }
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Deleting ${ref}`,
      run: async () => {
        const assetId = await requireAsset(lore, ref)
        await lore.assets.delete(assetId)
        return { assetId, deleted: true as const }
      },
      view: (result) => [{ kind: "message", tone: "success", text: `Deleted asset ${ref} (${result.assetId})` }]
    })
  }
})
