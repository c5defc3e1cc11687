import { requireAsset } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present } from "../../output/present"
import { assetView } from "../../views/assets"

export default defineCommand({
  description: "submit the draft for review: an immutable revision, and a review under the space's policy",
  examples: ["lore assets submit ops/incident-summary --note 'tightened the objective'"],
  configure: (command) =>
    command
      .argument("<asset>", "the asset's id or namespace/slug")
      .option("--note <text>", "the change note reviewers read", "")
      .option("--lock-version <n>", "submit only if the draft is still at this lockVersion (default: as read now)", (v) => Number.parseInt(v, 10)),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ note: string; lockVersion?: number }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Submitting",
      run: async () => {
        const asset = await lore.assets.get(await requireAsset(lore, ref))
        if (!asset.draft) throw new CliError(ExitCode.forbidden, "ASSET_ROLE_REQUIRED", "you see this asset's releases only")
        return lore.assets.submit(asset.id, { changeNote: flags.note, lockVersion: flags.lockVersion ?? asset.draft.lockVersion })
      },
      view: assetView
    })
  }
})
