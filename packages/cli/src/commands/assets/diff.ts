import { requireAsset, requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present } from "../../output/present"
import { diffView } from "../../views/assets"

export default defineCommand({
  description: "show what a revision changes against the release before it (default: the latest revision)",
  examples: ["lore assets diff ops/incident-summary", "lore --json assets diff ops/incident-summary --revision <revisionId> | jq .changes"],
  configure: (command) => command.argument("<asset>", "the asset's id or namespace/slug").option("--revision <revisionId>", "the revision (default: the latest)"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ revision?: string }>()
    if (flags.revision) requireId(flags.revision, "revision", "'lore --json assets show <asset>' lists the revisions")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Comparing",
      run: async () => {
        const asset = await lore.assets.get(await requireAsset(lore, ref))
        const revisionId = flags.revision ?? asset.revisions.at(-1)?.id
        if (!revisionId) throw new CliError(ExitCode.notFound, "REVISION_NOT_FOUND", "the asset has no revision you can see: submit it first")
        return lore.assets.diff(asset.id, revisionId)
      },
      view: diffView
    })
  }
})
