import { parseVersionLabel, requireAsset, requireId } from "../../arguments"
import { refuseStarterText } from "../../assetStarters"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present } from "../../output/present"
import { assetView } from "../../views/assets"

export default defineCommand({
  description: "release an approved revision under a semantic version (or, with --direct, the draft without review where policy allows)",
  examples: ["lore assets release ops/incident-summary --label 1.0.0", "lore assets release ops/incident-summary --label 1.0.1 --direct --note hotfix"],
  notes: "Without --revision, the latest approved revision that is not released yet.",
  configure: (command) =>
    command
      .argument("<asset>", "the asset's id or namespace/slug")
      .requiredOption("--label <semver>", "the version label, greater than every earlier release (--version prints the CLI's own)", parseVersionLabel)
      .option("--revision <revisionId>", "the approved revision to release")
      .option("--direct", "release the current draft without review (the space's policy must allow it)")
      .option("--note <text>", "change note of a direct release", ""),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ label: string; revision?: string; direct?: boolean; note: string }>()
    if (flags.revision) requireId(flags.revision, "revision", "'lore --json assets show <asset>' lists the revisions")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Releasing ${flags.label}`,
      run: async () => {
        const asset = await lore.assets.get(await requireAsset(lore, ref))
        if (flags.direct) {
          if (!asset.draft) throw new CliError(ExitCode.forbidden, "ASSET_ROLE_REQUIRED", "you see this asset's releases only")
          refuseStarterText(asset.type, asset.draft.payload, ref)
          return lore.assets.directRelease(asset.id, { versionLabel: flags.label, changeNote: flags.note, lockVersion: asset.draft.lockVersion })
        }
        const released = new Set(asset.releases.map((release) => release.revisionId))
        const approved = asset.reviews.filter((review) => review.state === "APPROVED" && !released.has(review.revisionId)).at(-1)?.revisionId
        const revisionId = flags.revision ?? approved
        if (!revisionId) throw new CliError(ExitCode.invalid, "REVISION_NOT_APPROVED", "the asset has no approved revision waiting for release")
        return lore.assets.release(asset.id, { revisionId, versionLabel: flags.label })
      },
      view: assetView
    })
  }
})
